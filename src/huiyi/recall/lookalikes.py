"""Members whose names print alike, told apart in the prompt: ``Alice`` and ``Аlice`` (a Cyrillic А), ``小雨``
and ``⼩雨`` (a Kangxi radical) are two people the chat model would read as one, lending one's debt or words
to the other. Ids are exact, so they are stored apart; only what the model reads needs a mark.

When two names the context shows print alike (:func:`huiyi.text.lookalike.name_key`), the plainest keeps its
name (the agent's first, then one of NFKC letters, then ASCII) and each other one is shown with a number:
``Аlice (2)``, ``⼩雨（2）``, as a member named like the agent is shown ``Аva (user)``. Names that collide
with nothing cost one cached skeleton each, and the parts are handed on untouched.

    >>> marks(["Alice", "\\u0410lice", "bob"], agent="bot") == {"\\u0410lice": "\\u0410lice (2)"}
    True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from unicodedata import normalize

from huiyi.model import MemoryItem, MemoryKind, Message
from huiyi.recall.render import ContextParts
from huiyi.text.lookalike import name_key
from huiyi.text.tokens import has_cjk

__all__ = ["marker", "marks", "names_of", "told_apart"]

# a letter or digit of a script that parts its words with spaces: a Latin name inside "malice" is no name
_LETTER = r"[^\W\u2e80-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]"


def marks(names: Iterable[str], *, agent: str) -> dict[str, str]:
    """Each name that prints as another of ``names`` and is not the plainest of them -> the name shown
    for it; names that collide with none are left out (an empty dict: nothing to mark)."""
    alike: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        if name:
            alike.setdefault(name_key(name), []).append(name)
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


def marker(names: Iterable[str], *, agent: str) -> Callable[[str], str] | None:
    """What marks each name of ``names`` that prints as another in a text, as :func:`told_apart` does;
    None when none collide, so a text with no look-alikes is handed on as it is."""
    shown = marks(names, agent=agent)
    return _swapper(shown) if shown else None


def told_apart(parts: ContextParts) -> ContextParts:
    """``parts`` with every name that prints as another one the context shows replaced by its mark: in
    the speakers and texts of working memory and in the texts, participants and fact ends of memories."""
    items = [*parts.overview, *parts.facts, *parts.events]
    names = [parts.agent, *(m.speaker for m in parts.working), *(n for item in items for n in names_of(item))]
    shown = marks(names, agent=parts.agent)
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
            ends = {
                end: shown.get(value, swap(value))
                for end in ("subject", "object")
                if isinstance(value := found.data.get(end), str)
            }
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
