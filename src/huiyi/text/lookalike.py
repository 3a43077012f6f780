"""Names that print alike: ``Аva`` with a Cyrillic А, ``ΑVA`` in Greek capitals and ``AvaI`` with a capital I
read as ``Ava`` (or ``Aval``), so a member who took such a name must not pass for whoever goes by the original.

Two names print alike when their UTS #39 confusable skeletons are equal, after NFKC (width, Kangxi radicals)
and case are folded. Unicode's table comes from ``confusable_homoglyphs``, which keeps each pair both ways
(each source beside its prototype, each prototype beside all its sources); the prototype is read back from
that shape.

    >>> name_key("Ava") == name_key("Аva") == name_key("ΑVA"), name_key("Aval") == name_key("AvaI")
    (True, True)
    >>> name_key("祈煜") == name_key("祈昱"), name_key("口口") == name_key("ロ口")
    (False, True)
"""

from __future__ import annotations

import functools
from unicodedata import normalize

__all__ = ["name_key"]

_DISPLAY_MARK = "\u200e"  # the table spells right-to-left characters between these marks, for display


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (a character or, as for ``m`` → ``rn``, a string)."""
    from confusable_homoglyphs.utils import load  # at first use: reading the table takes ~30 ms

    near = {
        key.replace(_DISPLAY_MARK, ""): [entry["c"].replace(_DISPLAY_MARK, "") for entry in entries]
        for key, entries in load("confusables.json").items()
    }
    prototypes: dict[str, str] = {}
    for char, others in near.items():
        if len(char) > 1 or len(others) > 1:
            continue  # a prototype: a source is one character with one prototype
        other = others[0]
        if len(other) > 1 or len(near.get(other, ())) > 1:
            prototypes[char] = other
        else:  # a pair alone: either may be the prototype, so both go to one
            prototypes[char] = min(char, other)
    return prototypes


def _skeleton(text: str) -> str:
    prototypes = _prototypes()
    return normalize("NFD", "".join(prototypes.get(char, char) for char in normalize("NFD", text)))


@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """What a name looks like: equal for two names that print alike, case, width and spacing aside."""
    # the skeleton before the case fold, and again after it: АВА (Cyrillic) is ABA, whose fold aba is not ава's
    return _skeleton(_skeleton(normalize("NFKC", name)).casefold()).strip()
