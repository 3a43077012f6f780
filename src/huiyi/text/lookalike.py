"""Names that print alike: ``Аva`` with a Cyrillic А, ``ΑVA`` in Greek capitals and ``AvaI`` with a capital I
read as ``Ava`` (or ``Aval``), so a member who took such a name must not pass for whoever goes by the original.

Two names print alike when their UTS #39 confusable skeletons are equal, after NFKC (width, Kangxi radicals)
and case are folded. Unicode's table comes from ``confusable_homoglyphs`` through ``data/confusables.json``
(see ``scripts/confusables_table.py``).

    >>> name_key("Ava") == name_key("Аva") == name_key("ΑVA"), name_key("Aval") == name_key("AvaI")
    (True, True)
    >>> name_key("祈煜") == name_key("祈昱"), name_key("口口") == name_key("ロ口")
    (False, True)
"""

from __future__ import annotations

import functools
import json
import re
from unicodedata import normalize

from huiyi.patterns import lazy
from huiyi.prompts import packaged

__all__ = ["bare", "load_table", "name_key"]


@functools.cache
def load_table() -> dict[str, str]:
    """Each confusable character's prototype (a character or, as for ``m`` → ``rn``, a string), as
    ``scripts/confusables_table.py`` derived it from ``confusable_homoglyphs``: ~1 ms to read, against
    ~45 ms for that library's whole table. A memory reads it when it opens, not at a bot's first line."""
    table: dict[str, str] = json.loads(packaged("data", "confusables.json").read_text(encoding="utf-8"))
    return table


def _skeleton(text: str) -> str:
    prototypes = load_table()
    return normalize("NFD", "".join(prototypes.get(char, char) for char in normalize("NFD", text)))


@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """What a name looks like: equal for two names that print alike, case, width and spacing aside."""
    # the skeleton before the case fold, and again after it: АВА (Cyrillic) is ABA, whose fold aba is not ава's
    return _skeleton(_skeleton(normalize("NFKC", name)).casefold()).strip()


_OPEN, _CLOSE = re.escape("([{（【〔［｛《〈「『<"), re.escape(")]}）】〕］｝》〉」』>")
_TAGS = (
    lazy(rf"\s*[{_OPEN}][^{_OPEN}{_CLOSE}]*[{_CLOSE}]\s*$"),
    lazy(rf"^\s*[{_OPEN}][^{_OPEN}{_CLOSE}]*[{_CLOSE}]\s*"),
)


@functools.lru_cache(maxsize=4096)
def bare(name: str) -> str:
    """A name without the tags and marks around it, as a reader skips them: ``祈煜 (bot)``, ``【官方】祈煜``,
    ``[祈煜]`` and ``祈煜：`` are all ``祈煜``; a tag that is the whole name (``[祈煜]``) loses its brackets only.

    >>> [bare(name) for name in ("祈煜 (bot)", "【官方】祈煜", "[祈煜]", "祈煜：", "~Ava~", "-_-")]
    ['祈煜', '祈煜', '祈煜', '祈煜', 'Ava', '']
    """
    text = ""
    while text != name:
        text = name
        for tag in _TAGS:
            if (untagged := tag.sub("", name)).strip():
                name = untagged
        start, end = 0, len(name)
        while start < end and not name[start].isalnum():
            start += 1
        while end > start and not name[end - 1].isalnum():
            end -= 1
        name = name[start:end]
    return name
