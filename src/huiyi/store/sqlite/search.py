"""The embedded store's two search routes: exact vectors through the in-process cache, BM25 through FTS5; and the
own-line vectors recall reads of the dense route's best, by the rowids it found.

Dense search scans the scopes' partitions in memory (``huiyi.store.vectors``), loading a partition
again when its version in ``partitions`` moved on. Keyword search is BM25 with the scopes' own
statistics over the scopes' posting lists only (``keyword``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from itertools import compress
from operator import itemgetter

import numpy as np

from huiyi.model import Scope
from huiyi.store.base import TURN_VECTOR, OwnVectors, RouteHits, ScoredId, Terms, Vectors, scored_ids
from huiyi.store.owncache import own_vectors
from huiyi.store.rows import partition_keys
from huiyi.store.sqlite.connection import SQLiteConnection, chunks, marks
from huiyi.store.sqlite.fts import merge_step
from huiyi.store.sqlite.keyword import keyword_scores
from huiyi.store.vectors import Matrix, Places, RowIds, well_sized

log = logging.getLogger(__name__)
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
MERGE_PAGES = 1000  # pages merged per step: well under a second at 1M memories


class SQLiteSearch(SQLiteConnection):
    """``SearchStore`` on SQLite, and the loader of the vector cache's partitions."""

    def own_vectors(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> OwnVectors:
        # by the dense route's rowids where given: one seek each in the own vectors' table, where by id two
        rowid_of = {i: key for i, key in zip(ids, keys, strict=False) if key > 0}

        def read(missing: list[str]) -> dict[str, bytes]:
            found: dict[str, bytes] = {}
            by_rowid = {rowid_of[i]: i for i in missing if i in rowid_of}
            for rowids in chunks(list(by_rowid), 500):
                cursor = self._conn().execute(
                    f"SELECT rowid, vector FROM memory_own_vectors WHERE rowid IN ({marks(len(rowids))})", rowids
                )
                rows = cursor.fetchall()  # bytes already: the ids and blobs paired in C
                found.update(zip(map(by_rowid.__getitem__, map(_FIRST, rows)), map(_SECOND, rows), strict=True))
            for chunk in chunks([i for i in missing if i not in rowid_of], 500):
                cursor = self._conn().execute(
                    # CROSS JOIN keeps memories outer: ANALYZE'd small stores were planned as a scan of every vector
                    "SELECT m.id, o.vector FROM memories m CROSS JOIN memory_own_vectors o ON o.rowid = m.rowid"
                    f" WHERE m.agent = ? AND m.id IN ({marks(len(chunk))})",
                    (agent, *chunk),
                )
                found.update((str(i), bytes(blob)) for i, blob in cursor)
            return found

        return own_vectors(self._own, agent, ids, read, bfloat16=True)  # as the partitions hold them

    def _load_partition(self, part: str) -> tuple[int, RowIds, Matrix, Places, list[str]]:
        conn = self._conn()
        # one read transaction, so the version matches the rows (one a recall began serves: store.reading)
        begun = not conn.in_transaction
        if begun:
            conn.execute("BEGIN")
        try:
            row = conn.execute("SELECT version FROM partitions WHERE part = ?", (part,)).fetchone()
            # each chunk's place in its chat, for the context of turn-alone vectors (store.vectors)
            found = conn.execute(
                "SELECT v.rowid, m.id, v.vector, m.kind = 'chunk', json_extract(m.data, '$.space'),"
                " json_extract(m.data, '$.seq'), json_extract(m.data, '$.vector') = ?"
                " FROM memory_vectors v JOIN memories m ON m.rowid = v.rowid WHERE v.part = ? ORDER BY v.rowid",
                (TURN_VECTOR, part),
            )
            rowids: list[int] = []
            ids: list[str] = []
            blobs: list[bytes] = []
            places = Places.none(0)
            for rowid, memory_id, blob, chunk, space, seq, turn in found:
                rowids.append(rowid)
                ids.append(str(memory_id))
                blobs.append(blob)
                places.spaces.append(str(space) if chunk and space is not None else None)
                places.seqs.append(int(seq) if chunk and seq is not None else None)
                places.turns.append(bool(chunk and turn))
        finally:
            if begun:
                conn.execute("COMMIT")
        version = int(row[0]) if row else 0
        if (keep := well_sized(blobs)) is not None:  # a blob of another program's making
            log.warning("partition %s: %d vectors of the wrong size are left out", part, keep.count(False))
            rowids, ids, blobs, places = _kept(keep, rowids, ids, blobs, places)
        if not blobs:
            return version, np.zeros(0, np.int64), np.zeros((0, 0), np.float32), places, ids
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(blobs), -1).astype(np.float32)
        return version, np.asarray(rowids, dtype=np.int64), matrix, places, ids

    def _versions(self, parts: Sequence[str]) -> dict[str, int]:
        return {part: row[0] for part, row in self._part_rows(parts).items()}

    def _ids_of(self, rowids: Sequence[int]) -> dict[int, str]:
        if not rowids:
            return {}
        found = self._conn().execute(
            f"SELECT rowid, id FROM memories WHERE rowid IN ({marks(len(rowids))})", list(rowids)
        )
        return {int(rowid): str(id_) for rowid, id_ in found}

    def search_dense(self, scopes: Sequence[Scope], query: Vectors, limit: int) -> RouteHits:
        started = time.perf_counter()
        parts = partition_keys(scopes)
        versions = self._versions(parts)
        present = [p for p in parts if p in versions]
        found = self._vectors.search(np.asarray(query, dtype=np.float32).reshape(-1), present, versions, limit)
        if found.ids is not None:  # the cached partitions know their rows' ids
            hits = scored_ids(zip(found.ids, found.scores, found.rowids, strict=True))  # one length: the scan's top
            return RouteHits(hits, (time.perf_counter() - started) * 1000, found.score_of)
        ids = self._ids_of(found.rowids)
        hits = [
            ScoredId(ids[rowid], float(score), rowid)
            for rowid, score in zip(found.rowids, found.scores, strict=True)
            if rowid in ids
        ]
        return RouteHits(hits, (time.perf_counter() - started) * 1000, found.score_of)

    def search_keyword(self, scopes: Sequence[Scope], query: Terms, limit: int) -> RouteHits:
        started = time.perf_counter()
        # one snapshot: the versions the cached partitions are checked by are those of the rows found
        with self.reading():
            parts = self._part_rows(partition_keys(scopes))
            totals = sum(row[1] for row in parts.values()), sum(row[2] for row in parts.values())
            # in a snapshot, the posting lists read before under these partitions' rows (store.postings)
            key = tuple(parts.items()) if getattr(self._local, "parts", None) is not None else None
            held = self._postings.lists(key) if key is not None else None
            found = keyword_scores(self._conn(), list(parts), totals, query, limit, held)
            if key is not None:
                self._postings.counted(key)
            versions = {part: row[0] for part, row in parts.items()}
            rowids = [rowid for rowid, _ in found]
            ids = self._vectors.ids_of(rowids, versions)  # the dense route's partitions know most rows' ids
            if len(ids) < len(rowids):
                ids.update(self._ids_of([rowid for rowid in rowids if rowid not in ids]))
        hits = scored_ids((ids[rowid], score, rowid) for rowid, score in found if rowid in ids)
        return RouteHits(hits, (time.perf_counter() - started) * 1000)

    def tidy_keywords(self, max_steps: int = 16) -> int:
        done = 0
        for _ in range(max_steps):
            # one bounded step per transaction, so adds wait for one step at most; a negative page count
            # merges whatever segments there are, not only full levels (FTS5's 'merge' command)
            with self._write() as conn:
                if not merge_step(conn, -MERGE_PAGES):
                    break
            done += 1
        return done


def _kept(
    keep: list[bool], rowids: list[int], ids: list[str], blobs: list[bytes], places: Places
) -> tuple[list[int], list[str], list[bytes], Places]:
    kept = Places.none(0)
    for field in ("spaces", "seqs", "turns"):
        getattr(kept, field).extend(compress(getattr(places, field), keep))
    return list(compress(rowids, keep)), list(compress(ids, keep)), list(compress(blobs, keep)), kept
