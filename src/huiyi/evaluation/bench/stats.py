"""Small measuring tools for the benchmarks: latency summaries, memory use, bytes on disk.

>>> summary([3.0, 1.0, 2.0, 4.0])["p50"]
2.5
>>> ratio(30.0, 10.0)
3.0
"""

from __future__ import annotations

import os
import resource
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def summary(samples_ms: Sequence[float]) -> dict[str, Any]:
    """p50/p95/p99, mean and count of latencies in milliseconds (empty: zeros)."""
    if not samples_ms:
        return {"n": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "mean": 0.0}
    values = np.asarray(samples_ms, dtype=np.float64)
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return {
        "n": len(values),
        "p50": round(float(p50), 3),
        "p95": round(float(p95), 3),
        "p99": round(float(p99), 3),
        "mean": round(float(values.mean()), 3),
    }


def median(values: Sequence[float]) -> float:
    return float(np.median(np.asarray(values, dtype=np.float64))) if values else 0.0


def ratio(value: float, baseline: float) -> float | None:
    """value / baseline, rounded; None when the baseline is zero."""
    return round(value / baseline, 3) if baseline else None


def peak_rss_mb() -> float:
    """The peak resident set of this process so far (Linux reports kilobytes)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def rss_mb() -> float:
    """The current resident set of this process."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError, IndexError):  # not Linux
        return 0.0


def checkpoint(database: Path) -> None:
    """Fold the WAL back into the database, so its size on disk is the store's real size."""
    conn = sqlite3.connect(database, timeout=30)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def disk_usage(database: Path) -> dict[str, Any]:
    """Bytes of the database and its WAL/SHM files, and per table/index when SQLite has ``dbstat``."""
    files = {
        name: (database.parent / name).stat().st_size
        for name in (database.name, f"{database.name}-wal", f"{database.name}-shm")
        if (database.parent / name).exists()
    }
    out: dict[str, Any] = {"files": files, "total": sum(files.values())}
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
    try:
        rows = conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
        out["objects"] = {str(name): int(size) for name, size in rows}
    except sqlite3.DatabaseError:  # built without SQLITE_ENABLE_DBSTAT_VTAB
        out["objects"] = {}
    finally:
        conn.close()
    return out


def group_objects(objects: dict[str, int]) -> dict[str, int]:
    """dbstat's tables and indexes grouped by what they hold: text rows, vectors, keyword index, rest."""
    groups = {"memories": 0, "vectors": 0, "keyword index": 0, "messages": 0, "other": 0}
    for name, size in objects.items():
        if name.startswith("memory_fts"):
            groups["keyword index"] += size
        elif name.startswith("memory_vectors"):
            groups["vectors"] += size
        elif name.startswith("memories") or name.startswith("sqlite_autoindex_memories"):
            groups["memories"] += size
        elif name.startswith("messages") or name.startswith("sqlite_autoindex_messages"):
            groups["messages"] += size
        else:
            groups["other"] += size
    return groups
