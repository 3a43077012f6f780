"""The fusion fit's harness: per-query metrics, the objective, grouped cross-validation, and a workbench
run end to end (hash embedder)."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest

from huiyi.config import Config
from huiyi.config.recall import RecallRecipe
from huiyi.evaluation import fusion_fit as ff
from huiyi.evaluation.probes import Probe, ProbeSet
from huiyi.store.base import TurnContext
from test_eval import PROBES


def _query(source: str, fold: int, group: str = "") -> ff.Query:
    probe = Probe(id=f"{source}{fold}", query="q", gold=["g"])
    return ff.Query(source, "c", group, fold, probe, "query")


def test_docstring_examples() -> None:
    result = doctest.testmod(ff)
    assert result.attempted > 0 and result.failed == 0


def test_objective_weighs_each_source_the_same_and_leaves_apart_groups_out() -> None:
    queries = [_query("big", 0), _query("big", 1), _query("big", 1), _query("small", 0), _query("big", 0, "5")]
    scores = np.zeros((5, len(ff.METRICS)))
    scores[3] = 1.0  # the one query of the small source is perfect, the big source's are all 0
    scores[4] = 1.0  # a perfect query in a group reported apart does not count
    everything = np.ones(5, bool)
    assert ff.objective(scores, queries, everything, {"big": {"5"}}) == pytest.approx(0.5)
    assert ff.objective(scores, queries, everything, {}) == pytest.approx((0.25 + 1.0) / 2)
    only_fold_1 = np.array([q.fold == 1 for q in queries])
    assert ff.objective(scores, queries, only_fold_1, {}) == 0.0  # the small source has no query there


def test_cross_validation_scores_each_fold_by_the_recipe_chosen_on_the_others() -> None:
    queries = [_query("s", 0), _query("s", 1)]
    # "a" is perfect on fold 0 only, "b" on fold 1 only: each fold gets the other's choice, which fails it
    a = np.array([[1.0] * len(ff.METRICS), [0.0] * len(ff.METRICS)])
    b = a[::-1].copy()
    held, chosen = ff.cross_validate({"a": a, "b": b}, queries, 2, {})
    assert chosen == ["b", "a"]
    assert held.sum() == 0.0  # what a recipe scores on its own fold never reaches that fold's figure
    summary = ff.summarise(held, queries, {})
    assert summary["s"]["n"] == 2 and summary["s"]["R@10"] == 0.0


def test_candidate_features_divide_each_bonus_by_its_weight() -> None:
    from huiyi.model import MemoryKind, RecallHit, RecallResult, Scope

    scope = Scope.of_space("bot", "g1")
    hits = [
        RecallHit(id="a", kind=MemoryKind.CHUNK, text="hello", score=0.9, scope=scope, sources=["g"],
                  route_scores={"dense": 0.8, "keyword": 3.0, "entity": 0.1}),
        RecallHit(id="b", kind=MemoryKind.EVENT, text="an event", score=0.5, scope=scope, sources=["x", "y"]),
    ]  # fmt: skip
    info = {"bonuses": {"a": {"speaker": 0.2, "chatter": -0.3}}, "fused": [["a", 0.7, {"dense": 1.0}, {}]]}
    recipe = RecallRecipe(speaker_weight=0.2, entity_weight=0.2)
    rows = ff.candidate_features(RecallResult(query="q", hits=hits, info=info), recipe, ["g"])
    first, second = rows
    assert first["gold"] and not second["gold"] and first["gold_ids"] == ["g"] and second["gold_ids"] == []
    assert first["speaker"] == pytest.approx(1.0)  # 0.2 over speaker_weight 0.2
    assert first["entity"] == pytest.approx(0.5)  # 0.1 over entity_weight 0.2
    assert first["chatter"] == -0.3 and first["raw_dense"] == 0.8 and first["norm_dense"] == 1.0
    assert (second["kind"], second["chars"], second["sources"], second["rank"]) == ("event", 8, 2, 1)
    assert second["source_ids"] == ["x", "y"] and first["gold_total"] == second["gold_total"] == 1


def test_workbench_recalls_every_query_under_any_recipe(tmp_path: Path) -> None:
    config = Config.model_validate({"embed": {"provider": "hash"}, "chunk": {"context": "turn"}})
    from huiyi.providers.embed import make_embedder

    probes = ProbeSet.model_validate(PROBES)
    source = ff.Source("tiny", probes, "all", lambda i, _case: i % 2, probes.apart)
    bench = ff.Workbench(config, make_embedder(config.embed), [source], workdir=tmp_path)
    bench.open()
    try:
        assert [q.probe.id for q in bench.queries] == ["q1", "q2"]  # the group reported apart is not asked
        scores = bench.scores(RecallRecipe())
        assert scores.shape == (2, len(ff.METRICS))
        assert scores[:, ff.METRICS.index("R@1")].tolist() == [1.0, 1.0]
        bench.set_turn_context(TurnContext((0.0,), True))  # read at query time: recall still runs
        assert bench.scores(RecallRecipe(keyword_weight=0.0)).shape == (2, len(ff.METRICS))
        rows = bench.features(bench.queries[0], RecallRecipe())
        assert rows[0]["gold"] and rows[0]["rank"] == 0
    finally:
        bench.close()
