"""The evaluation harness: converters, the scorer's arithmetic, and a run end to end (hash embedder)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from huiyi.config import Config
from huiyi.evaluation import locomo, madial, runner
from huiyi.evaluation.probes import ContextLine, Probe, ProbeResult, ProbeSet, hit_at, ranked_ids, recall_at, report
from huiyi.faces.cli import app

# tiny hand-written fixtures, one per format ------------------------------------------------------

LOCOMO: list[dict[str, Any]] = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit yesterday."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely! Look at this.", "blip_caption": "a red kite"},
            ],
            "session_2_date_time": "9:05 am on 1 June, 2023",
            "session_2": [
                {"speaker": "Bob", "dia_id": "D2:1", "text": "I started learning the violin."},
                {"speaker": "Ann", "dia_id": "D2:2", "text": "Biscuit chewed my shoes again."},
            ],
            # an extra date key with no session, as one real conversation has
            "session_3_date_time": "10:00 am on 2 June, 2023",
        },
        "qa": [
            {"question": "What is the name of Ann's puppy?", "answer": "Biscuit", "evidence": ["D1:1"], "category": 4},
            {"question": "What did Bob share?", "answer": "a kite", "evidence": ["D:1:02"], "category": 1},
            {"question": "What do Ann and Bob do?", "answer": "-", "evidence": ["D1:1; D2:1"], "category": 2},
            {"question": "Broken evidence", "answer": "-", "evidence": ["D", "D9:9"], "category": 3},
            {"question": "What is Bob's cat called?", "adversarial_answer": "Tom", "evidence": ["D2:1"], "category": 5},
        ],
    }
]

MADIAL_MEMORIES = [
    {"1": {"time": "2023-12-25", "scene": "活动类", "emotion": "开心", "event": "Bart在圣诞节晚会上跳舞。",
           "user-id": 1, "id": "1"}},
    {"2": {"time": "2023-03-07", "scene": "活动类", "emotion": "开心", "event": "Bart赛跑第一名。",
           "user-id": 1, "id": "2"}},
    {"3": {"time": "2024-01-02", "scene": "喜好类", "emotion": "开心", "event": "Lisa吃了芒果冰淇淋。",
           "user-id": 2, "id": "3"}},
]  # fmt: skip
MADIAL_DIALOGUES = [
    {
        "dialogue": [
            "<BOD>\n",
            '<Bart>:"元旦晚会我要表演魔术！"\n',
            '<Assistant>:"真是太棒了！"\n',
            '<Bart>:"我想让那天晚上变得很特别！"\n',
            '<Assistant>:"你记得去年圣诞节晚会上你跳舞的时候吗？"\n',
            "<EOD>\n",
        ],
        "test-turn": [4],
        "relevant-id": [1, 3],  # 3 is another user's memory: outside the pool, dropped
        "user-id": 1,
        "id": 0,
    }
]

PROBES: dict[str, Any] = {
    "name": "tiny",
    "apart": ["unanswerable"],
    "cases": [
        {
            "id": "c1",
            "agent": "AI",
            "language": "zh",
            "messages": [
                {"id": "m1", "space": "s1", "speaker": "木木", "role": "user", "text": "我下周三要考驾照",
                 "time": "2023-04-27T20:00:00"},
                {"id": "m2", "space": "s1", "speaker": "AI", "role": "assistant", "text": "加油！",
                 "time": "2023-04-27T20:01:00"},
                {"id": "m3", "space": "s1", "speaker": "木木", "role": "user", "text": "我养了一只橘猫叫大黄",
                 "time": "2023-04-28T09:00:00"},
            ],
            "memories": [
                {"id": "x1", "person": "木木", "text": "木木喜欢莫兰迪色系", "time": "2023-04-01T00:00:00",
                 "kind": "fact"}
            ],
            "probes": [
                {"id": "q1", "query": "我下周三要考驾照", "person": "木木", "time": "2023-05-07T12:00:00",
                 "gold": ["m1"], "group": "single"},
                {"id": "q2", "query": "木木喜欢莫兰迪色系", "person": "木木", "time": "2023-05-07T12:00:00",
                 "gold": ["x1"], "group": "single"},
                {"id": "q3", "query": "我的宠物", "person": "木木", "time": "2023-05-07T12:00:00",
                 "gold": ["nope"], "group": "unanswerable"},
            ],
        }
    ],
}  # fmt: skip


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n", encoding="utf-8")
    return path


def _hash_config(tmp_path: Path) -> Path:
    path = tmp_path / "huiyi.toml"
    path.write_text('[embed]\nprovider = "hash"\n', encoding="utf-8")
    return path


# the scorer --------------------------------------------------------------------------------------


def test_ranked_ids_walk_items_in_rank_order_and_keep_each_id_once() -> None:
    assert ranked_ids([["D3", "D2"], ["D2", "D1"], [], ["D3", "D9"]]) == ["D3", "D2", "D1", "D9"]


def test_recall_and_hit_arithmetic() -> None:
    ranked = ["a", "b", "c", "d", "e", "f"]
    assert recall_at(ranked, ["b", "e", "z"], 1) == 0.0
    assert recall_at(ranked, ["b", "e", "z"], 2) == pytest.approx(1 / 3)
    assert recall_at(ranked, ["b", "e", "z"], 5) == pytest.approx(2 / 3)
    assert recall_at(ranked, ["b", "b", "e"], 5) == 1.0  # gold is a set
    assert hit_at(ranked, ["e"], 4) == 0.0
    assert hit_at(ranked, ["e"], 5) == 1.0
    with pytest.raises(ValueError):
        recall_at(ranked, [], 5)


def test_report_means_overall_per_group_and_apart() -> None:
    results = [
        ProbeResult("c", "p1", "1", ["a", "b"], ["a", "x", "y", "b"]),  # R@1 .5, R@3 .5, R@5 1
        ProbeResult("c", "p2", "1", ["z"], ["a", "b", "c"]),  # 0 everywhere
        ProbeResult("c", "p3", "2", ["c"], ["a", "b", "c"]),  # R@1 0, R@3 1
        ProbeResult("c", "p4", "5", ["a"], ["a"]),  # apart: not in the overall figure
    ]
    result = report(results, apart=["5"], recall_ks=(1, 3, 5), hit_ks=(1, 5))
    assert result.overall.n == 3
    assert result.overall.metrics == {
        "R@1": round(0.5 / 3, 4),
        "R@3": 0.5,
        "R@5": round(2 / 3, 4),
        "Hit@1": round(1 / 3, 4),
        "Hit@5": round(2 / 3, 4),
    }
    assert list(result.groups) == ["1", "2", "5"]
    assert result.groups["1"].n == 2
    assert result.groups["1"].metrics["R@5"] == 0.5
    assert result.groups["2"].metrics["R@3"] == 1.0
    assert result.groups["5"].metrics["R@1"] == 1.0


# converters --------------------------------------------------------------------------------------


def test_locomo_conversion(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO), encoding="utf-8")
    probes = locomo.load(path)
    assert probes.apart == ["5"]
    (case,) = probes.cases
    assert [m.id for m in case.messages] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert case.messages[1].text == "Lovely! Look at this. [shares a red kite]"
    assert case.messages[0].time == datetime(2023, 5, 8, 13, 56)
    assert case.messages[2].time == datetime(2023, 6, 1, 9, 5)
    assert {m.space for m in case.messages} == {"conv-x"}
    # the question without existing gold is skipped; typos and lists are normalised
    assert [(p.gold, p.group) for p in case.probes] == [
        (["D1:1"], "4"),
        (["D1:2"], "1"),
        (["D1:1", "D2:1"], "2"),
        (["D2:1"], "5"),
    ]
    assert all(p.time == datetime(2023, 6, 2, 9, 5) for p in case.probes)  # after the last session


def test_madial_conversion(tmp_path: Path) -> None:
    memories = _jsonl(tmp_path / "memory.jsonl", MADIAL_MEMORIES)
    dialogues = _jsonl(tmp_path / "dialogue.jsonl", MADIAL_DIALOGUES)
    probes = madial.load(memories, dialogues)
    (case,) = probes.cases
    assert [m.id for m in case.memories] == ["2", "1"]  # the user's own pool, oldest first
    assert all(m.person == "Bart" and m.kind == "event" for m in case.memories)
    assert case.memories[1].data == {"scene": "活动类", "emotion": "开心"}
    (probe,) = case.probes
    assert probe.query == "我想让那天晚上变得很特别！"
    assert [(c.role, c.text) for c in probe.context_lines()] == [
        ("user", "元旦晚会我要表演魔术！"),
        ("assistant", "真是太棒了！"),
    ]
    assert probe.gold == ["1"]
    assert probe.person == "Bart"
    assert probe.time == datetime(2023, 12, 26)


def test_madial_memories_without_user_ids_take_them_from_the_pools_file(tmp_path: Path) -> None:
    # MADial's English memories carry no user-id; the Chinese file holds the same ids with theirs
    english = [
        {key: {k: v for k, v in value.items() if k not in ("user-id", "id")} | {"event": f"event {key}"}}
        for row in MADIAL_MEMORIES
        for key, value in row.items()
    ]
    memories = _jsonl(tmp_path / "memory-en.jsonl", english)
    pools = _jsonl(tmp_path / "memory-zh.jsonl", MADIAL_MEMORIES)
    dialogues = _jsonl(tmp_path / "dialogue.jsonl", MADIAL_DIALOGUES)
    with pytest.raises(ValueError, match="--pools"):
        madial.load(memories, dialogues)
    (case,) = madial.load(memories, dialogues, pools=pools).cases
    assert [(m.id, m.text) for m in case.memories] == [("2", "event 2"), ("1", "event 1")]  # Bart's pool only
    done = CliRunner().invoke(app, ["eval", "madial", str(memories), str(dialogues), "--json"])
    assert done.exit_code == 2 and "--pools" in done.output and "Traceback" not in done.output


def test_query_forms() -> None:
    probe = Probe(
        id="p",
        query="u2",
        context=[ContextLine(text="u1"), ContextLine(text="a1", role="assistant")],
        gold=["x"],
    )
    assert runner.compose_query(probe, "turn") == "a1\nu2"
    assert runner.compose_query(probe, "all") == "u1\na1\nu2"
    assert runner.compose_query(probe, "query") == "u2"
    assert runner.compose_query(probe.model_copy(update={"context": ["u0"]}), "turn") == "u2"


# end to end --------------------------------------------------------------------------------------


def test_probe_run_end_to_end(tmp_path: Path) -> None:
    probes = ProbeSet.model_validate(PROBES)
    config = Config.load(_hash_config(tmp_path))
    results = runner.run(probes, config, workdir=tmp_path)
    by_id = {r.probe: r for r in results}
    assert by_id["q1"].ranked[0] == "m1"  # the same words, the same characters: first
    assert by_id["q2"].ranked[0] == "x1"  # a pre-existing memory's id is its provenance
    # a summary cites the summaries, events and facts it was made from; every other id is the case's
    cited = {i for i in by_id["q1"].ranked if not i.startswith(("sum_", "ev_", "fa_"))}
    assert cited <= {"m1", "m2", "m3", "x1"}
    result = report(results, probes.apart)
    assert result.overall.n == 2
    assert result.overall.metrics["R@1"] == 1.0
    assert result.groups["unanswerable"].metrics["R@10"] == 0.0


def test_cli_json(tmp_path: Path) -> None:
    cli = CliRunner()
    config = _hash_config(tmp_path)
    probe_file = tmp_path / "probes.json"
    probe_file.write_text(json.dumps(PROBES, ensure_ascii=False), encoding="utf-8")
    done = cli.invoke(app, ["eval", "probes", str(probe_file), "--json", "--config", str(config)])
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert payload["dataset"] == "tiny" and payload["n"] == 2
    assert set(payload["metrics"]) == {"R@1", "R@3", "R@5", "R@10", "Hit@1", "Hit@5"}
    assert payload["ingest"] == "session"
    assert payload["per_group"]["unanswerable"]["n"] == 1
    assert payload["config"]["embed"]["provider"] == "hash"

    locomo_file = tmp_path / "locomo.json"
    locomo_file.write_text(json.dumps(LOCOMO), encoding="utf-8")
    done = cli.invoke(app, ["eval", "locomo", str(locomo_file), "--json", "--config", str(config), "--limit", "1"])
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert payload["n"] == 3 and set(payload["metrics"]) == {"R@1", "R@5", "R@10", "Hit@1"}
    assert payload["per_category"]["5"]["n"] == 1
    assert payload["metrics"]["R@5"] == 1.0  # four turns: every gold turn is within the first five
    assert set(payload) >= {"dataset", "file", "n", "metrics", "per_category", "seconds", "config"}

    # --questions: one line per question, each gold id with its rank among the ids recalled
    lines = tmp_path / "questions.jsonl"
    done = cli.invoke(
        app, ["eval", "locomo", str(locomo_file), "--json", "--config", str(config), "--questions", str(lines)]
    )
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 4 and {row["group"] for row in rows} == {"1", "2", "4", "5"}
    for row in rows:
        assert set(row["gold_ranks"]) == set(row["gold"])
        for gold, rank in row["gold_ranks"].items():
            assert rank is None or row["ranked"][rank] == gold

    memories = _jsonl(tmp_path / "memory.jsonl", MADIAL_MEMORIES)
    dialogues = _jsonl(tmp_path / "dialogue.jsonl", MADIAL_DIALOGUES)
    done = cli.invoke(app, ["eval", "madial", str(memories), str(dialogues), "--json", "--config", str(config)])
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert payload["n"] == 1 and "per_category" not in payload
    assert payload["metrics"]["R@10"] == 1.0 and payload["metrics"]["Hit@5"] == 1.0


# the recall mechanisms the harness measured -------------------------------------------------------


def test_docstring_examples_of_the_harness_and_recall() -> None:
    import doctest

    from huiyi.evaluation import probes as probes_module
    from huiyi.recall import rerank

    for module in (probes_module, locomo, madial, rerank):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_rerank_prefers_the_named_speaker_and_the_named_day(tmp_path: Path) -> None:
    from huiyi.memory import Memory

    config = Config.load(_hash_config(tmp_path), chunk={"context_turns": 0})
    may, june = datetime(2023, 5, 8, 13, 0), datetime(2023, 6, 1, 9, 0)
    messages = [
        {"id": "a1", "speaker": "Ann", "text": "I painted a lake at sunrise", "time": may},
        {"id": "b1", "speaker": "Bob", "text": "I painted a lake at sunrise", "time": may},
        {"id": "a2", "speaker": "Ann", "text": "I bought a red kite", "time": june},
        {"id": "b2", "speaker": "Bob", "text": "I bought a red kite", "time": june},
    ]
    asked = datetime(2023, 7, 1)
    with Memory(tmp_path / "store", config=config) as memory:
        memory.add(messages, agent="AI", space="chat")
        found = memory.recall("What did Bob paint?", agent="AI", space="chat", limit=2, now=asked)
        assert found.hits[0].sources == ["b1"]
        assert found.info["bonuses"][found.hits[0].id]["speaker"] == config.recall.speaker_weight
        found = memory.recall("What did they buy on 1 June, 2023?", agent="AI", space="chat", limit=4, now=asked)
        assert {s for hit in found.hits[:2] for s in hit.sources} == {"a2", "b2"}
        assert found.info["time_span"][0] == "2023-06-01T00:00:00"


def test_recall_does_not_depend_on_how_messages_are_batched() -> None:
    """The companion month ingested one session per call, one message per call and all at once: same ranks."""
    from huiyi.config import Config
    from huiyi.evaluation import runner
    from huiyi.evaluation.probes import ProbeSet

    probes = ProbeSet.load(Path(__file__).parent / "data" / "probes_companion_month.json")
    config = Config(embed={"provider": "hash"})
    # names learned by extraction join the process-wide segmenter; learn them once so every run cuts alike
    runner.run(probes, config)
    ranked = {
        batching: [(r.probe, r.ranked[:10]) for r in runner.run(probes, config, batching=batching)]
        for batching in runner.BATCHINGS
    }
    assert ranked["session"] == ranked["bulk"]
    assert ranked["session"] == ranked["turn"]
