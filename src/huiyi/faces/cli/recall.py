"""``huiyi recall / expand / demo``: what recall returns for a query, and why."""

from __future__ import annotations

import json
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer

from huiyi.config import Config
from huiyi.faces.cli.options import (
    AgentOption,
    ConfigOption,
    KindOption,
    PersonOption,
    SpaceOption,
    StoreOption,
    open_memory,
)
from huiyi.faces.cli.printing import out, print_recall
from huiyi.memory import Memory

__all__ = ["demo", "expand", "recall_command"]


def recall_command(
    query: Annotated[str, typer.Argument(help="What to recall, e.g. the person's message.")],
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    kind: KindOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many memories.")] = 10,
    threshold: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="Drop memories scoring below this (0–1).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the recall result as JSON.")] = False,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Recall for a query as the chat would: each memory with its fused and per-route scores, and timings."""
    with open_memory(store, config, worker={"enabled": False}) as memory:
        result = memory.recall(
            query, agent=agent, person=person, space=space, limit=limit, score_threshold=threshold, kinds=kind
        )
    if as_json:
        out.print_json(result.model_dump_json())
    else:
        print_recall(result)


def expand(
    sentence: Annotated[str, typer.Argument(help="The text to associate from.")],
    max_words: Annotated[int, typer.Option(help="How many words at most.")] = 30,
    strategy: Annotated[int, typer.Option(help="0: round-robin per word; 1: pooled, recurring words rise.")] = 1,
    filter_levels: Annotated[list[int] | None, typer.Option("--filter", help="Levels to drop.")] = None,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """联想词: the words associated with a sentence, with their levels (seed 000 §11)."""
    with open_memory(store, config, made=False) as memory:  # the words of a lexicon: none built is the default
        found = memory.expand(sentence, max_words=max_words, strategy=strategy, filter_levels=filter_levels)
    out.print(f"words: {found.tokens}\nbase words: {found.base_words}", highlight=False)
    out.print(" ".join(f"{word}:{level}" for word, level in found.expanded), highlight=False)
    out.print(f"[dim]{found.total_ms:.1f} ms[/dim]")


def demo(
    store: Annotated[Path | None, typer.Option("--store", "-s", help="Keep the demo store here.")] = None,
    serve: Annotated[
        bool, typer.Option("--serve", help="Then serve the store with its web console (graph, jobs, merges too).")
    ] = False,
    port: Annotated[int, typer.Option(help="Port for --serve.")] = 8765,
) -> None:
    """Import a small bundled Chinese conversation and show what recall returns, and why."""
    if serve:
        _serve_demo(store or Path(tempfile.mkdtemp(prefix="huiyi-demo-")), port)
        return
    data = resources.files("huiyi") / "data"
    lines = (data / "demo_zh.jsonl").read_text(encoding="utf-8").splitlines()
    messages: list[dict[str, Any]] = [json.loads(line) for line in lines if line.strip()]
    queries = json.loads((data / "demo_queries.json").read_text(encoding="utf-8"))
    directory = store or Path(tempfile.mkdtemp(prefix="huiyi-demo-"))
    started = time.perf_counter()
    with Memory(directory) as memory:
        loaded = time.perf_counter()
        memory.add(messages, agent="祈煜", person="木木")
        # a second person's chat in the same store: none of it may appear in 木木's recall
        memory.add(["我最喜欢的颜色是红色", "我的狗叫豆豆"], agent="祈煜", person="阿哲")
        # extract what working memory holds now, as a bot does at a pause, so the queries see it every run
        memory.flush(agent="祈煜", person="木木")
        ingested = time.perf_counter()
        out.print(
            f"[bold]huiyi demo[/bold] store {directory}: {len(messages)} messages of 木木 and 2 of 阿哲 imported "
            f"(open {1000 * (loaded - started):.0f} ms, ingest {1000 * (ingested - loaded):.0f} ms)\n"
        )
        found = 0
        for case in queries:
            result = memory.recall(case["query"], agent="祈煜", person="木木", limit=3)
            top = result.hits[0].text if result.hits else ""
            ok = case["expect"] in top
            found += ok
            print_recall(result, title=f"木木 asks: {case['query']}  ({'✓' if ok else '✗'} expects “{case['expect']}”)")
            out.print()
        out.print(f"[bold]{found}/{len(queries)}[/bold] queries found the expected memory first.")


def _serve_demo(directory: Path, port: int) -> None:
    """The demo store with everything a console shows, served at http://127.0.0.1:<port>/console."""
    import uvicorn

    from huiyi.faces.demo import seed_demo
    from huiyi.faces.http import create_app
    from huiyi.faces.http_hosts import guard_hosts
    from huiyi.memory import AsyncMemory

    if not (directory / "huiyi.sqlite").exists():
        seed_demo(directory)
    api = create_app(
        AsyncMemory(directory, config=Config.load(None, worker={"enabled": False})), close_on_shutdown=True
    )
    guard_hosts(api, None)  # the demo has no keys
    out.print(
        f"[bold]huiyi demo[/bold] store {directory}\nconsole: http://127.0.0.1:{port}/console  (API docs at /docs)"
    )
    uvicorn.run(api, host="127.0.0.1", port=port, log_level="warning")
