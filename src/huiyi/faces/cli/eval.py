"""``huiyi eval``: measure recall on public data sets (LoCoMo, MADial-Bench) or any probe file.

A thin face over :mod:`huiyi.evaluation`: each command converts its data to probes, runs them with
fresh stores and prints a table, or with ``--json`` the one object the eval README describes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from huiyi.config import Config
from huiyi.evaluation import locomo, madial, plain, runner
from huiyi.evaluation.probes import ProbeSet, Report, report
from huiyi.evaluation.runner import QueryForm
from huiyi.faces.cli.options import ConfigOption
from huiyi.providers.embed import Embedder, make_embedder

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False)
out = Console()
err = Console(stderr=True)

JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
LimitOption = Annotated[int | None, typer.Option("--limit", "-n", min=1, help="Only the first N cases.")]
CacheOption = Annotated[
    Path | None,
    typer.Option("--embed-cache", help="Keep passage and query vectors in this SQLite file across runs."),
]
QuestionsOption = Annotated[
    Path | None,
    typer.Option(
        "--questions",
        help="Also write one JSON line per question: gold ids, ids recalled in rank order, each gold id's rank.",
    ),
]
FormOption = Annotated[
    str,
    typer.Option(
        "--query-form",
        help="all: every chat line so far; turn: the user's latest line and the assistant's before it; query: last;"
        " dialogue: the last line with the lines before it passed to recall as its dialogue.",
    ),
]


IngestOption = Annotated[
    str,
    typer.Option(
        "--ingest",
        help="How messages are added, as an app would: session (one chat session per call, the default), "
        "turn (one message per call) or bulk (a whole chat per call).",
    ),
]


def _batching(value: str) -> runner.Batching:
    for batching in runner.BATCHINGS:
        if batching == value:
            return batching
    raise typer.BadParameter(f"--ingest must be one of {', '.join(runner.BATCHINGS)}")


def _embedder(config: Config, cache: Path | None) -> Embedder:
    embedder = make_embedder(config.embed)
    return runner.DiskCachedEmbedder(embedder, cache) if cache else embedder


def _form(value: str) -> QueryForm:
    for form in runner.QUERY_FORMS:
        if form == value:
            return form
    raise typer.BadParameter(f"query form must be one of {', '.join(runner.QUERY_FORMS)}")


def _run(
    probes: ProbeSet,
    *,
    config_path: Path | None,
    cache: Path | None,
    form: QueryForm,
    recall_ks: tuple[int, ...],
    hit_ks: tuple[int, ...],
    quiet: bool,
    ingest: str = "session",
    baselines: tuple[QueryForm, ...] = (),
    questions: Path | None = None,
) -> tuple[Report, float, Config, dict[str, Any]]:
    config = Config.load(config_path)
    embedder = _embedder(config, cache)
    batching = _batching(ingest)
    started = time.perf_counter()
    results = runner.run(
        probes, config, embedder=embedder, query_form=form, console=None if quiet else err, batching=batching
    )
    seconds = time.perf_counter() - started
    if questions is not None:
        runner.write_questions(results, questions)
    extra: dict[str, Any] = {
        "cases": len(probes.cases),
        "query_form": form,
        "ingest": batching,
        "recall_ms": runner.latency(results),
    }
    # the plain 0.3·BM25 + 0.7·dense fusion of the same model, per query form, beside huiyi's figure
    if baselines:
        extra["baseline"] = {
            f"plain {name}": report(
                plain.run(probes, embedder, name, max_chars=config.recall.max_query_chars),
                probes.apart,
                recall_ks,
                hit_ks,
            ).overall.metrics
            for name in baselines
        }
    if isinstance(embedder, runner.DiskCachedEmbedder):
        embedder.close()
    return report(results, probes.apart, recall_ks, hit_ks), seconds, config, extra


def _table(title: str, result: Report, group_label: str, apart: list[str]) -> Table:
    names = list(result.overall.metrics)
    table = Table(title=title)
    table.add_column(group_label)
    table.add_column("n", justify="right")
    for name in names:
        table.add_column(name, justify="right")
    label = "overall" + (f" (without {', '.join(apart)})" if apart else "")
    table.add_row(label, str(result.overall.n), *(f"{result.overall.metrics[m]:.3f}" for m in names))
    if len(result.groups) > 1 or apart:
        for group, scored in result.groups.items():
            table.add_row(group or "-", str(scored.n), *(f"{scored.metrics[m]:.3f}" for m in names))
    return table


def _print(payload: dict[str, Any], result: Report, as_json: bool, group_label: str, apart: list[str]) -> None:
    if as_json:
        out.print_json(json.dumps(payload, ensure_ascii=False))
        return
    out.print(_table(f"{payload['dataset']}: {payload['file']}", result, group_label, apart))
    latency = payload.get("recall_ms", {})
    out.print(
        f"[dim]{payload.get('cases')} cases, {payload['seconds']:.1f} s, query form {payload.get('query_form')}, "
        f"ingest {payload.get('ingest')}, "
        f"recall median {latency.get('median', 0):.1f} ms, p95 {latency.get('p95', 0):.1f} ms[/dim]"
    )
    for name, metrics in payload.get("baseline", {}).items():
        out.print(f"[dim]{name}: " + ", ".join(f"{k} {v:.3f}" for k, v in metrics.items()) + "[/dim]")


@app.command("locomo")
def locomo_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A LoCoMo JSON file.")],
    as_json: JsonOption = False,
    limit: LimitOption = None,
    config: ConfigOption = None,
    embed_cache: CacheOption = None,
    ingest: IngestOption = "session",
    questions: QuestionsOption = None,
) -> None:
    """LoCoMo turn-level evidence recall: R@1/5/10 and Hit@1 over categories 1–4, per category, 5 apart."""
    probes = locomo.load(file).limited(limit)
    result, seconds, used, extra = _run(
        probes,
        config_path=config,
        cache=embed_cache,
        form="query",
        recall_ks=(1, 5, 10),
        hit_ks=(1,),
        quiet=as_json,
        ingest=ingest,
        questions=questions,
    )
    payload = runner.summary("locomo", str(file), result, seconds, used, groups_key="per_category", extra=extra)
    _print(payload, result, as_json, "category", probes.apart)


@app.command("madial")
def madial_command(
    memory_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="memory-zh.jsonl")],
    dialogue_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="dialogue-zh-*.jsonl")],
    as_json: JsonOption = False,
    limit: LimitOption = None,
    config: ConfigOption = None,
    embed_cache: CacheOption = None,
    # a companion's recall: the latest line asked, the lines before it passed as the dialogue (recall.views)
    query_form: FormOption = "dialogue",
    baseline: Annotated[
        bool,
        typer.Option(
            "--baseline/--no-baseline",
            help="Also rank by the plain 0.3·BM25 + 0.7·dense fusion of the same model (every line; latest exchange).",
        ),
    ] = True,
    questions: QuestionsOption = None,
    pools: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="A memory file of the same ids with user-ids, for one without (memory-en: --pools memory-zh.jsonl).",
        ),
    ] = None,
) -> None:
    """MADial-Bench recall prompted by the dialogue: R@1/3/5/10, Hit@1 and Hit@5 over the dialogues."""
    form = _form(query_form)
    try:
        probes = madial.load(memory_file, dialogue_file, pools=pools).limited(limit)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    result, seconds, used, extra = _run(
        probes,
        config_path=config,
        cache=embed_cache,
        form=form,
        recall_ks=(1, 3, 5, 10),
        hit_ks=(1, 5),
        quiet=as_json,
        baselines=("all", "turn") if baseline else (),
        questions=questions,
    )
    payload = runner.summary("madial", str(dialogue_file), result, seconds, used, groups_key=None, extra=extra)
    payload["memory_file"] = str(memory_file)
    _print(payload, result, as_json, "group", [])


@app.command("probes")
def probes_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A probe file (JSON).")],
    as_json: JsonOption = False,
    limit: LimitOption = None,
    config: ConfigOption = None,
    embed_cache: CacheOption = None,
    query_form: FormOption = "all",
    ingest: IngestOption = "session",
    questions: QuestionsOption = None,
) -> None:
    """Any data set in the probe format: R@1/3/5/10, Hit@1 and Hit@5, overall and per group."""
    form = _form(query_form)
    probes = ProbeSet.load(file).limited(limit)
    result, seconds, used, extra = _run(
        probes,
        config_path=config,
        cache=embed_cache,
        form=form,
        recall_ks=(1, 3, 5, 10),
        hit_ks=(1, 5),
        quiet=as_json,
        ingest=ingest,
        questions=questions,
    )
    payload = runner.summary(probes.name, str(file), result, seconds, used, groups_key="per_group", extra=extra)
    _print(payload, result, as_json, "group", probes.apart)
