"""Turns shown under their speakers' names: a member the bot keys by QQ number reads as 小林, not ``10001``.

A group bot passes a platform id as ``speaker`` and records the member's name with ``set_person``. The
folds file the member's facts and events under that name (``小林说：…``,
:func:`huiyi.flows.extract.rules.roster.filed_as`); the turns the chat model reads (working memory, a
recalled chunk's lines, the search tools' results) go under the same name, else the model can neither tell
who ``10001`` is nor connect them to 小林. Names come from the agent's persons index recall keeps
(:mod:`huiyi.recall.people`), never a read per line. Two ids that would show one name (two members both
called 小林, or 小林 and a member whose id is 小林) are shown with their ids, ``小林（10004）``, but for one
whose id is that name; one named as the agent is marked a user's (``bot (user)``), as such a speaker
is stored. The agent's own turns, a speaker with no record and one whose id reads as a name
are shown as they are; what is stored is left as it is.

    >>> shown({"10001": "小林", "10004": "小林", "10002": "阿杰"}, ["10001", "10002", "u9", "bot"], agent="bot")
    {'10001': '小林', '10002': '阿杰'}
    >>> shown({"10001": "小林", "10004": "小林"}, ["10001", "10004", "bot"], agent="bot")
    {'10001': '小林（10001）', '10004': '小林（10004）'}
    >>> relabeled("10001: 笑死\\nbot: 哈哈\\n10001: 真的", ["10001", "bot"], {"10001": "小林"})
    '小林: 笑死\\nbot: 哈哈\\n小林: 真的'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from huiyi.flows.ingest import user_speaker
from huiyi.model import MemoryItem, MemoryKind
from huiyi.recall.render import ContextParts
from huiyi.text.tokens import has_cjk

__all__ = ["named", "relabeled", "renamed_chunk", "shown"]


def shown(filed: Mapping[str, str], speakers: Iterable[str], *, agent: str) -> dict[str, str]:
    """Each of ``speakers`` (ids of the turns one context or one result shows) that is shown by another
    name than its id -> that name: its ``filed`` name (``People.filed``), with its id where another of
    them would show the same; empty when none is."""
    ids = [speaker for speaker in dict.fromkeys(speakers) if speaker and speaker != agent]
    # a member named as the agent is shown as one stored so would be (bot (user)): only the agent's turns go by it
    names = {speaker: user_speaker(filed[speaker], agent) if speaker in filed else speaker for speaker in ids}
    if all(name == speaker for speaker, name in names.items()):
        return {}
    sharing: dict[str, int] = {}
    for name in names.values():
        sharing[name] = sharing.get(name, 0) + 1
    return {
        speaker: name if sharing[name] == 1 else _with_id(name, speaker)
        for speaker, name in names.items()
        if name != speaker
    }


def _with_id(name: str, speaker: str) -> str:
    return f"{name}（{speaker}）" if has_cjk(name) else f"{name} ({speaker})"


def relabeled(text: str, participants: Sequence[str], names: Mapping[str, str]) -> str:
    """A chunk's text (a turn a line, ``10001: 笑死``) with the lines of its ``participants`` that ``names``
    names under those names; a line that starts with no participant's label is another line of a turn."""
    renamed = sorted((p for p in participants if p in names), key=len, reverse=True)  # "10001" before "1000"
    if not renamed:
        return text
    lines = text.split("\n")
    for at, line in enumerate(lines):
        speaker = next((p for p in renamed if line.startswith(f"{p}: ")), None)
        if speaker is not None:
            lines[at] = f"{names[speaker]}: {line[len(speaker) + 2 :]}"
    return "\n".join(lines)


def renamed_chunk(item: MemoryItem, names: Mapping[str, str]) -> MemoryItem:
    """A chunk under its speakers' names: its lines and its participants."""
    if item.kind is not MemoryKind.CHUNK or not any(p in names for p in item.participants):
        return item
    return item.model_copy(
        update={
            "text": relabeled(item.text, item.participants, names),
            "participants": [names.get(p, p) for p in item.participants],
        }
    )


def named(parts: ContextParts, filed: Mapping[str, str]) -> ContextParts:
    """``parts`` with the people's turns, in working memory and in recalled chunks, under the names
    ``filed`` gives their ids (:func:`shown`); the agent's own turns as they are."""
    if not filed:
        return parts
    chunks = [item for item in parts.events if item.kind is MemoryKind.CHUNK]
    speakers = [
        *(m.speaker for m in parts.working if m.role == "user"),
        *(p for item in chunks for p in item.participants),
    ]
    names = shown(filed, speakers, agent=parts.agent)
    if not names:
        return parts
    return replace(
        parts,
        working=[
            m.model_copy(update={"speaker": names[m.speaker]}) if m.role == "user" and m.speaker in names else m
            for m in parts.working
        ],
        events=[renamed_chunk(item, names) for item in parts.events],
    )
