"""``huiyi chat``: a terminal conversation that shows, under each turn, what was recalled and rendered.

With an LLM configured (``llm.base_url``) the agent answers through it, with the rendered context as
its system prompt; without one it echoes, which is enough to watch memory work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.console import Console
from rich.panel import Panel

from huiyi.faces.terminal import shown
from huiyi.memory import AsyncMemory, Context
from huiyi.providers.llm import LLM, OpenAIChat

SYSTEM_ZH = "你是{agent}。以下是你的记忆，请自然地运用它们，不要逐条复述。\n\n{context}"
SYSTEM_EN = "You are {agent}. Below are your memories; use them naturally, never recite them.\n\n{context}"


async def reply(llm: LLM | None, agent: str, language: str, context: Context, message: str) -> str:
    if llm is None:
        return f"（echo）{message}" if language == "zh" else f"(echo) {message}"
    system = (SYSTEM_ZH if language == "zh" else SYSTEM_EN).format(agent=agent, context=context.text)
    return await llm.complete([{"role": "system", "content": system}, {"role": "user", "content": message}])


def show(console: Console, context: Context) -> None:
    if context.recall is not None:
        lines = [shown(f"{hit.score:.3f} [{hit.kind.value}] {hit.text}") for hit in context.recall.hits] or [
            "(nothing recalled)"
        ]
        timing = context.recall.timings_ms.get("total", 0.0)
        console.print(Panel("\n".join(lines), title=f"recalled in {timing:.1f} ms", border_style="dim"))
    console.print(Panel(shown(context.text) or "(empty)", title="rendered context", border_style="dim"))


async def chat(
    memory: AsyncMemory,
    *,
    agent: str,
    person: str,
    console: Console,
    read: Callable[[str], str] = input,
    show_context: bool = True,
) -> int:
    """Run the conversation until EOF or /quit; returns the number of turns."""
    llm: LLM | None = OpenAIChat(memory.config.llm) if memory.config.llm.base_url else None
    language = memory.config.language
    last_reply = ""
    turns = 0
    console.print(
        f"[bold]huiyi chat[/bold] — {shown(agent)} × {shown(person)}. /flush folds working memory, /quit ends."
    )
    try:
        while True:
            try:
                message = (await asyncio.to_thread(read, f"{person}> ")).strip()
            except EOFError:
                break
            if not message:
                continue
            if message in {"/quit", "/exit"}:
                break
            if message == "/flush":
                jobs = await memory.flush(agent=agent, person=person)
                console.print(f"[dim]folded {sum(len(j.payload['message_ids']) for j in jobs)} messages[/dim]")
                continue
            context = await memory.context(agent=agent, person=person, message=message, last_reply=last_reply)
            if show_context:
                show(console, context)
            answer = await reply(llm, agent, language, context, message)
            await memory.add([{"text": message}, {"text": answer, "role": "assistant"}], agent=agent, person=person)
            console.print(f"[bold]{shown(agent)}[/bold]: {shown(answer)}")
            last_reply = answer
            turns += 1
    finally:
        if isinstance(llm, OpenAIChat):
            await llm.aclose()
    return turns
