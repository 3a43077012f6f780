"""The embedded store's keyword index text: every token carries a code of its partition.

FTS5 keeps one posting list per token across the whole table and reads a query term's list in full
before it narrows to the scope's rows, so a term's cost followed the store, not the scope (issue 15:
33.8 ms at a 1,000-memory scope of a 1M store against 1.86 ms of a 10k store). Prefixing each token
with a short code of its partition (``bcdf…`` + ``word``) gives each scope its own posting lists:
the keyword route (``sqlite.keyword``) reads a query term's instances in the scope alone, through the
``fts5vocab`` table ``memory_fts_instances``. Adjacent tokens carry one code, so phrases are found too.

The code is made of consonants other than w, x and y, so the porter stemmer sees the same measure
and vowels in a prefixed word as in the bare one. Two partitions may share a code (one in ~10¹² per
pair); the ``part`` column still filters every query, so a shared code costs speed, never scope.

Words are cut into the letter-and-digit runs unicode61 would make of them (``i'm`` → ``i``, ``m``),
so that each run gets the prefix, not only the first.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from functools import lru_cache

TOKENIZE = "porter unicode61 remove_diacritics 2"  # memory_fts's tokenizer (migrations 1 and 10)
_ALPHABET = "bcdfghjklmnpqrstvz"
CODE_LENGTH = 10
_RUN = re.compile(r"[^\W_]+")


@lru_cache(maxsize=4096)
def scope_code(part: str) -> str:
    """The prefix of a partition's tokens, from its key (``p`` + hex digits).

    >>> scope_code("p00000000000000000000")
    'bbbbbbbbbb'
    """
    number = int(part[1:], 16)
    letters = []
    for _ in range(CODE_LENGTH):
        number, digit = divmod(number, len(_ALPHABET))
        letters.append(_ALPHABET[digit])
    return "".join(letters)


def scoped(code: str, text: str) -> str:
    """``text``'s runs, each prefixed with ``code``; runs already prefixed stay as they are, so
    converting a store twice changes nothing.

    >>> scoped("bbbbbbbbbb", "i'm going 去")
    'bbbbbbbbbbi bbbbbbbbbbm bbbbbbbbbbgoing bbbbbbbbbb去'
    """
    return " ".join(run if run.startswith(code) else code + run for run in _RUN.findall(text))


def scoped_for_part(part: str, text: str) -> str:
    """``scoped`` by partition key: the SQL function the migration converts old rows with."""
    return scoped(scope_code(part), text or "")


MERGE_STEP_PAGES = 64  # FTS5's own work unit: ~256 KB, a few ms at most in the writing transaction
ROWS_PER_STEP = 100  # a write of more rows merges a step more per this many: its segment is that much larger


def merge_pages(rows: int) -> int:
    """The merge work a write of ``rows`` keyword rows does: a step per ``ROWS_PER_STEP``. A fixed step let
    an import of 20,000 memories a transaction leave its segments unmerged (keyword search at 1M as built
    cost 2.3× that at 10k, against 1.0× merged), as the merging fell ever further behind the writing.

    >>> merge_pages(1), merge_pages(100), merge_pages(20_000)
    (64, 64, 12800)
    """
    return MERGE_STEP_PAGES * max(1, -(-rows // ROWS_PER_STEP))


def merge_step(conn: sqlite3.Connection, pages: int = MERGE_STEP_PAGES) -> bool:
    """A bounded step of merging the keyword index's segments, after a write: every write leaves a segment,
    and keyword search looks each query term up in every one. FTS5 alone merged a level once it held 16
    small segments, so a store written a memory at a time held ~13 (25 at most; 0.6 ms a search at 100k
    against 0.42 merged into one); merging any level of two (``usermerge`` 2, schema 23) keeps ~5
    (0.46 ms), for ~0.1 ms more a write. ``Store.tidy_keywords`` merges everything into one, by steps of a
    negative ``pages`` (any segments, not only full levels). Whether the step merged anything."""
    before = conn.total_changes
    conn.execute("INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', ?)", (pages,))
    return conn.total_changes - before >= 2  # FTS5's sign that it merged something


def docsize_tokens(docsize: bytes | None) -> int:
    """A row's tokens over all its columns from its ``memory_fts_docsize`` record, one SQLite varint per
    column: the length FTS5's ``bm25()`` normalises by.

    >>> docsize_tokens(bytes([1, 0x81, 0x00, 3]))
    132
    """
    total, value, width = 0, 0, 0
    for byte in docsize or b"":
        width += 1
        if width == 9:  # a ninth byte keeps all its eight bits
            total, value, width = total + (value << 8 | byte), 0, 0
            continue
        value = value << 7 | (byte & 0x7F)
        if byte < 0x80:
            total, value, width = total + value, 0, 0
    return total


def count_row_tokens(conn: sqlite3.Connection, rowid: int) -> int:
    """How many tokens ``memory_fts`` holds for a row, counted by FTS5 itself."""
    found = conn.execute("SELECT sz FROM memory_fts_docsize WHERE id = ?", (rowid,)).fetchone()
    return docsize_tokens(found[0]) if found else 0


@lru_cache(maxsize=65536)
def index_tokens(word: str) -> tuple[str, ...]:
    """``word``'s tokens as ``memory_fts`` holds them, without the code: cut, folded and stemmed by FTS5's
    own tokenizer, with a code in front as when stored (the stemmer sees the word as it saw it; any code
    gives the same tokens, all being consonants of one alphabet).

    >>> index_tokens("Hiking i'm")
    ('hike', 'i', 'm')
    """
    conn = _tokenizer()
    conn.execute("INSERT INTO cut (rowid, text) VALUES (1, ?)", (scoped(_ANY_CODE, word),))
    try:
        found = conn.execute("SELECT term FROM cut_tokens ORDER BY offset").fetchall()
    finally:
        conn.execute("DELETE FROM cut")
    return tuple(str(term)[len(_ANY_CODE) :] for (term,) in found)


_ANY_CODE = "b" * CODE_LENGTH
_local = threading.local()


def _tokenizer() -> sqlite3.Connection:
    """This thread's in-memory FTS5 table, cut as ``memory_fts`` is, and its tokens in order."""
    conn: sqlite3.Connection | None = getattr(_local, "conn", None)
    if conn is None:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.execute(f"CREATE VIRTUAL TABLE cut USING fts5 (text, tokenize = '{TOKENIZE}')")
        conn.execute("CREATE VIRTUAL TABLE cut_tokens USING fts5vocab (cut, instance)")
        _local.conn = conn
    return conn
