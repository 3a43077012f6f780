"""Every forgetting and scoring formula from the seeds, each with a worked example, plus properties.

STYLE.md: MemoryBank's ``math.exp(-t / 5*S)`` made stronger memories fade faster because nothing tested
it. Each number below is worked by hand in the comment beside it.
"""

from __future__ import annotations

import doctest
import math
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from huiyi import strength
from huiyi.config.forget import ForgetConfig, StrengthConfig
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.recall import score as score_module
from huiyi.recall.score import (
    FEATURES,
    PRESETS,
    RELEVANCE,
    SEED_001,
    SEED_004,
    FeatureParams,
    Features,
    ScorePreset,
    access_factor,
    features_of,
    graph_closeness,
    recency_factor,
    recent_use_penalty,
    roulette,
    score,
)
from huiyi.strength import (
    SEED000_RECALL_BONUS,
    DecayType,
    capacity_victims,
    decay_type_of,
    on_recall_memorybank,
    retention,
    seed000_increment,
    type_decay,
)

SCOPE = Scope.of_person("祈煜", "木木")
NOW = datetime(2025, 11, 5, 18, 0)


def item(kind: MemoryKind = MemoryKind.EVENT, **fields: object) -> MemoryItem:
    return MemoryItem.model_validate({"scope": SCOPE, "kind": kind, "text": "昨晚没睡好", **fields})


@pytest.mark.parametrize("module", [strength, score_module])
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0


# --- MemoryBank (seed 003): R = e^(−t/S), S += 1 and t reset on recall --------------------------------


def test_retention_worked_examples() -> None:
    assert retention(0, 1) == 1.0
    assert retention(1, 1) == pytest.approx(0.367879, abs=1e-6)  # e^−1
    assert retention(1, 2) == pytest.approx(0.606531, abs=1e-6)  # e^−0.5
    assert retention(2, 1) == pytest.approx(0.135335, abs=1e-6)  # e^−2
    assert retention(5, 5) == pytest.approx(math.exp(-1))  # t/S = 1
    assert retention(1, 5) == pytest.approx(0.818731, abs=1e-6)  # e^−0.2, not MemoryBank's e^−(1/5)·5


def test_stronger_memory_fades_slower() -> None:
    # the MemoryBank bug exp(-t / 5*S) gives exp(-(t/5)·S), which falls as S grows; ours must rise
    assert retention(1, 1) < retention(1, 2) < retention(1, 5)
    assert retention(3, 1) < retention(3, 2)


def test_retention_edges() -> None:
    assert retention(-2, 1) == 1.0  # a clock that ran backwards counts as no time
    with pytest.raises(ValueError):
        retention(1, 0)
    with pytest.raises(ValueError):
        retention(1, -1)
    with pytest.raises(ValueError):
        retention(1, math.nan)


def test_memorybank_recall_cycle() -> None:
    strength = StrengthConfig().initial  # S starts at 1
    assert retention(3, strength) == pytest.approx(0.049787, abs=1e-6)  # e^−3 after 3 days
    strength = on_recall_memorybank(strength)  # recalled: S = 2, t = 0
    assert strength == 2.0
    assert retention(0, strength) == 1.0
    assert retention(3, strength) == pytest.approx(0.223130, abs=1e-6)  # e^−1.5, 3 days after the recall


@given(
    t=st.floats(min_value=0, max_value=3650, allow_nan=False),
    dt=st.floats(min_value=0, max_value=100, allow_nan=False),
    s=st.floats(min_value=0.01, max_value=1e6, allow_nan=False),
    ds=st.floats(min_value=0, max_value=100, allow_nan=False),
)
def test_retention_properties(t: float, dt: float, s: float, ds: float) -> None:
    r = retention(t, s)
    assert 0.0 <= r <= 1.0
    if t / s < 700:  # beyond that e^(−t/S) underflows to 0.0 in floats
        assert r > 0.0
    assert retention(t + dt, s) <= r  # monotone: more time, less retained
    assert retention(t, s + ds) >= r  # monotone: stronger, more retained


# --- seed 000 §八: strength increments, recall bonus ------------------------------------------------

DAY = timedelta(days=1)
TICK = timedelta(seconds=1)


@pytest.mark.parametrize(
    ("age", "step"),
    [
        (timedelta(0), 1),
        (timedelta(hours=12), 1),
        (DAY, 1),  # 在一天以内: exactly one day is still within a day
        (DAY + TICK, 3),
        (3 * DAY, 3),
        (3 * DAY + TICK, 7),
        (7 * DAY, 7),
        (7 * DAY + TICK, 30),
        (30 * DAY, 30),
        (30 * DAY + TICK, 100),
        (183 * DAY, 100),  # half a year
        (400 * DAY, 100),  # past half a year the seed is silent: keep the largest step
        (-DAY, 1),  # clock skew counts as no time
    ],
)
def test_seed000_increment_boundaries(age: timedelta, step: int) -> None:
    assert seed000_increment(age) == step


def test_seed000_increment_beyond_and_custom_table() -> None:
    assert seed000_increment(400 * DAY, beyond=0) == 0
    assert seed000_increment(2 * DAY, increments=[(1, 2), (5, 9)]) == 9
    with pytest.raises(ValueError):
        seed000_increment(DAY, increments=[])


def test_seed000_strength_worked_example() -> None:
    strength = 1  # 初始为1
    strength += seed000_increment(2 * DAY)  # updated again two days later: +3
    strength += SEED000_RECALL_BONUS  # then recalled: +15
    assert strength == 19
    assert StrengthConfig().recall_bonus == 15


@given(a=st.integers(min_value=-(10**7), max_value=10**9), b=st.integers(min_value=0, max_value=10**9))
def test_seed000_increment_never_shrinks_with_age(a: int, b: int) -> None:
    assert seed000_increment(timedelta(seconds=a)) <= seed000_increment(timedelta(seconds=a + b))


# --- seed 004 §5.3: decay by type with an access bonus -------------------------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("event", 0.606531),  # e^(−0.05·10)
        ("fact", 0.904837),  # e^(−0.01·10)
        ("relation", 0.951229),  # e^(−0.005·10)
        ("opinion", 0.740818),  # e^(−0.03·10)
    ],
)
def test_type_decay_after_ten_days(kind: str, expected: float) -> None:
    assert type_decay(kind, 10, 0) == pytest.approx(expected, abs=1e-6)
    assert type_decay(DecayType(kind), 10, 0) == pytest.approx(expected, abs=1e-6)


def test_type_decay_access_bonus_and_importance() -> None:
    # 0.5 · e^−0.5 · (1 + ln(1 + 3)) = 0.5 · 0.606531 · 2.386294 = 0.723680
    assert type_decay("event", 10, 3, importance=0.5) == pytest.approx(0.723680, abs=1e-6)
    assert type_decay("fact", 0, 0) == 1.0
    assert type_decay("relation", 10, 0) > type_decay("fact", 10, 0) > type_decay("opinion", 10, 0)
    assert type_decay("opinion", 10, 0) > type_decay("event", 10, 0)
    assert type_decay("event", 10, 0, rates={t: 0.1 for t in DecayType}) == pytest.approx(math.exp(-1))
    with pytest.raises(ValueError):
        type_decay("event", 1, -1)
    with pytest.raises(ValueError):
        type_decay("memory", 1, 0)


@given(
    days=st.floats(min_value=0, max_value=10000, allow_nan=False),
    more=st.floats(min_value=0, max_value=1000, allow_nan=False),
    access=st.integers(min_value=0, max_value=10**6),
    kind=st.sampled_from(list(DecayType)),
)
def test_type_decay_monotone(days: float, more: float, access: int, kind: DecayType) -> None:
    assert type_decay(kind, days + more, access) <= type_decay(kind, days, access)
    assert type_decay(kind, days, access + 1) >= type_decay(kind, days, access)


@pytest.mark.parametrize(
    ("kind", "fact_kind", "expected"),
    [
        (MemoryKind.EVENT, None, DecayType.EVENT),
        (MemoryKind.CHUNK, None, DecayType.EVENT),
        (MemoryKind.FACT, "relation", DecayType.RELATION),
        (MemoryKind.FACT, "opinion", DecayType.OPINION),
        (MemoryKind.FACT, "preference", DecayType.OPINION),
        (MemoryKind.FACT, "attribute", DecayType.FACT),
        (MemoryKind.FACT, None, DecayType.FACT),
        (MemoryKind.SUMMARY, None, DecayType.FACT),
        (MemoryKind.NOTE, None, DecayType.FACT),
    ],
)
def test_decay_type_of(kind: MemoryKind, fact_kind: str | None, expected: DecayType) -> None:
    data = {"fact_kind": fact_kind} if fact_kind else {}
    assert decay_type_of(item(kind, data=data)) is expected


# --- seed 000 §八: capacity ------------------------------------------------------------------------


def test_capacity_below_and_at_the_limit() -> None:
    rows = [(f"m{i:02d}", float(i)) for i in range(10)]
    assert capacity_victims(rows, total_limit=11, minimum=0) == []
    assert capacity_victims(rows, total_limit=10, minimum=0) == ["m00", "m01"]  # 达到 10: weakest 20 %


def test_capacity_defaults_from_the_seed() -> None:
    rows = [(f"m{i:05d}", float(i % 97)) for i in range(20000)]
    victims = capacity_victims(rows)
    assert len(victims) == 4000  # 20 % of 20 000
    assert capacity_victims(rows[:19999]) == []
    assert max(dict(rows)[v] for v in victims) <= min(s for k, s in rows if k not in set(victims))


def test_capacity_ties_are_broken_by_id_whatever_the_order() -> None:
    rows = [("d", 2.0), ("b", 1.0), ("e", 5.0), ("a", 1.0), ("c", 1.0)]
    assert capacity_victims(rows, total_limit=5, share=0.4, minimum=0) == ["a", "b"]
    assert capacity_victims(list(reversed(rows)), total_limit=5, share=0.4, minimum=0) == ["a", "b"]


def test_capacity_keeps_the_minimum() -> None:
    rows = [(f"m{i}", float(i)) for i in range(10)]
    assert capacity_victims(rows, total_limit=10, share=0.5, minimum=8) == ["m0", "m1"]  # not 5
    assert capacity_victims(rows, total_limit=10, share=0.5, minimum=10) == []


def test_capacity_inactive_person_trims_to_the_minimum() -> None:
    rows = [(f"m{i}", float(10 - i)) for i in range(10)]  # m9 is the weakest
    assert capacity_victims(rows, minimum=7, inactive=True) == ["m9", "m8", "m7"]
    assert capacity_victims(rows, minimum=10, inactive=True) == []
    assert capacity_victims(rows, minimum=20, inactive=True) == []


def test_capacity_share_rounds_down_without_float_noise() -> None:
    rows = [(f"m{i:03d}", float(i)) for i in range(100)]
    assert len(capacity_victims(rows, total_limit=100, share=0.29, minimum=0)) == 29  # 0.29·100 = 28.999…


def test_capacity_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        capacity_victims([("a", 1.0)], share=1.5)
    with pytest.raises(ValueError):
        capacity_victims([("a", math.nan), ("b", 1.0)], total_limit=1, share=1.0, minimum=0)


@given(
    strengths=st.lists(st.integers(min_value=0, max_value=5), max_size=60),
    limit=st.integers(min_value=1, max_value=60),
    share=st.floats(min_value=0, max_value=1),
    minimum=st.integers(min_value=0, max_value=60),
    inactive=st.booleans(),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_capacity_properties(
    strengths: list[int], limit: int, share: float, minimum: int, inactive: bool, seed: int
) -> None:
    rows = [(f"m{i:02d}", float(s)) for i, s in enumerate(strengths)]
    victims = capacity_victims(rows, limit, share, minimum, inactive=inactive)
    shuffled = rows[:]
    random.Random(seed).shuffle(shuffled)
    assert capacity_victims(shuffled, limit, share, minimum, inactive=inactive) == victims
    assert len(set(victims)) == len(victims)
    assert len(rows) - len(victims) >= min(minimum, len(rows))
    if not inactive and len(rows) < limit:
        assert victims == []
    kept = [s for k, s in rows if k not in set(victims)]
    gone = [s for k, s in rows if k in set(victims)]
    if kept and gone:
        assert max(gone) <= min(kept)


def test_forget_config_defaults_and_validation() -> None:
    config = ForgetConfig()
    assert (config.total_limit, config.share) == (20000, 0.2)
    assert config.decay_rates[DecayType.EVENT] == 0.05
    assert config.strength.increments[0] == (1, 1)
    assert config.strength.recall_bonus == 15
    loaded = ForgetConfig.model_validate({"decay_rates": {"event": 0.1, "fact": 0, "relation": 0, "opinion": 0}})
    assert loaded.decay_rates[DecayType.EVENT] == 0.1
    with pytest.raises(ValidationError):
        ForgetConfig(decay_rates={DecayType.EVENT: 0.1})  # the other types are missing
    with pytest.raises(ValidationError):
        StrengthConfig(increments=[(3, 3), (1, 1)])
    with pytest.raises(ValidationError):
        ForgetConfig(minimum=30000)


# --- feature shaping ------------------------------------------------------------------------------


def test_feature_shapes_worked() -> None:
    assert recency_factor(timedelta(0)) == 1.0
    assert recency_factor(timedelta(days=7)) == 0.5  # the half-life, a week
    assert recency_factor(timedelta(days=14)) == 0.25
    assert recency_factor(timedelta(days=3), half_life_days=3) == 0.5
    assert recent_use_penalty(None) == 0.0  # never used, no penalty
    assert recent_use_penalty(timedelta(hours=1)) == 0.5
    assert recent_use_penalty(timedelta(hours=3)) == 0.125
    assert access_factor(0) == 0.0
    assert access_factor(5) == 0.5
    assert access_factor(15) == 0.75
    assert [graph_closeness(d) for d in (None, 0, 1, 2, 4)] == [1.0, 1.0, 1.0, 0.5, 0.25]


def test_features_validate_their_range() -> None:
    with pytest.raises(ValueError):
        Features(relevance=1.2)
    with pytest.raises(ValueError):
        Features(feedback=-1.5)
    with pytest.raises(ValueError):
        Features(importance=math.nan)
    assert Features(feedback=-1.0).factor("feedback") == 0.0
    assert Features(recent_use=1.0).factor("recent_use") == 0.0


def test_features_of_a_memory() -> None:
    memory = item(
        MemoryKind.FACT,
        importance=0.7,
        created_at=NOW - timedelta(days=14, hours=3),
        access_count=15,
        last_access=NOW - timedelta(hours=2),
        data={"fact_kind": "opinion"},
    )
    f = features_of(memory, relevance=1.0000001, now=NOW, graph_distance=2, feedback=0.5)
    assert f.relevance == 1.0  # clamped
    assert f.importance == 0.7
    assert f.recency == pytest.approx(0.5 ** (14.125 / 7))
    assert f.access == 0.75
    assert f.recent_use == 0.25
    assert f.feedback == 0.5
    assert f.graph == 0.5
    assert f.time_decay == pytest.approx(math.exp(-0.03 * 14))  # whole days, opinion rate


def test_features_of_falls_back_on_time_then_now() -> None:
    happened = item(time=NOW - timedelta(days=7))
    assert features_of(happened, 0.5, NOW).recency == 0.5
    curated = item(MemoryKind.NOTE)
    f = features_of(curated, 0.5, NOW)
    assert (f.recency, f.time_decay, f.recent_use, f.graph) == (1.0, 1.0, 0.0, 1.0)
    future = item(created_at=NOW + timedelta(days=1))
    assert features_of(future, 0.5, NOW).recency == 1.0


def test_features_of_compares_wall_clocks() -> None:
    memory = item(created_at=datetime(2025, 10, 29, 18, 0))  # naive, as the store returns it
    aware_now = NOW.replace(tzinfo=UTC)
    assert features_of(memory, 0.5, aware_now).recency == 0.5


def test_features_of_params() -> None:
    memory = item(created_at=NOW - timedelta(days=2), access_count=2)
    f = features_of(memory, 0.5, NOW, params=FeatureParams(recency_half_life_days=2, access_half=2))
    assert (f.recency, f.access) == (0.5, 0.5)


# --- scores --------------------------------------------------------------------------------------


def test_presets_are_the_seeds_weights() -> None:
    assert SEED_004.weights == {"relevance": 0.4, "importance": 0.2, "graph": 0.2, "time_decay": 0.1, "access": 0.1}
    assert SEED_001.weights == {
        "importance": 0.3,
        "recency": 0.2,
        "access": 0.1,
        "recent_use": 0.2,
        "relevance": 0.1,
        "feedback": 0.1,
    }
    assert SEED_004.ceiling == pytest.approx(1.0)
    assert SEED_001.ceiling == pytest.approx(1.0)
    assert RELEVANCE.weights == {"relevance": 1.0}
    assert set(PRESETS) == {"relevance", "seed004", "seed001"}


def test_seed004_worked_example() -> None:
    # seed 004 §12's example, at 18:00: 心情不好 (a fact, direct hit) and 睡眠不好 (an event, 2 hops away)
    mood = item(MemoryKind.FACT, importance=0.6, created_at=NOW - timedelta(days=10), access_count=5)
    sleep = item(MemoryKind.EVENT, importance=0.8, created_at=NOW - timedelta(days=10))
    total, parts = score(features_of(mood, 0.95, NOW, graph_distance=0), SEED_004)
    # 0.4·0.95 + 0.2·0.6 + 0.2·1 + 0.1·e^−0.1 + 0.1·(5/10) = 0.38 + 0.12 + 0.2 + 0.090484 + 0.05
    assert parts["relevance"] == pytest.approx(0.38)
    assert parts["time_decay"] == pytest.approx(0.0904837, abs=1e-7)
    assert total == pytest.approx(0.8404837, abs=1e-7)
    total, parts = score(features_of(sleep, 0.82, NOW, graph_distance=2), SEED_004)
    # 0.4·0.82 + 0.2·0.8 + 0.2·(1/2) + 0.1·e^−0.5 + 0.1·0 = 0.328 + 0.16 + 0.1 + 0.060653 + 0
    assert parts["graph"] == pytest.approx(0.1)
    assert parts["access"] == 0.0
    assert total == pytest.approx(0.6486531, abs=1e-7)


def test_seed001_worked_example() -> None:
    memory = item(
        importance=0.7,
        created_at=NOW - timedelta(days=14),  # recency 0.25
        access_count=15,  # access 0.75
        last_access=NOW - timedelta(hours=2),  # penalty 0.25, factor 0.75
    )
    total, parts = score(features_of(memory, 0.6, NOW, feedback=0.5), SEED_001)  # feedback factor 0.75
    # 0.3·0.7 + 0.2·0.25 + 0.1·0.75 + 0.2·0.75 + 0.1·0.6 + 0.1·0.75
    # = 0.21 + 0.05 + 0.075 + 0.15 + 0.06 + 0.075 = 0.62
    assert parts == pytest.approx(
        {"importance": 0.21, "recency": 0.05, "access": 0.075, "recent_use": 0.15, "relevance": 0.06, "feedback": 0.075}
    )
    assert total == pytest.approx(0.62)
    just_used = memory.model_copy(update={"last_access": NOW})
    assert score(features_of(just_used, 0.6, NOW, feedback=0.5), SEED_001)[0] == pytest.approx(0.47)  # 邻用 −0.15
    judged_worthless = score(features_of(memory, 0.6, NOW, feedback=-1.0), SEED_001)[0]
    assert judged_worthless == pytest.approx(0.545)  # 反馈 −0.075


def test_relevance_preset_is_todays_behaviour() -> None:
    memory = item(importance=1.0, access_count=100, created_at=NOW - timedelta(days=300))
    for relevance in (0.0, 0.37, 1.0):
        total, parts = score(features_of(memory, relevance, NOW))
        assert total == relevance
        assert parts == {"relevance": relevance}


def test_preset_validation_and_loading() -> None:
    mine = ScorePreset.model_validate({"name": "mine", "weights": {"relevance": 0.5, "importance": 0.5}})
    assert score(Features(relevance=1.0, importance=0.5), mine)[0] == 0.75
    with pytest.raises(ValidationError):
        ScorePreset(name="bad", weights={"relevance": -0.1})
    with pytest.raises(ValidationError):
        ScorePreset.model_validate({"name": "bad", "weights": {"charm": 1.0}})
    with pytest.raises(ValidationError):
        ScorePreset(name="bad", weights={"relevance": 0.0})
    with pytest.raises(ValidationError):
        SEED_004.name = "changed"


unit = st.floats(min_value=0, max_value=1)
features_strategy = st.builds(
    Features,
    relevance=unit,
    importance=unit,
    recency=unit,
    access=unit,
    recent_use=unit,
    feedback=st.floats(min_value=-1, max_value=1),
    graph=unit,
    time_decay=unit,
)
presets_strategy = st.builds(
    ScorePreset,
    name=st.just("any"),
    weights=st.dictionaries(st.sampled_from(FEATURES), st.floats(min_value=0.001, max_value=10), min_size=1),
)


@given(features=features_strategy, preset=st.one_of(st.sampled_from(list(PRESETS.values())), presets_strategy))
def test_scores_stay_within_the_weights(features: Features, preset: ScorePreset) -> None:
    total, parts = score(features, preset)
    assert 0.0 <= total <= preset.ceiling
    assert set(parts) == set(preset.weights)
    for name, part in parts.items():
        assert 0.0 <= part <= preset.weights[name]


@given(
    relevance=st.floats(min_value=-1, max_value=2),
    importance=unit,
    age_hours=st.integers(min_value=-1000, max_value=10**6),
    use_hours=st.one_of(st.none(), st.integers(min_value=-1000, max_value=10**6)),
    access=st.integers(min_value=0, max_value=10**6),
    distance=st.one_of(st.none(), st.integers(min_value=0, max_value=5)),
    kind=st.sampled_from(list(MemoryKind)),
)
def test_features_of_any_memory_scores_within_bounds(
    relevance: float,
    importance: float,
    age_hours: int,
    use_hours: int | None,
    access: int,
    distance: int | None,
    kind: MemoryKind,
) -> None:
    memory = item(
        kind,
        importance=importance,
        created_at=NOW - timedelta(hours=age_hours),
        access_count=access,
        last_access=None if use_hours is None else NOW - timedelta(hours=use_hours),
    )
    f = features_of(memory, relevance, NOW, graph_distance=distance)
    for preset in PRESETS.values():
        total, _ = score(f, preset)
        assert 0.0 <= total <= preset.ceiling


# --- roulette (seed 001 §2.4.4) -------------------------------------------------------------------


def test_roulette_is_deterministic_with_a_seed() -> None:
    items = ["a", "b", "c", "d", "e"]
    weights = [0.9, 0.5, 0.4, 0.2, 0.1]
    first = roulette(items, weights, 3, random.Random(2025))
    assert first == roulette(items, weights, 3, random.Random(2025))
    assert len(first) == len(set(first)) == 3


def test_roulette_higher_weights_win_more_often() -> None:
    rng = random.Random(42)
    items = ["rare", "some", "often"]
    weights = [1.0, 2.0, 7.0]
    counts = Counter(roulette(items, weights, 1, rng)[0] for _ in range(10_000))
    assert counts["often"] > counts["some"] > counts["rare"]
    for name, weight in zip(items, weights, strict=True):
        assert counts[name] / 10_000 == pytest.approx(weight / 10, abs=0.02)


def test_roulette_without_replacement_and_zero_weights() -> None:
    rng = random.Random(1)
    assert sorted(roulette(["a", "b", "c"], [1.0, 1.0, 1.0], 10, rng)) == ["a", "b", "c"]
    for _ in range(100):
        assert roulette(["x", "y", "z"], [0.0, 3.0, 0.0], 1, rng) == ["y"]
    assert roulette(["x", "y", "z"], [0.0, 0.0, 0.0], 2, rng) == ["x", "y"]
    assert roulette([], [], 3, rng) == []
    assert roulette(["a"], [1.0], 0, rng) == []
    with pytest.raises(ValueError):
        roulette(["a", "b"], [1.0], 1, rng)
    with pytest.raises(ValueError):
        roulette(["a"], [-1.0], 1, rng)


@given(
    weights=st.lists(st.floats(min_value=0, max_value=100), max_size=20),
    k=st.integers(min_value=0, max_value=25),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_roulette_properties(weights: list[float], k: int, seed: int) -> None:
    items = list(range(len(weights)))
    drawn = roulette(items, weights, k, random.Random(seed))
    assert drawn == roulette(items, weights, k, random.Random(seed))
    assert len(drawn) == min(k, len(items))
    assert len(set(drawn)) == len(drawn)
    # zero weights are drawn only after every positive weight is gone
    positive = [weights[i] > 0 for i in drawn]
    assert positive == sorted(positive, reverse=True)


def test_memorybank_is_a_forgetting_model_that_runs(tmp_path: Path) -> None:
    """Seed 003 at run time: a recall adds 1 to S and resets t; consolidation forgets what R = e^(−t/S) let go."""
    from huiyi import Memory
    from huiyi.config import Config
    from huiyi.providers.embed import HashEmbedder

    now = datetime.now().replace(microsecond=0)
    config = Config(worker={"enabled": False}, consolidate={"forget": {"model": "memorybank"}})
    with Memory(tmp_path, embedder=HashEmbedder(32), config=config, clock=lambda: now) as memory:
        kept = memory.remember("木木的猫叫团子", agent="祈煜", person="木木")
        faded = memory.remember("木木午饭吃了面条", agent="祈煜", person="木木")
        hits = memory.recall("木木的猫叫团子", agent="祈煜", person="木木", limit=1).hits
        assert [h.id for h in hits] == [kept.id]
        memory.core.reinforcer.flush()
        assert memory.get(kept.id, agent="祈煜").strength == 2.0  # S + 1 (seed 003), not +15
        # four days on: R(kept) = e^(−4/2) ≈ 0.14 stays, R(faded) = e^(−4/1) ≈ 0.02 goes (keep ≥ 0.05)
        report = memory.consolidate(agent="祈煜", person="木木", now=now + timedelta(days=4))
        gone = {i for change in report.changes if change.kind == "delete" for i in change.ids}
        assert gone == {faded.id}


def test_the_presets_and_default_params_made_without_validation_equal_their_validated_twins() -> None:
    """recall.score makes its constants without building a validator at import (issue 15)."""
    from huiyi.config.recall import SEED001_WEIGHTS, SEED004_WEIGHTS
    from huiyi.recall.score import DEFAULT_PARAMS, RELEVANCE, FeatureParams, ScorePreset

    twins = [
        (RELEVANCE, ScorePreset(name="relevance", weights={"relevance": 1.0})),
        (SEED_004, ScorePreset(name="seed004", weights=SEED004_WEIGHTS)),
        (SEED_001, ScorePreset(name="seed001", weights=SEED001_WEIGHTS)),
        (DEFAULT_PARAMS, FeatureParams()),
    ]
    for made, twin in twins:
        assert made == twin and made.model_fields_set == twin.model_fields_set
        assert made.model_dump() == twin.model_dump()
    assert SEED_004.weights is not SEED004_WEIGHTS and SEED_001.weights is not SEED001_WEIGHTS
    with pytest.raises(ValidationError):
        SEED_004.name = "changed"  # frozen, as validated ones are
