"""``huiyi import / export / inspect / recall / tools / mcp``: data in and out of a store, and a look inside.

Thin like every face: each command reads its options, calls :class:`~huiyi.memory.Memory` and prints.

File formats ``import`` reads:

- the probe format of the evaluation README (one JSON object with ``cases``): each case's messages and
  memories (its probes are questions, not data, and are left out). A space with one user speaker is a
  private chat with that person, any other a group. When ids repeat across cases they are prefixed
  with the case id, since a store keeps one message per id.
- JSON lines, one record a line. A message is ``{"agent", "person" | "space", "speaker", "role",
  "text", "time", "id"}`` (``agent``, ``person`` and ``space`` may come from the options instead).
  ``export`` writes the same message lines with ``"type": "message"``, plus ``"type": "memory"`` lines
  (one memory of the scope: kind, text, time, importance, keywords, sources, data…), a ``"type":
  "person"`` line with the person's name and aliases, and an ``"type": "export"`` header.

Message chunks are not exported: ``import`` rebuilds them from the messages.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TextIO

import typer
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from huiyi import __version__
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.evaluation.probes import ProbeSet
from huiyi.memory import Memory
from huiyi.model import JobState, MemoryItem, MemoryKind, Message, Person, Role

__all__ = ["register"]

out = Console(soft_wrap=True)
err = Console(stderr=True)

StoreOption = Annotated[Path, typer.Option("--store", "-s", help="Store directory (created if missing).")]
ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="A TOML config file.")]
AgentOption = Annotated[str, typer.Option("--agent", "-a", help="The character whose memory this is.")]
PersonOption = Annotated[str | None, typer.Option("--person", "-p", help="A person: their private chat and memories.")]
SpaceOption = Annotated[str | None, typer.Option("--space", help="A group space: its chat and memories.")]
KindOption = Annotated[
    list[MemoryKind] | None, typer.Option("--kind", "-k", help="Only memories of this kind (repeatable).")
]

PROGRESS_FROM = 200  # records; smaller imports finish before a bar is worth drawing
PAGE = 500  # memories read per call while exporting


def register(app: typer.Typer) -> None:
    """Add this module's commands to the ``huiyi`` app."""
    app.command("import")(import_command)
    app.command("export")(export_command)
    app.command("inspect")(inspect_command)
    app.command("recall")(recall_command)
    app.command("tools")(tools_command)
    app.command("mcp")(mcp_command)


def _open(store: Path, config: Path | None, **overrides: Any) -> Memory:
    return Memory(store, config=Config.load(config, **overrides))


def _scope_label(person: str | None, space: str | None) -> str:
    return f"space:{space}" if space else f"person:{person}" if person else "official"


# reading files ------------------------------------------------------------------------------------------


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agent: str | None = None
    person: str | None = None
    space: str | None = None


class MessageLine(_Line):
    type: Literal["message"] = "message"
    text: str
    role: Role = "user"
    speaker: str | None = None
    time: datetime | None = None
    id: str | None = None


class MemoryLine(_Line):
    type: Literal["memory"]
    text: str
    kind: MemoryKind = MemoryKind.NOTE
    time: datetime | None = None
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    keywords: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    place: str = ""
    insight: str = ""
    participants: list[str] = Field(default_factory=list)


class PersonLine(_Line):
    type: Literal["person"]
    id: str
    name: str = ""
    aliases: list[str] = Field(default_factory=list)


_LINE_MODELS: dict[str, type[_Line]] = {"message": MessageLine, "memory": MemoryLine, "person": PersonLine}


@dataclass
class Batch:
    """Consecutive messages of one chat, added in one call."""

    agent: str
    person: str | None
    space: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Plan:
    """What a file holds, checked before anything is written."""

    batches: list[Batch] = field(default_factory=list)
    memories: list[tuple[str, MemoryLine]] = field(default_factory=list)  # (agent, line)
    persons: list[tuple[str, Person]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    export: bool = False

    @property
    def size(self) -> int:
        return sum(len(b.messages) for b in self.batches) + len(self.memories)

    def add_message(self, agent: str, person: str | None, space: str | None, message: dict[str, Any]) -> None:
        last = self.batches[-1] if self.batches else None
        if last is None or (last.agent, last.person, last.space) != (agent, person, space):
            last = Batch(agent, person, space)
            self.batches.append(last)
        last.messages.append(message)


def _message_dict(line: MessageLine) -> dict[str, Any]:
    return {"text": line.text, "role": line.role, "speaker": line.speaker, "time": line.time, "id": line.id}


def _read_lines(text: str, agent: str | None, person: str | None, space: str | None) -> Plan:
    plan = Plan()
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            if not isinstance(record, dict):
                raise InvalidInput("a line must be a JSON object")
            kind = record.get("type", "message")
            if kind == "export":
                plan.export = True
                continue
            model = _LINE_MODELS.get(kind, MessageLine)
            line = model.model_validate(record)
        except (ValueError, InvalidInput) as exc:  # JSONDecodeError and ValidationError are ValueErrors
            raise InvalidInput(f"line {number}: {_reason(exc)}") from exc
        who = line.agent or agent
        if not who:
            raise InvalidInput(f"line {number}: no agent; give it in the line or with --agent")
        if isinstance(line, PersonLine):
            plan.persons.append((who, Person(id=line.id, name=line.name, aliases=line.aliases)))
        elif isinstance(line, MemoryLine):
            plan.memories.append((who, line.model_copy(update={"agent": who})))
        elif isinstance(line, MessageLine):
            chat_person, chat_space = (line.person, line.space) if line.person or line.space else (person, space)
            if not chat_person and not chat_space:
                raise InvalidInput(f"line {number}: no person or space; give one in the line or with --person/--space")
            plan.add_message(who, None if chat_space else chat_person, chat_space, _message_dict(line))
    return plan


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())
    return exc.message if isinstance(exc, InvalidInput) else str(exc)


def _read_probes(probes: ProbeSet, cases: list[str]) -> Plan:
    chosen = [case for case in probes.cases if not cases or case.id in cases]
    if cases and (missing := set(cases) - {case.id for case in chosen}):
        raise InvalidInput(f"no case {', '.join(sorted(missing))} in {probes.name}")
    ids = [m.id for case in chosen for m in case.messages] + [m.id for case in chosen for m in case.memories]
    prefixed = len(set(ids)) != len(ids)
    plan = Plan()
    if prefixed:
        plan.notes.append("ids repeat across cases, so each is prefixed with its case id (case:id)")
    for case in chosen:

        def own(value: str, case_id: str = case.id) -> str:
            return f"{case_id}:{value}" if prefixed else value

        speakers: dict[str, set[str]] = {}
        for message in case.messages:
            people = speakers.setdefault(message.space, set())
            if message.role == "user":
                people.add(message.speaker)
        private = {space: next(iter(people)) for space, people in speakers.items() if len(people) == 1}
        for message in case.messages:
            person = private.get(message.space)
            plan.add_message(
                case.agent,
                person,
                None if person else message.space,
                {
                    "text": message.text,
                    "role": message.role,
                    "speaker": message.speaker,
                    "time": message.time,
                    "id": own(message.id),
                },
            )
        for memory in case.memories:
            kind = memory.kind if memory.kind in {k.value for k in MemoryKind} else MemoryKind.NOTE.value
            line = MemoryLine(
                type="memory",
                agent=case.agent,
                person=memory.person,
                space=memory.space,
                text=memory.text,
                kind=MemoryKind(kind),
                time=memory.time,
                sources=[own(memory.id)],
                data=memory.data,
            )
            plan.memories.append((case.agent, line))
    skipped = sum(len(case.probes) for case in chosen)
    if skipped:
        plan.notes.append(f"{skipped} probes are questions, not data: left out (huiyi eval probes scores them)")
    return plan


def read_file(path: Path, agent: str | None, person: str | None, space: str | None, cases: list[str]) -> Plan:
    """A file to import, as a checked plan; raises ``InvalidInput`` naming the line at fault."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and "cases" in whole:
        try:
            return _read_probes(ProbeSet.model_validate(whole), cases)
        except ValidationError as exc:
            raise InvalidInput(f"{path.name} is not a valid probe file: {_reason(exc)}") from exc
    if cases:
        raise InvalidInput("--case applies to probe files only")
    return _read_lines(text, agent, person, space)


# import -------------------------------------------------------------------------------------------------


@dataclass
class Counts:
    stored: int = 0
    skipped: int = 0
    memories: int = 0
    persons: int = 0
    chunks_skipped: int = 0


def ingest(memory: Memory, plan: Plan, advance: Callable[[int], None] = lambda n: None) -> Counts:
    """Write a plan: persons, then messages in file order, then memories."""
    counts = Counts()
    for agent, person in plan.persons:
        memory.set_person(person, agent=agent)
        counts.persons += 1
    limit = memory.config.ingest.max_batch
    for batch in plan.batches:
        for start in range(0, len(batch.messages), limit):
            part = batch.messages[start : start + limit]
            # an export already holds what was extracted from its messages: never extract them twice
            stored = memory.add(
                part,
                agent=batch.agent,
                person=batch.person,
                space=batch.space,
                progress=advance,
                extract=not plan.export,
            )
            counts.stored += len(stored)
            counts.skipped += len(part) - len(stored)
            advance(len(part) - len(stored))  # skipped messages are not indexed, so not reported by add
    for agent, line in plan.memories:
        if line.kind is MemoryKind.CHUNK:  # chunks are rebuilt from their messages
            counts.chunks_skipped += 1
        else:
            memory.remember(
                line.text,
                agent=agent,
                person=None if line.space else line.person,
                space=line.space,
                kind=line.kind,
                time=line.time,
                importance=line.importance,
                keywords=line.keywords,
                sources=line.sources,
                data=line.data or None,
                id=line.id,
                place=line.place,
                insight=line.insight,
                participants=line.participants,
            )
            counts.memories += 1
        advance(1)
    return counts


def import_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A probe file (JSON) or JSON lines.")],
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
    agent: Annotated[str | None, typer.Option("--agent", "-a", help="Agent of lines that name none.")] = None,
    person: Annotated[str | None, typer.Option("--person", "-p", help="Person of lines that name none.")] = None,
    space: Annotated[str | None, typer.Option("--space", help="Group space of lines that name none.")] = None,
    case: Annotated[list[str] | None, typer.Option("--case", help="Probe files: only this case (repeatable).")] = None,
    extract: Annotated[
        bool, typer.Option("--extract/--no-extract", help="Run the extraction jobs the messages queue before exiting.")
    ] = True,
) -> None:
    """Import messages and memories: a probe-format file, JSON lines of messages, or an `export`.

    Messages are idempotent by id (a second import of a file skips what is stored). The whole file is
    checked before anything is written.
    """
    plan = read_file(file, agent, person, space, case or [])
    overrides: dict[str, Any] = {} if extract else {"worker": {"enabled": False}}
    with (
        _open(store, config, **overrides) as memory,
        Progress(
            TextColumn("importing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=plan.size < PROGRESS_FROM,
        ) as bar,
    ):
        task = bar.add_task("import", total=plan.size)
        counts = ingest(memory, plan, lambda n: bar.advance(task, n))
        extracted = memory.run_jobs() if extract else 0
        queued = 0 if extract else len(memory.jobs(states=[JobState.PENDING]))
    for note in plan.notes:
        err.print(f"[dim]note: {note}[/dim]", highlight=False)
    parts = [f"{counts.stored} messages stored", f"{counts.skipped} already there", f"{counts.memories} memories"]
    if counts.persons:
        parts.append(f"{counts.persons} person" + ("s" if counts.persons > 1 else ""))
    if counts.chunks_skipped:
        parts.append(f"{counts.chunks_skipped} chunks left to be rebuilt from their messages")
    parts.append(f"{extracted} extraction jobs run" if extract else f"{queued} extraction jobs left queued")
    out.print(f"imported {file.name} into {store}: " + ", ".join(parts), highlight=False)


# export -------------------------------------------------------------------------------------------------


def _scope_fields(agent: str, person: str | None, space: str | None) -> dict[str, str]:
    fields = {"agent": agent}
    if space:
        fields["space"] = space
    elif person:
        fields["person"] = person
    return fields


def _all_memories(memory: Memory, agent: str, person: str | None, space: str | None) -> Iterator[MemoryItem]:
    offset = 0
    while True:
        page = memory.memories(agent=agent, person=person, space=space, limit=PAGE, offset=offset)
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE


def export_lines(memory: Memory, agent: str, person: str | None, space: str | None) -> Iterator[dict[str, Any]]:
    """A scope's export, line by line: header, person, messages (in log order), then memories (oldest first)."""
    if person and space:
        raise InvalidInput("export one scope: a person or a space, not both")
    scope = _scope_fields(agent, person, space)
    yield {"type": "export", "version": 1, "huiyi": __version__, "scope": _scope_label(person, space), **scope}
    if person and not space and (known := memory.get_person(person, agent=agent)) is not None:
        yield {"type": "person", "agent": agent, "id": known.id, "name": known.name, "aliases": known.aliases}
    items = list(_all_memories(memory, agent, person, space))
    anchors = [item.sources[0] for item in items if item.kind is MemoryKind.CHUNK and item.sources]
    messages: list[Message] = []
    for start in range(0, len(anchors), PAGE):
        messages.extend(memory.messages(anchors[start : start + PAGE], agent=agent))
    for message in sorted({m.id: m for m in messages}.values(), key=lambda m: m.seq):  # the log's order
        yield {
            "type": "message",
            **scope,
            "speaker": message.speaker,
            "role": message.role,
            "text": message.text,
            "time": message.time.isoformat(),
            "id": message.id,
        }
    for item in reversed(items):  # oldest first, as they were made
        if item.kind is not MemoryKind.CHUNK:
            yield {"type": "memory", **scope, **item.model_dump(mode="json", exclude={"scope"})}


def export_command(
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
) -> None:
    """Export one scope (a person's, a space's, or with neither the official one) as JSON lines.

    Messages and memories; `huiyi import` reads the file back.
    """
    with _open(store, config, worker={"enabled": False}) as memory:
        lines = export_lines(memory, agent, person, space)
        if output is None:
            count = _write(lines, sys.stdout)
        else:
            with output.open("w", encoding="utf-8") as handle:
                count = _write(lines, handle)
            err.print(f"exported {count} lines of {agent} {_scope_label(person, space)} to {output}", highlight=False)


def _write(lines: Iterator[dict[str, Any]], handle: TextIO) -> int:
    count = 0
    for line in lines:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        count += 1
    return count


# inspect and recall -------------------------------------------------------------------------------------


def _short(text: str, width: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def inspect_command(
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    kind: KindOption = None,
    page: Annotated[int, typer.Option("--page", min=1, help="Which page, from 1.")] = 1,
    page_size: Annotated[int, typer.Option("--page-size", "-n", min=1, max=500, help="Rows a page.")] = 20,
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
) -> None:
    """List one scope's memories, newest first, as a table, a page at a time."""
    offset = (page - 1) * page_size
    with _open(store, config, worker={"enabled": False}) as memory:
        items = memory.memories(agent=agent, person=person, space=space, kinds=kind, limit=page_size + 1, offset=offset)
    more, items = len(items) > page_size, items[:page_size]
    label = _scope_label(person, space)
    if not items:
        out.print(f"{agent} {label}: no memories" + (f" on page {page}" if page > 1 else ""), highlight=False)
        return
    table = Table(title=f"{agent} · {label} · page {page} (rows {offset + 1}–{offset + len(items)})")
    table.add_column("#", justify="right", no_wrap=True)
    for name in ("id", "kind", "time"):
        table.add_column(name, no_wrap=True)
    for name in ("imp", "str", "seen"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("text", overflow="fold", ratio=1)
    for row, item in enumerate(items, start=offset + 1):
        table.add_row(
            str(row),
            item.id,
            item.kind.value,
            item.time.strftime("%Y-%m-%d %H:%M") if item.time else "—",
            f"{item.importance:.2f}",
            f"{item.strength:.2f}",
            str(item.access_count),
            _short(item.text),
        )
    out.print(table)
    if more:
        out.print(f"[dim]more: --page {page + 1}[/dim]", highlight=False)


def recall_command(
    query: Annotated[str, typer.Argument(help="What to recall, e.g. the person's message.")],
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    kind: KindOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many memories.")] = 10,
    threshold: Annotated[float | None, typer.Option(help="Drop memories scoring below this (0–1).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the recall result as JSON.")] = False,
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
) -> None:
    """Recall for a query as the chat would: each memory with its fused and per-route scores, and timings."""
    from huiyi.faces.cli import print_recall  # the app's own printer (imported late: cli imports this module)

    with _open(store, config, worker={"enabled": False}) as memory:
        result = memory.recall(
            query, agent=agent, person=person, space=space, limit=limit, score_threshold=threshold, kinds=kind
        )
    if as_json:
        out.print_json(result.model_dump_json())
    else:
        print_recall(result)


# tools and the MCP server -------------------------------------------------------------------------------


def tools_command(
    name: Annotated[list[str] | None, typer.Option("--name", help="Only this tool (repeatable).")] = None,
) -> None:
    """Print the LLM tool schemas (OpenAI tools format) as JSON."""
    from huiyi.faces.tools import tool_schemas

    typer.echo(json.dumps(tool_schemas(name), ensure_ascii=False, indent=2))


def mcp_command(
    agent: AgentOption,
    person: PersonOption = None,
    space: SpaceOption = None,
    transport: Annotated[
        str, typer.Option("--transport", "-t", help="stdio (for a client that starts it) or http (streamable HTTP).")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="http: interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: port.")] = 8766,
    store: StoreOption = Path(".huiyi"),
    config: ConfigOption = None,
) -> None:
    """Serve the memory tools and the context resource over MCP, for one agent and person (or space).

    Over stdio nothing but the protocol is written to stdout. Over http the endpoint is
    http://HOST:PORT/mcp; it has no authentication, so keep it on 127.0.0.1.
    """
    import asyncio

    from huiyi.faces.mcp_server import serve

    if transport not in ("stdio", "http"):
        raise typer.BadParameter("transport must be stdio or http", param_hint="--transport")
    settings = Config.load(config)
    if transport == "http":
        if host not in ("127.0.0.1", "localhost", "::1"):
            err.print(f"[yellow]warning:[/yellow] {host} is not loopback and MCP has no authentication here")
        err.print(f"huiyi MCP for {agent} {_scope_label(person, space)} on http://{host}:{port}/mcp", highlight=False)

    async def run() -> None:
        await serve(
            store,
            agent=agent,
            person=person,
            space=space,
            config=settings,
            transport="http" if transport == "http" else "stdio",
            host=host,
            port=port,
        )

    asyncio.run(run())
