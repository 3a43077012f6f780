"""``huiyi import / export / inspect``: data in and out of a store, and a look inside.

Thin like every face: the file formats are :mod:`huiyi.formats`; each command reads its options,
calls it or :class:`~huiyi.memory.Memory`, and prints.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.faces.cli.options import (
    AgentOption,
    ConfigOption,
    KindOption,
    PersonOption,
    SpaceOption,
    StoreOption,
    existing,
    made_by_opening,
    open_memory,
)
from huiyi.faces.cli.printing import err, out, short, shown, when_text
from huiyi.formats import Counts, Plan, apply_plan, export_lines, scope_label, write_lines
from huiyi.formats.choose import FORMATS, read_import
from huiyi.formats.jobcount import JobTally, count_jobs, watch_jobs
from huiyi.memory import AsyncMemory
from huiyi.model import MemoryItem
from huiyi.store import store_label

__all__ = ["export_command", "import_command", "inspect_command"]

PROGRESS_FROM = 200  # records; smaller imports finish before a bar is worth drawing


def import_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="The file to import (formats above).")],
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
    agent: Annotated[str | None, typer.Option("--agent", "-a", help="Agent of lines that name none.")] = None,
    person: Annotated[
        str | None,
        typer.Option(
            "--person", "-p", help="Person of lines that name none; a chat export's or mem0's of its one chat."
        ),
    ] = None,
    space: Annotated[
        str | None,
        typer.Option("--space", help="Group space of lines that name none; a chat export's of its one chat."),
    ] = None,
    case: Annotated[list[str] | None, typer.Option("--case", help="Probe files: only this case (repeatable).")] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", help=f"One of {', '.join(FORMATS)}; auto sniffs the file.")
    ] = "auto",
    self_: Annotated[
        list[str] | None,
        typer.Option("--self", help="Chat exports: the agent's own account (id or nickname), repeatable."),
    ] = None,
    extract: Annotated[
        bool, typer.Option("--extract/--no-extract", help="Run the extraction jobs the messages queue before exiting.")
    ] = True,
) -> None:
    """Import messages and memories from a file in one of these formats (sniffed, or named by --format):

    \b
    jsonl        huiyi JSON lines: messages, memories, persons (`huiyi export`)
    probes       the evaluation's probe format (its messages and memories)
    csv          huiyi CSV: a header of agent, person, space, speaker, role,
                 text, time, id (text required); one message a row
    qq           QQ's text export: "date time nickname(QQ number)", then lines
    wechat-csv   WeChatMsg / 留痕 / MemoTrace CSV (StrContent, IsSender, …)
    wechat-html  the HTML of the same tools
    mem0         mem0's memories: get_all() as JSON, or JSON lines
    memorybank   MemoryBank's memory.json: history by day, summaries

    \b
    Chat exports: speakers become persons (QQ numbers and wxids as ids and
    platform ids, nicknames as aliases), groups become spaces; --self names
    the agent's own account. Records have stable ids: run an import again,
    or after an interruption, and it continues without duplicates. Messages
    are extracted as live chat would. The file is checked before any write.
    """
    overrides: dict[str, Any] = {} if extract else {"worker": {"enabled": False}}
    settings = Config.load(config, **overrides)
    plan = read_import(
        file,
        format=format,
        agent=agent,
        person=person,
        space=space,
        cases=case or [],
        selves=self_ or [],
        timezone=settings.timezone,
    )
    with Progress(
        TextColumn("importing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=plan.size < PROGRESS_FROM,
    ) as bar:
        task = bar.add_task("import", total=plan.size)
        fresh = made_by_opening(store, settings)
        try:
            counts, jobs = asyncio.run(_import(store, settings, plan, extract, lambda n: bar.advance(task, n)))
        except InvalidInput:  # refused before any write: a mistyped --store is left as it was, not an empty store
            if fresh is not None:
                shutil.rmtree(fresh, ignore_errors=True)
            raise
        except KeyboardInterrupt:
            err.print(
                "[yellow]interrupted:[/yellow] what was stored is kept (its indexing finishes at the next open); "
                "run the same import again to finish it, nothing is added twice",
                highlight=False,
            )
            raise SystemExit(130) from None
    for note in plan.notes:
        err.print(f"[dim]note: {shown(note)}[/dim]", highlight=False)
    parts = [f"{counts.stored} messages stored", f"{counts.skipped} already there", f"{counts.memories} memories"]
    if counts.persons:
        parts.append(f"{counts.persons} person" + ("s" if counts.persons > 1 else ""))
    for name in ("entities", "links", "merges"):
        if value := getattr(counts, name):
            parts.append(f"{value} {name}")
    if counts.chunks_skipped:
        parts.append(f"{counts.chunks_skipped} chunks left to be rebuilt from their messages")
    parts.extend(_job_parts(jobs, extract))
    where = shown(f"{file.name} into {store_label(store, settings.store)}")
    out.print(f"imported {where}: " + ", ".join(parts), highlight=False)


async def _import(
    store: str, settings: Config, plan: Plan, extract: bool, advance: Callable[[int], None]
) -> tuple[Counts, JobTally]:
    """The plan written, its extraction jobs run (``extract``), and how they stand, whoever ran them."""
    async with AsyncMemory(store, config=settings) as memory:
        watch = await watch_jobs(memory, plan)
        counts = await apply_plan(memory, plan, advance)
        if extract:
            await memory.run_jobs()  # counts only the jobs it ran: the background worker may have run them
        jobs = await count_jobs(memory, watch)
    return counts, jobs


def _job_parts(jobs: JobTally, extract: bool) -> list[str]:
    """What became of the import's extraction jobs, for its summary line."""
    parts = [f"{jobs.done} extraction jobs run"] if extract or jobs.done else []
    if extract and jobs.others_done:  # queued before in chats the file holds none of: the drain runs every due job
        parts.append(f"{jobs.others_done} of other chats run too")
    if jobs.failed:
        parts.append(f"{jobs.failed} failed")
    if not extract:
        parts.append(f"{jobs.waiting} extraction jobs left queued")
    elif jobs.waiting:
        parts.append(f"{jobs.waiting} not done yet")
    if jobs.failed or (extract and jobs.waiting):
        parts[-1] += " (huiyi jobs list)"
    return parts


def export_command(
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Export one scope (a person's, a space's, or with neither the official one) as JSON lines.

    Messages and memories; `huiyi import` reads the file back.
    """
    settings = Config.load(config, worker={"enabled": False})
    existing(store, settings)
    count = asyncio.run(_export(store, settings, agent, person, space, output))
    if output is not None:
        err.print(shown(f"exported {count} lines of {agent} {scope_label(person, space)} to {output}"), highlight=False)


async def _export(
    store: str, settings: Config, agent: str, person: str | None, space: str | None, output: Path | None
) -> int:
    async with AsyncMemory(store, config=settings) as memory:
        lines = export_lines(memory, agent, person, space)
        if output is None:
            return await write_lines(lines, sys.stdout)
        with output.open("w", encoding="utf-8") as handle:
            return await write_lines(lines, handle)


def inspect_command(
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    kind: KindOption = None,
    page: Annotated[int, typer.Option("--page", min=1, max=10**9, help="Which page, from 1.")] = 1,
    page_size: Annotated[int, typer.Option("--page-size", "-n", min=1, max=500, help="Rows a page.")] = 20,
    cursor: Annotated[
        str | None,
        typer.Option("--cursor", help="Go on after a page: its cursor, printed under it (unlike --page, skips none)."),
    ] = None,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """List one scope's memories, newest first, as a table, a page at a time."""
    if cursor is not None and page > 1:
        raise InvalidInput("give --page or --cursor, not both")
    offset = (page - 1) * page_size
    where: dict[str, Any] = {"agent": agent, "person": person, "space": space, "kinds": kind}
    with open_memory(store, config, worker={"enabled": False}) as memory:
        if page > 1:  # by offset, as before: memories written or forgotten meanwhile shift the rows
            items = memory.memories(**where, limit=page_size + 1, offset=offset)
            more, items, following = len(items) > page_size, items[:page_size], None
        else:
            found = memory.memories_page(**where, limit=page_size, cursor=cursor)
            items, following = found.items, found.next_cursor
            more = following is not None and cursor is None  # --page 2 follows page 1, not a cursor's page
    who, label = shown(agent), shown(scope_label(person, space))
    if not items:
        out.print(f"{who} {label}: no memories" + (f" on page {page}" if page > 1 else ""), highlight=False)
        return
    where_in = f"page {page} (rows {offset + 1}–{offset + len(items)})" if cursor is None else "after the cursor"
    if out.width < WIDE:  # 80 columns or piped: a table would leave the text no room
        out.print(f"{who} · {label} · {where_in}", highlight=False)
        for row, item in enumerate(items, start=offset + 1):
            numbers = f"imp {item.importance:.2f} str {item.strength:.2f} seen {item.access_count}"
            out.print(f"{row}. {shown(item.id)} {item.kind.value} {when_text(item.time)} {numbers}", highlight=False)
            out.print(f"   {_text_of(item)}", highlight=False, soft_wrap=True)
    else:
        out.print(_table(items, offset, f"{who} · {label} · {where_in}"))
    hints = ([f"--page {page + 1}"] if more else []) + ([f"--cursor {following}"] if following else [])
    if hints:
        out.print(f"[dim]more: {' or '.join(hints)}[/dim]", highlight=False, soft_wrap=True)  # a cursor copies whole


WIDE = 120  # columns a table of memories needs to leave their text room


def _table(items: Sequence[MemoryItem], offset: int, title: str) -> Table:
    table = Table(title=title)
    table.add_column("#", justify="right", no_wrap=True)
    for name in ("id", "kind", "time"):
        table.add_column(name, no_wrap=True)
    for name in ("imp", "str", "seen"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("text", overflow="fold", ratio=1, min_width=20)
    for row, item in enumerate(items, start=offset + 1):
        numbers = (f"{item.importance:.2f}", f"{item.strength:.2f}", str(item.access_count))
        table.add_row(str(row), shown(item.id), item.kind.value, when_text(item.time), *numbers, _text_of(item))
    return table


def _text_of(item: MemoryItem) -> str:
    """A memory's text, shortened and safe to print; a closed fact says since when it no longer holds."""
    closed = f" [closed {when_text(item.valid_to)}]" if item.valid_to is not None else ""
    return shown(short(item.text) + closed)
