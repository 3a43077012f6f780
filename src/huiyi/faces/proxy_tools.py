"""The proxy's memory tools (``proxy.tools``): huiyi's searches and ``rate_memory`` offered to the model beside
the bot's own tools, and run by the proxy between upstream calls. The bot sees only calls of its own tools."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any

import httpx

from huiyi.faces.tools import ToolExecutor, dumps, error_object, tool_schemas

log = logging.getLogger(__name__)

# the searches, and rate_memory: the bot's own 反馈权重 (seed 001 §2.4) of its conversation's memories
MEMORY_TOOLS = ("conversation_search", "archival_memory_search", "search_memories", "rate_memory")
TOOL_ROUNDS = 4  # upstream calls that may answer with memory tool calls before the final answer

Post = Callable[[dict[str, Any]], Awaitable[httpx.Response]]


def offered(body: dict[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
    """The request with huiyi's memory tools beside the bot's, asked for whole (no stream), and the names of
    those offered. A tool the bot declares under one of their names stays the bot's: both went upstream, which
    OpenAI-style servers refuse (400), and one that took them would have had huiyi's run for the bot's."""
    declared = {_name(tool) for tool in body.get("tools") or []}
    names = frozenset(name for name in MEMORY_TOOLS if name not in declared)
    ours = tool_schemas(tuple(name for name in MEMORY_TOOLS if name in names))
    asked = {**body, "stream": False, "tools": [*(body.get("tools") or []), *ours]}
    asked.pop("stream_options", None)
    return asked, names


async def run_rounds(
    post: Post, executor: ToolExecutor, body: dict[str, Any], names: Collection[str]
) -> httpx.Response:
    """The upstream's answer once the model has made all the calls of huiyi's tools it wants (each answered
    by ``executor``), at most ``TOOL_ROUNDS`` rounds of them; an error answer as it came."""
    response = await post(body)
    for round_ in range(1, TOOL_ROUNDS + 1):
        if response.status_code != 200:
            return response
        message = first_message(response)
        calls = _memory_calls(message, names)
        if message is None or calls is None:
            break
        results = [
            {"role": "tool", "tool_call_id": call.get("id", ""), "content": await _answered(executor, call)}
            for call in calls
        ]
        body = {**body, "messages": [*body["messages"], message, *results]}
        # the last round must answer in words: calls to tools the client never declared would break it
        response = await post({**body, "tool_choice": "none"} if round_ == TOOL_ROUNDS else body)
    return response


def for_client(completion: dict[str, Any], names: Collection[str]) -> dict[str, Any] | None:
    """The completion without its calls of huiyi's tools, or None when it makes none: a message that called
    them beside the bot's own tools (or past the last round) reached the bot whole, with calls of tools it
    never declared, as did every choice past the first (``n`` > 1; helper). Left with no call, a message ends
    as an answer (``finish_reason`` "stop")."""
    choices = [_without_ours(choice, names) for choice in completion["choices"]]
    if all(new is old for new, old in zip(choices, completion["choices"], strict=True)):
        return None
    return {**completion, "choices": choices}


def _without_ours(choice: Any, names: Collection[str]) -> Any:
    """One choice without its calls of huiyi's tools; the choice itself when it makes none."""
    if not isinstance(choice, dict) or not isinstance(said := choice.get("message"), dict):
        return choice
    calls = said.get("tool_calls")
    if not isinstance(calls, list) or not any(_ours(call, names) for call in calls):
        return choice
    kept = [call for call in calls if not _ours(call, names)]
    message = {key: value for key, value in said.items() if key != "tool_calls" or kept}
    if kept:
        message["tool_calls"] = kept
    elif choice.get("finish_reason") == "tool_calls":
        choice = {**choice, "finish_reason": "stop"}
    return {**choice, "message": message}


def first_message(response: httpx.Response) -> dict[str, Any] | None:
    """The first choice's message of a completion, or None when the upstream sent something else."""
    try:
        choices = response.json().get("choices")
        message = choices[0]["message"]
    except (ValueError, AttributeError, LookupError, TypeError):
        return None
    return message if isinstance(message, dict) else None


def _name(tool: object) -> object:
    function = tool.get("function") if isinstance(tool, dict) else None
    return function.get("name") if isinstance(function, dict) else None


def _ours(call: object, names: Collection[str]) -> bool:
    return _name(call) in names


def _memory_calls(message: dict[str, Any] | None, names: Collection[str]) -> list[dict[str, Any]] | None:
    """The message's tool calls when all are well-formed calls of huiyi's tools offered, which the proxy runs."""
    calls = message.get("tool_calls") if message else None
    if not calls or not isinstance(calls, list) or not all(_ours(call, names) for call in calls):
        return None
    return calls


async def _answered(executor: ToolExecutor, call: dict[str, Any]) -> str:
    """A memory tool's answer; a failure of ours (the store down) is told to the model, as MCP does, and logged."""
    try:
        return await executor.call(call["function"]["name"], call["function"].get("arguments"))
    except Exception:
        log.exception("proxy: memory tool %s failed; the model is told", call["function"]["name"])
        return dumps(error_object("internal_error", "the memory tool failed; answer without it"))
