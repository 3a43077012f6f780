"""``huiyi bench run --keyword-sizes``: keyword search timed alone on stores of each size, and its goal."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from huiyi.evaluation.bench import render
from huiyi.evaluation.bench.goals import goals
from huiyi.evaluation.bench.keyword import bench_keyword
from huiyi.faces.cli import app

ARGS = [
    "bench", "run", "--sizes", "", "--keyword-sizes", "200,400", "--scope", "100", "--queries", "3",
    "--ingest", "0", "--load", "0", "--import-runs", "0", "--embed-rounds", "0", "--embedder", "hash",
    "--no-cache", "--json",
]  # fmt: skip


def _run(extra: list[str], tmp_path: Path) -> dict:
    result = CliRunner().invoke(app, [*ARGS, *extra, "--workdir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _check(section: dict) -> None:
    assert [s["label"] for s in section["sizes"]] == ["200", "400"]
    for size in section["sizes"]:
        assert size["build"]["memories"] == size["size"] + 20  # and the agent's notes
        assert size["ms"]["n"] == 3 * 5 and 0 < size["ms"]["p50"] <= size["ms"]["p95"]
        assert 0 <= size["gold_at_1"] <= size["gold_at_10"] <= 1 and size["gold_at_10"] > 0
        assert size["tidied_ms"]["n"] == 3 * 5 and 0 < size["tidied_ms"]["p50"] <= size["tidied_ms"]["p95"]
        assert size["tidy"]["steps"] >= 0 and size["tidy"]["seconds"] >= 0
        assert size["tidy"]["changed_hits"] == 0  # merging segments changes no search's hits
    for key, ratio in (("ms", "largest_over_smallest_p50"), ("tidied_ms", "tidied_largest_over_smallest_p50")):
        expected = section["sizes"][1][key]["p50"] / section["sizes"][0][key]["p50"]
        assert section[ratio] == pytest.approx(expected, abs=1e-3)


def test_keyword_part_reports_the_ratio_beside_its_goal(tmp_path: Path) -> None:
    report = _run([], tmp_path)
    keyword = report["keyword"]
    assert keyword["scope"] == 100 and keyword["limit"] > 0
    _check(keyword)
    built, tidied = report["goals"]
    assert built["goal"] == "search_keyword p50, 400 store over 200, as built (segments unmerged)"
    assert tidied["goal"] == "search_keyword p50, 400 store over 200, tidied (tidy_keywords until 0)"
    assert built["target"] == tidied["target"] == 1.5
    assert built["value"] == keyword["largest_over_smallest_p50"]
    assert tidied["value"] == keyword["tidied_largest_over_smallest_p50"]
    assert "recall" not in report
    assert not list(tmp_path.glob("keyword-*"))  # the stores are gone unless kept
    out = io.StringIO()
    render(report, Console(file=out, width=160))
    assert "search_keyword alone" in out.getvalue() and "p50 tidied" in out.getvalue()


def test_keyword_stores_are_timed_again_once_tidied(tmp_path: Path) -> None:
    # small batches: one transaction, so one keyword segment, each, which tidying then merges
    report = bench_keyword([200, 400], scope_size=100, n_queries=3, directory=tmp_path, batch=50)
    _check(report)
    for size in report["sizes"]:
        assert size["tidy"]["steps"] > 0  # the tidied figures are of a store that had segments to merge
        assert size["tidy"]["changed_hits"] == 0


def test_goals_name_each_store_of_the_keyword_part() -> None:
    def section(low: float, high: float, tidied: float | None = None) -> dict:
        sizes = [{"label": "10k", "ms": {"p50": low}}, {"label": "1M", "ms": {"p50": high}}]
        out = {"sizes": sizes, "largest_over_smallest_p50": high / low}
        return out if tidied is None else {**out, "tidied_largest_over_smallest_p50": tidied}

    keyword = {"scope": 1000, **section(1.0, 2.5, 1.1), "postgres": {"pg": section(2.0, 4.0)}}
    rows = goals([], keyword)
    assert [(r["goal"], r["value"], r["met"]) for r in rows] == [
        ("search_keyword p50, 1M store over 10k, as built (segments unmerged)", 2.5, False),
        ("search_keyword p50, 1M store over 10k, tidied (tidy_keywords until 0)", 1.1, True),
        ("search_keyword p50, 1M store over 10k, pg, as built (segments unmerged)", 2.0, False),
    ]


@pytest.mark.slow
def test_keyword_part_on_a_throwaway_postgres(tmp_path: Path) -> None:
    report = _run(["--store", "pg"], tmp_path)
    _check(report["keyword"]["postgres"]["pg"])
    goal_names = [r["goal"] for r in report["goals"]]
    states = ["as built (segments unmerged)", "tidied (tidy_keywords until 0)"]
    assert goal_names == [
        f"search_keyword p50, 400 store over 200{s}, {state}" for s in ("", ", pg") for state in states
    ]
