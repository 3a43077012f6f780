"""Members whose names print alike, told apart in the prompt: ``Alice`` and ``Аlice`` (a Cyrillic А), ``小雨``
and ``⼩雨`` (a Kangxi radical) are two people the chat model would read as one, lending one's debt or words
to the other. Ids are exact, so they are stored apart; only what the model reads needs a mark.

When two names the context shows print alike (:func:`huiyi.text.lookalike.name_key`), the plainest keeps its
name (the agent's first, then one of NFKC letters, then ASCII) and each other one is shown with a number:
``Аlice (2)``, ``⼩雨（2）``, as a member named like the agent is shown ``Аva (user)``. Names that collide
with nothing cost one cached skeleton each, and the parts are handed on untouched. So are speakers whose
names pose as the agent's turn (``祈煜：``, ``[祈煜]``: shown ``祈煜：（用户）``) or as a line of the context's own
(``前情提要：``: shown ``「前情提要：」``), see :func:`posing`.

    >>> marks(["Alice", "\\u0410lice", "bob"], agent="bot") == {"\\u0410lice": "\\u0410lice (2)"}
    True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from unicodedata import normalize

from huiyi.flows.ingest import NAMESAKE_MARKS, namesake
from huiyi.model import MemoryItem, MemoryKind, Message
from huiyi.recall.fence import label
from huiyi.recall.render import ContextParts
from huiyi.text.lookalike import bare, name_key
from huiyi.text.tokens import has_cjk

__all__ = ["marker", "marks", "names_of", "people_of", "posing", "told_apart"]

# a letter or digit of a script that parts its words with spaces: a Latin name inside "malice" is no name
_LETTER = r"[^\W\u2e80-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]"


def marks(names: Iterable[str], *, agent: str, people: Iterable[str] = ()) -> dict[str, str]:
    """Each name of ``names`` or ``people`` that prints as another and is not the plainest of them, or of
    ``people`` (speakers, participants: not a fact's literal object) that poses as the agent or as a line
    of the context's own (:func:`posing`) -> the name shown for it; others are left out (an empty dict:
    nothing to mark)."""
    people = [name for name in dict.fromkeys(people) if name]
    alike: dict[str, list[str]] = {}
    for name in dict.fromkeys([*names, *people]):
        if name:
            alike.setdefault(name_key(name), []).append(name)
    shown = _numbered(alike, agent)
    for name in people:
        if (posed := posing(shown.get(name, name), agent, name)) is not None:
            shown[name] = posed
    return shown


@functools.lru_cache(maxsize=4096)
def posing(shown: str, agent: str, name: str) -> str | None:
    """How a member's name ``name`` (shown so far as ``shown``) is to be shown if as a turn's label it
    would pass for the agent's turn or for a line of the context's own, else None. The agent's name
    with tags or marks around it (``祈煜：``, ``祈煜 (bot)``, ``[祈煜]``) is marked a user's, as a member
    named as the agent is stored (``祈煜：（用户）``); a name that reads as a header or a role is quoted
    (``「前情提要：」``, :func:`huiyi.recall.fence.label`). The stored name stays as it is."""
    if name == agent:
        return None
    key = name_key(name)
    if name_key(bare(name)) == name_key(agent) and not any(key.endswith(name_key(m)) for m in NAMESAKE_MARKS):
        return namesake(shown)
    fenced = label(shown)
    return fenced if fenced != shown else None


def _numbered(alike: dict[str, list[str]], agent: str) -> dict[str, str]:
    """Each name of a group that prints alike but the plainest -> it with a number."""
    if all(len(group) == 1 for group in alike.values()):
        return {}
    taken = set(alike)
    shown: dict[str, str] = {}
    for group in alike.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda name: (name != agent, normalize("NFKC", name) != name, not name.isascii(), name))
        number = 2
        for name in group[1:]:
            while name_key(marked := _marked(name, number)) in taken:  # a member literally named "Alice (2)"
                number += 1
            taken.add(name_key(marked))
            shown[name] = marked
            number += 1
    return shown


def _marked(name: str, number: int) -> str:
    name = name.strip()
    return f"{name}（{number}）" if has_cjk(name) else f"{name} ({number})"


def names_of(item: MemoryItem) -> list[str]:
    """The people a memory shows: its participants and, for a fact, its subject and object."""
    if item.kind is not MemoryKind.FACT:
        return list(item.participants)
    return [*item.participants, *(str(item.data.get(end) or "") for end in ("subject", "object"))]


def people_of(item: MemoryItem) -> list[str]:
    """The people a memory shows as people: its participants, a fact's subject and who told it."""
    told = item.data.get("told_by") if item.kind is MemoryKind.FACT else None
    subject = [str(item.data.get("subject") or "")] if item.kind is MemoryKind.FACT else []
    return [*item.participants, *subject, *(n for n in told or [] if isinstance(n, str))]


def marker(names: Iterable[str], *, agent: str, people: Iterable[str] = ()) -> Callable[[str], str] | None:
    """What marks each name of ``names`` and ``people`` in a text, as :func:`told_apart` does; None when
    none is marked, so a text with no look-alikes or posers is handed on as it is."""
    shown = marks(names, agent=agent, people=people)
    return _swapper(shown) if shown else None


def told_apart(parts: ContextParts) -> ContextParts:
    """``parts`` with every name that prints as another one the context shows replaced by its mark: in
    the speakers and texts of working memory and in the texts, participants and fact ends of memories."""
    items = [*parts.overview, *parts.facts, *parts.events]
    people = [*(m.speaker for m in parts.working), *(n for item in items for n in people_of(item))]
    shown = marks([parts.agent, *(n for item in items for n in names_of(item))], agent=parts.agent, people=people)
    if not shown:
        return parts
    swap = _swapper(shown)

    def message(m: Message) -> Message:
        return m.model_copy(update={"speaker": shown.get(m.speaker, m.speaker), "text": swap(m.text)})

    def item(found: MemoryItem) -> MemoryItem:
        update: dict[str, object] = {
            "text": swap(found.text),
            "insight": swap(found.insight),
            "participants": [shown.get(n, n) for n in found.participants],
        }
        if found.kind is MemoryKind.FACT:
            ends: dict[str, object] = {
                end: shown.get(value, swap(value))
                for end in ("subject", "object")
                if isinstance(value := found.data.get(end), str)
            }
            if isinstance(told := found.data.get("told_by"), list):
                ends["told_by"] = [shown.get(n, n) if isinstance(n, str) else n for n in told]
            update["data"] = {**found.data, **ends}
        return found.model_copy(update=update)

    return replace(
        parts,
        working=[message(m) for m in parts.working],
        overview=[item(found) for found in parts.overview],
        facts=[item(found) for found in parts.facts],
        events=[item(found) for found in parts.events],
    )


def _swapper(shown: Mapping[str, str]) -> Callable[[str], str]:
    alternatives = []
    for name in sorted(shown, key=len, reverse=True):  # the longest first: "Аlice" before "Аl"
        before = f"(?<!{_LETTER})" if re.match(_LETTER, name) else ""
        after = f"(?!{_LETTER})" if re.match(_LETTER, name[-1]) else ""
        alternatives.append(f"{before}{re.escape(name)}{after}")
    pattern = re.compile("|".join(alternatives))

    def swap(text: str) -> str:
        return pattern.sub(lambda found: shown[found.group(0)], text) if text else text

    return swap
