"""``huiyi bench``: speed, disk and memory of huiyi, one module per part (see :mod:`.run` for the whole).

PostgreSQL (:mod:`.pg`) and the peer comparison (:mod:`.peer`) are left out here: they are imported
only when a run asks for them.
"""

from huiyi.evaluation.bench.build import Pool, VectorCache, build_store, probe_plan
from huiyi.evaluation.bench.report import render
from huiyi.evaluation.bench.run import (
    PARTS,
    BenchOptions,
    default_cache_dir,
    parse_size,
    parse_sizes,
    run_bench,
    store_names,
)
from huiyi.evaluation.bench.stats import summary

__all__ = [
    "PARTS",
    "BenchOptions",
    "Pool",
    "VectorCache",
    "build_store",
    "default_cache_dir",
    "parse_size",
    "parse_sizes",
    "probe_plan",
    "render",
    "run_bench",
    "store_names",
    "summary",
]
