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
    ratio = section["sizes"][1]["ms"]["p50"] / section["sizes"][0]["ms"]["p50"]
    assert section["largest_over_smallest_p50"] == pytest.approx(ratio, abs=1e-3)


def test_keyword_part_reports_the_ratio_beside_its_goal(tmp_path: Path) -> None:
    report = _run([], tmp_path)
    keyword = report["keyword"]
    assert keyword["scope"] == 100 and keyword["limit"] > 0
    _check(keyword)
    [row] = report["goals"]
    assert row["goal"].startswith("search_keyword p50, 400 store over 200") and row["target"] == 1.5
    assert row["value"] == keyword["largest_over_smallest_p50"]
    assert "recall" not in report
    assert not list(tmp_path.glob("keyword-*"))  # the stores are gone unless kept
    out = io.StringIO()
    render(report, Console(file=out, width=160))
    assert "search_keyword alone" in out.getvalue()


def test_goals_name_each_store_of_the_keyword_part() -> None:
    def section(low: float, high: float) -> dict:
        sizes = [{"label": "10k", "ms": {"p50": low}}, {"label": "1M", "ms": {"p50": high}}]
        return {"sizes": sizes, "largest_over_smallest_p50": high / low}

    keyword = {"scope": 1000, **section(1.0, 1.2), "postgres": {"pg": section(2.0, 4.0)}}
    rows = goals([], keyword)
    assert [(r["goal"], r["value"], r["met"]) for r in rows] == [
        ("search_keyword p50, 1M store over 10k", 1.2, True),
        ("search_keyword p50, 1M store over 10k, pg", 2.0, False),
    ]


@pytest.mark.slow
def test_keyword_part_on_a_throwaway_postgres(tmp_path: Path) -> None:
    report = _run(["--store", "pg"], tmp_path)
    _check(report["keyword"]["postgres"]["pg"])
    goal_names = [r["goal"] for r in report["goals"]]
    assert goal_names == ["search_keyword p50, 400 store over 200", "search_keyword p50, 400 store over 200, pg"]
