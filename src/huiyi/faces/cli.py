"""The ``huiyi`` command line. A thin face: every command calls the Python API."""

from __future__ import annotations

import contextlib
import json
import logging
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from huiyi.config import Config
from huiyi.errors import HuiyiError
from huiyi.faces.cli_bench import app as bench_app
from huiyi.faces.cli_data import register as register_data_commands
from huiyi.faces.cli_eval import app as eval_app
from huiyi.memory import Memory
from huiyi.model import RecallResult

app = typer.Typer(
    name="huiyi",
    help="回忆 huiyi — long-term memory for LLM characters.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console(soft_wrap=True)

StoreOption = Annotated[Path, typer.Option("--store", "-s", help="Store directory (created if missing).")]
ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="A TOML config file.")]


def open_memory(store: Path, config: Path | None) -> Memory:
    return Memory(store, config=Config.load(config))


def print_recall(result: RecallResult, title: str = "") -> None:
    """One line a hit: rank, fused score, each route's raw score, time, text."""
    console.print(f"[bold]{title or 'recall: ' + result.query}[/bold]")
    for rank, hit in enumerate(result.hits, start=1):
        routes = " · ".join(f"{name} {score:.3f}" for name, score in hit.route_scores.items())
        when = hit.time.strftime("%Y-%m-%d %H:%M") if hit.time else "—"
        console.print(f"  {rank}. {hit.score:.3f} [dim]({routes})[/dim] {when} {hit.text}", highlight=False)
    timings = ", ".join(f"{name} {ms:.1f}" for name, ms in result.timings_ms.items())
    console.print(f"  [dim]words {result.info.get('words')} · ms: {timings}[/dim]", highlight=False)


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log what happens.")] = False) -> None:
    level = logging.INFO if verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


app.add_typer(eval_app, name="eval", help="Measure recall on public data sets.")
app.add_typer(bench_app, name="bench", help="Measure speed and memory.")
register_data_commands(app)


@app.command()
def demo(
    store: Annotated[Path | None, typer.Option("--store", "-s", help="Keep the demo store here.")] = None,
) -> None:
    """Import a small bundled Chinese conversation and show what recall returns, and why."""
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
        ingested = time.perf_counter()
        console.print(
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
            console.print()
        console.print(f"[bold]{found}/{len(queries)}[/bold] queries found the expected memory first.")


@app.command()
def serve(
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
    host: Annotated[str | None, typer.Option(help="Interface to listen on (default from config: 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default from config: 8765).")] = None,
    workers: Annotated[int, typer.Option(help="Extraction workers to run beside the API.")] = 1,
) -> None:
    """Run the HTTP service (OpenAPI at /docs) over a store; the embedded store needs no set-up."""
    import uvicorn

    from huiyi.faces.http import create_app
    from huiyi.memory import AsyncMemory

    settings = Config.load(config)
    memory = AsyncMemory(store, config=settings)
    api = create_app(
        memory,
        api_keys=settings.http.api_keys,
        max_body_bytes=settings.http.max_body_bytes,
        close_on_shutdown=True,
        workers=workers,
    )
    bind_host, bind_port = host or settings.http.host, port or settings.http.port
    console.print(f"huiyi serving {store} on http://{bind_host}:{bind_port} (docs at /docs)")
    uvicorn.run(api, host=bind_host, port=bind_port, log_level="warning")


@app.command()
def chat(
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
    agent: Annotated[str, typer.Option(help="The character that remembers.")] = "祈煜",
    person: Annotated[str, typer.Option(help="Who you are in this conversation.")] = "木木",
    quiet: Annotated[bool, typer.Option(help="Hide what was recalled and rendered.")] = False,
) -> None:
    """Talk with the agent in the terminal; shows what each turn recalled and rendered (echo without an LLM)."""
    import asyncio

    from huiyi.faces.chat import chat as run_chat
    from huiyi.memory import AsyncMemory

    async def main() -> None:
        async with AsyncMemory(store, config=Config.load(config)) as memory:
            await run_chat(memory, agent=agent, person=person, console=console, show_context=not quiet)

    asyncio.run(main())


@app.command()
def expand(
    sentence: Annotated[str, typer.Argument(help="The text to associate from.")],
    max_words: Annotated[int, typer.Option(help="How many words at most.")] = 30,
    strategy: Annotated[int, typer.Option(help="0: round-robin per word; 1: pooled, recurring words rise.")] = 1,
    filter_levels: Annotated[list[int] | None, typer.Option("--filter", help="Levels to drop.")] = None,
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
) -> None:
    """联想词: the words associated with a sentence, with their levels (seed 000 §11)."""
    with open_memory(store, config) as memory:
        found = memory.expand(sentence, max_words=max_words, strategy=strategy, filter_levels=filter_levels)
    console.print(f"words: {found.tokens}\nbase words: {found.base_words}", highlight=False)
    console.print(" ".join(f"{word}:{level}" for word, level in found.expanded), highlight=False)
    console.print(f"[dim]{found.total_ms:.1f} ms[/dim]")


@app.command("lexicon-build")
def lexicon_build(
    cache_dir: Annotated[Path | None, typer.Option(help="Where to keep the table (default: user cache).")] = None,
) -> None:
    """Build the embedding-neighbour table of ~20k words once (a few minutes); 联想词 use it from then on."""
    from rich.progress import Progress

    from huiyi.text.lexicon import build_neighbours

    with Progress(console=console) as bar:
        task = bar.add_task("embedding the vocabulary", total=None)
        table = build_neighbours(
            cache_dir_override=cache_dir, progress=lambda done, total: bar.update(task, completed=done, total=total)
        )
    console.print(f"{len(table)} words; table at {table.path}")


@app.command()
def consolidate(
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent whose memories to consolidate.")],
    person: Annotated[str | None, typer.Option("--person", "-p", help="A person's scope.")] = None,
    space: Annotated[str | None, typer.Option("--space", help="A group's scope.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")] = False,
    due: Annotated[bool, typer.Option("--due", help="Every due scope, and summaries of every due day.")] = False,
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
) -> None:
    """Merge entities, supersede facts, link events, update strength and forget, for one scope (or all due)."""
    with open_memory(store, config) as memory:
        if due:
            reports, summaries = memory.maintain()
            for report in reports:
                console.print(str(report), highlight=False)
            console.print(f"{len(reports)} scopes consolidated, {len(summaries)} summaries written")
            return
        console.print(
            str(memory.consolidate(agent=agent, person=person, space=space, dry_run=dry_run)), highlight=False
        )


@app.command()
def summarize(
    day: Annotated[str, typer.Argument(help="The day, e.g. 2024-09-01.")],
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent.")],
    person: Annotated[str | None, typer.Option("--person", "-p", help="A person's private chat.")] = None,
    space: Annotated[str | None, typer.Option("--space", help="A group.")] = None,
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
) -> None:
    """Write a day's summaries of a scope: daily, global, portraits, profiles and the agent's diary."""
    from datetime import date

    with open_memory(store, config) as memory:
        for item in memory.summarize(date.fromisoformat(day), agent=agent, person=person, space=space):
            console.print(f"[bold]{item.data.get('summary_kind')}[/bold] {item.text}", highlight=False)


@app.command()
def migrate(store: StoreOption = Path(".huiyi"), config: ConfigOption = None) -> None:
    """Create or upgrade a store's schema (a directory, or a postgresql:// URL) and print its version."""
    from huiyi.store import open_store

    opened = open_store(store, Config.load(config).store)
    try:
        console.print(f"{store}: schema version {opened.schema_version()}", highlight=False)
    finally:
        opened.close()


@app.command()
def worker(
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
    count: Annotated[int, typer.Option(help="Workers in this process.")] = 1,
) -> None:
    """Run extraction workers against a store until interrupted (any number of processes on PostgreSQL)."""
    import asyncio

    from huiyi.memory import AsyncMemory

    async def run() -> None:
        async with AsyncMemory(store, config=Config.load(config)) as memory:
            stop = asyncio.Event()
            try:
                await memory.run_workers(count, stop)
            finally:
                stop.set()

    console.print(f"{count} extraction worker(s) on {store}; Ctrl-C stops them")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


def main() -> None:
    try:
        app()
    except HuiyiError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        raise SystemExit(2) from exc


if __name__ == "__main__":
    main()
