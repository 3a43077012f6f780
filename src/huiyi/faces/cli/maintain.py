"""``huiyi consolidate / summarize / forget / compact / migrate / lexicon-build``: upkeep of a store and its
word tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.faces.cli.options import ConfigOption, StoreOption, open_memory
from huiyi.faces.cli.printing import out, shown

__all__ = ["compact", "consolidate", "forget", "lexicon_build", "migrate", "summarize"]

# what a compaction locks, said where the operator chooses it
_COMPACT_HELP = (
    "Then rewrite the store's files so no freed byte of an erased row is left and the space goes back (PostgreSQL:"
    " VACUUM FULL, which blocks reads and writes of each table while it is copied; SQLite: VACUUM, which blocks"
    " writes while it copies the file)."
)


def lexicon_build(
    cache_dir: Annotated[Path | None, typer.Option(help="Where to keep the table (default: user cache).")] = None,
) -> None:
    """Build the embedding-neighbour table of ~20k words once (a few minutes); 联想词 use it from then on."""
    from rich.progress import Progress

    from huiyi.text.lexicon import build_neighbours

    with Progress(console=out) as bar:
        task = bar.add_task("embedding the vocabulary", total=None)
        table = build_neighbours(
            cache_dir_override=cache_dir, progress=lambda done, total: bar.update(task, completed=done, total=total)
        )
    out.print(f"{len(table)} words; table at {table.path}")


def consolidate(
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent whose memories to consolidate.")],
    person: Annotated[str | None, typer.Option("--person", "-p", help="A person's scope.")] = None,
    space: Annotated[str | None, typer.Option("--space", help="A group's scope.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")] = False,
    due: Annotated[bool, typer.Option("--due", help="Every due scope, and summaries of every due day.")] = False,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Merge entities, supersede facts, link events, update strength and forget, for one scope (or all due)."""
    with open_memory(store, config) as memory:
        if due:
            reports, summaries = memory.maintain()
            for report in reports:
                out.print(str(report), highlight=False)
            out.print(f"{len(reports)} scopes consolidated, {len(summaries)} summaries written")
            return
        out.print(str(memory.consolidate(agent=agent, person=person, space=space, dry_run=dry_run)), highlight=False)


def summarize(
    day: Annotated[str, typer.Argument(help="The day, e.g. 2024-09-01.")],
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent.")],
    person: Annotated[str | None, typer.Option("--person", "-p", help="A person's private chat.")] = None,
    space: Annotated[str | None, typer.Option("--space", help="A group.")] = None,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Write a day's summaries of a scope: daily, global, portraits, profiles and the agent's diary."""
    from datetime import date

    try:
        when = date.fromisoformat(day)
    except ValueError:
        raise InvalidInput(f"the day is a date such as 2024-09-01, not {day!r}") from None
    with open_memory(store, config) as memory:
        for item in memory.summarize(when, agent=agent, person=person, space=space):
            out.print(f"[bold]{shown(item.data.get('summary_kind'))}[/bold] {shown(item.text)}", highlight=False)


def forget(
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent whose memory to erase from.")],
    person: Annotated[str | None, typer.Option("--person", "-p", help="Forget this person entirely.")] = None,
    message: Annotated[
        list[str] | None, typer.Option("--message", "-m", help="Forget this message (repeatable).")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do it without asking.")] = False,
    compact_after: Annotated[bool, typer.Option("--compact", help=_COMPACT_HELP)] = False,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Erase for good (GDPR-style): a person's messages, memories, facts, entity, jobs and core blocks, or
    single messages and what was made from them; then purge the store's files (waited for). Prints what went."""
    if not person and not message:
        raise typer.BadParameter("name a --person or at least one --message")
    what = f"person {person!r}" if person else f"{len(message or [])} message(s)"
    if not yes and not typer.confirm(f"Erase {what} of agent {agent!r} for good?"):
        raise typer.Exit(1)
    with open_memory(store, config) as memory:
        reports = [memory.forget_person(person, agent=agent, purge="wait")] if person else []
        if message:
            reports.append(memory.forget_messages(message, agent=agent, purge="wait"))
        if compact_after:
            memory.compact()
    totals = {name: sum(r.counts()[name] for r in reports) for name in reports[0].counts()}
    out.print(", ".join(f"{name} {count}" for name, count in totals.items()), highlight=False)
    if not all(r.purged for r in reports):  # the erasure holds; its mark has the store's next open purge
        out.print("the files' purge failed and is tried again at the store's next open", highlight=False)


def compact(store: StoreOption = ".huiyi", config: ConfigOption = None) -> None:
    """Rewrite the store's files so no freed byte of an erased row is left and the space goes back, at a quiet
    time: VACUUM FULL on PostgreSQL (reads and writes of each table wait while it is copied), VACUUM on SQLite
    (writes wait while the file is copied)."""
    with open_memory(store, config) as memory:
        memory.compact()
    out.print("compacted", highlight=False)


def migrate(store: StoreOption = ".huiyi", config: ConfigOption = None) -> None:
    """Create or upgrade a store's schema (a directory, or a postgresql:// URL) and print its version."""
    from huiyi.store import open_store, store_label

    settings = Config.load(config).store
    opened = open_store(store, settings)
    try:
        out.print(f"{store_label(store, settings)}: schema version {opened.schema_version()}", highlight=False)
    finally:
        opened.close()
