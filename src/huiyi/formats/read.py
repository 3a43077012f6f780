"""Reading an import file (a probe file or JSON lines) into a checked :class:`~huiyi.formats.plan.Plan`."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from huiyi.errors import InvalidInput, said
from huiyi.formats.plan import (
    LINE_MODELS,
    BlockLine,
    EntityLine,
    LinkLine,
    MemoryLine,
    MergeLine,
    MessageLine,
    PersonLine,
    Plan,
    WorkingLine,
)
from huiyi.formats.probes import ProbeSet
from huiyi.model import MemoryKind, Person, Scope

__all__ = ["EXPORT_VERSION", "file_lines", "file_text", "read_file", "read_lines", "read_text"]

# 2: memories carry their state (strength, access count, feedback, when written), chunks their state
# alone, person blocks and where each chat's working memory starts; version 1 files read as before
# 3: a link's chunk end also names the message the chunk is anchored at (an older reader would refuse it)
EXPORT_VERSION = 3

# a line ends at \n (\r\n, \r), which no JSON text holds unescaped; never at U+2028, U+2029 or U+0085, where
# str.splitlines also breaks, which json.dumps (so huiyi export) writes inside a text as they are, and which a
# chat app's export keeps inside a message (a phone keyboard's line separator)
_LINE_END = re.compile(r"\r\n|\r|\n")


def file_lines(text: str) -> list[str]:
    """A file's lines, the n-th of them on the file's line n."""
    return _LINE_END.split(text)


def _message_dict(line: MessageLine, line_id: str) -> dict[str, Any]:
    return {"text": line.text, "role": line.role, "speaker": line.speaker, "time": line.time, "id": line_id}


def _line_id(name: str, chat: tuple[str, str | None, str | None], line: MessageLine, seen: Counter[str]) -> str:
    """The id of a line that gives none: from the file's name, its chat and the line itself (and how many
    identical lines came before it there), so importing the file again, or after an interruption, adds
    nothing twice (a random id added every line again)."""
    key = "\x1f".join([*(part or "" for part in chat), line.time.isoformat() if line.time else "", line.speaker or ""])
    key += f"\x1f{line.role}\x1f{line.text}"
    seen[key] += 1
    digest = hashlib.blake2b(f"{name}\x1f{key}\x1f{seen[key]}".encode(), digest_size=10).hexdigest()
    return f"{Path(name).stem[:40]}:{digest}"


def read_lines(
    lines: Iterable[tuple[int, str]], agent: str | None, person: str | None, space: str | None, name: str
) -> Plan:
    """JSON lines, each with the number of the file line an error names, as a checked plan (see :func:`read_text`)."""
    plan = Plan()
    seen: Counter[str] = Counter()
    for number, raw in lines:
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            if not isinstance(record, dict):
                raise InvalidInput("a line must be a JSON object")
            kind = record.get("type", "message")
            if kind == "export":
                version = record.get("version", 1)
                if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= EXPORT_VERSION:
                    raise InvalidInput(
                        f"export version {version!r} is not one this huiyi reads (1 to {EXPORT_VERSION}); "
                        "import it with the huiyi that wrote it, or a newer one"
                    )
                plan.export = True
                continue
            model = LINE_MODELS.get(kind, MessageLine)
            line = model.model_validate(record)
        except (ValueError, InvalidInput, RecursionError) as exc:  # JSONDecodeError, ValidationError are ValueErrors
            raise InvalidInput(f"line {number}: {_reason(exc)}") from exc
        who = line.agent or agent
        if not who:
            raise InvalidInput(f"line {number}: no agent; give it in the line or with --agent")
        if isinstance(line, PersonLine):
            plan.persons.append(
                (who, Person(id=line.id, name=line.name, aliases=line.aliases, platform_ids=line.platform_ids))
            )
        elif isinstance(line, EntityLine):
            plan.entities.append((who, line.model_copy(update={"agent": who})))
        elif isinstance(line, LinkLine):
            plan.links.append((who, line))
        elif isinstance(line, MergeLine):
            plan.merges.append((who, line))
        elif isinstance(line, BlockLine):
            plan.blocks.append((who, line))
        elif isinstance(line, WorkingLine):
            if not line.person and not line.space:
                raise InvalidInput(f"line {number}: a working line names a person or a space")
            tag = Scope.of_chat(who, None if line.space else line.person, line.space).tag
            if plan.working.setdefault((who, tag), line.first) != line.first:
                raise InvalidInput(f"line {number}: a second working line for {tag} of agent {who!r}")
        elif isinstance(line, MemoryLine):
            plan.memories.append((who, line.model_copy(update={"agent": who})))
        elif isinstance(line, MessageLine):
            chat_person, chat_space = (line.person, line.space) if line.person or line.space else (person, space)
            if not chat_person and not chat_space:
                raise InvalidInput(f"line {number}: no person or space; give one in the line or with --person/--space")
            chat = (who, None if chat_space else chat_person, chat_space)
            plan.add_message(*chat, _message_dict(line, line.id or _line_id(name, chat, line, seen)), number)
    return plan


def _reason(exc: Exception) -> str:
    return exc.message if isinstance(exc, InvalidInput) else said(exc)


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


def read_text(text: str, name: str, agent: str | None, person: str | None, space: str | None, cases: list[str]) -> Plan:
    """A file's text (called ``name`` in errors) as a checked plan; raises ``InvalidInput`` naming the line at fault.

    ``agent``, ``person`` and ``space`` stand in for lines that name none; ``cases`` picks probe-file cases.
    """
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:  # not one JSON document (JSON lines), or one cut short
        ended = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        if ended and "\n" in text.strip():  # read to its end and still open: a JSON file, not JSON lines
            said = exc.msg.removesuffix(" starting at").lower()
            raise InvalidInput(f"{name} ends before its JSON does (cut short?): {said} at line {exc.lineno}") from exc
        whole = None
    except (ValueError, RecursionError):  # one no reader takes
        whole = None
    if isinstance(whole, dict) and "cases" in whole:
        try:
            return _read_probes(ProbeSet.model_validate(whole), cases)
        except ValidationError as exc:
            raise InvalidInput(f"{name} is not a valid probe file: {_reason(exc)}") from exc
    if cases:
        raise InvalidInput("--case applies to probe files only")
    return read_lines(enumerate(file_lines(text), start=1), agent, person, space, name)


def file_text(path: Path) -> str:
    """A file's text: UTF-8 (a BOM allowed), or UTF-16 with its BOM (as Windows tools save it).

    Anything else is refused in words: a GBK file read as UTF-8 was a traceback, and guessed as GBK a
    damaged UTF-8 file would be imported as nonsense.
    """
    data = path.read_bytes()
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{path.name} is not {encoding.removesuffix('-sig').upper()} text (byte {exc.start} cannot be read); "
            "save it as UTF-8 first (a GBK chat export: iconv -f GB18030 -t UTF-8)"
        ) from None


def read_file(path: Path, agent: str | None, person: str | None, space: str | None, cases: list[str]) -> Plan:
    """A file to import, as a checked plan (see :func:`read_text`)."""
    return read_text(file_text(path), path.name, agent, person, space, cases)
