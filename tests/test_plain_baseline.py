"""The plain 0.3·BM25 + 0.7·dense baseline the MADial eval reports beside huiyi's figure (issue #17)."""

from __future__ import annotations

import doctest
import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from huiyi.evaluation import plain
from huiyi.evaluation.probes import Case, ContextLine, Probe, ProbeMemory, ProbeSet
from huiyi.faces.cli import app
from huiyi.providers.embed import HashEmbedder


def test_bm25_scores_the_rare_shared_term_and_nothing_else() -> None:
    docs = [Counter(["猫", "叫"]), Counter(["狗", "叫"]), Counter(["鱼"])]
    scores = plain.bm25(docs, Counter(["猫", "叫"]))
    assert scores[0] > scores[1] > scores[2] == 0.0
    assert plain.bm25(docs, Counter(["鸟"])).tolist() == [0.0, 0.0, 0.0]
    assert plain.bm25([], Counter(["猫"])).tolist() == []
    assert doctest.testmod(plain).failed == 0


def _case() -> ProbeSet:
    memories = [
        ProbeMemory(id="kite", text="在海边放风筝", person="u"),
        ProbeMemory(id="work", text="加班到很晚", person="u"),
        *(ProbeMemory(id=f"f{i}", text=f"第{i}次吃面条", person="u") for i in range(4)),
    ]
    probe = Probe(
        id="p",
        query="还有加班",
        context=[ContextLine(text="我想起海边放风筝的事"), ContextLine(text="是吗", role="assistant")],
        person="u",
        gold=["kite"],
    )
    return ProbeSet(name="t", cases=[Case(id="c", agent="bot", memories=memories, probes=[probe])])


def test_the_query_form_decides_what_the_baseline_reads() -> None:
    probes, embedder = _case(), HashEmbedder(256)
    (every,) = plain.run(probes, embedder, "all")
    assert every.ranked[0] == "kite"  # an earlier line names the beach, in more words than work
    assert len(every.ranked) == 6 and len(set(every.ranked)) == 6
    (latest,) = plain.run(probes, embedder, "query")
    assert latest.ranked[0] == "work"  # the latest line alone names only work
    # the dialogue form has no views here: the baseline reads every line
    assert plain.run(probes, embedder, "dialogue")[0].ranked == every.ranked


def test_madial_reports_the_baseline_in_the_same_run(tmp_path: Path) -> None:
    memories = tmp_path / "memory.jsonl"
    events = ["Bart在圣诞节晚会上跳舞。", "Bart赛跑第一名。", "Bart吃了冰淇淋。"]
    rows = [
        {str(i): {"time": f"2023-0{i}-01", "event": text, "user-id": 1, "id": str(i)}}
        for i, text in enumerate(events, 1)
    ]
    memories.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in rows), encoding="utf-8")
    lines = ["<BOD>\n", '<Bart>:"我又想跳舞了"\n', '<Assistant>:"好呀"\n', '<Bart>:"圣诞节那次"\n', "<EOD>\n"]
    dialogues = tmp_path / "dialogue.jsonl"
    dialogues.write_text(
        json.dumps({"dialogue": lines, "test-turn": [3], "relevant-id": [1], "user-id": 1, "id": 0}), encoding="utf-8"
    )
    config = tmp_path / "huiyi.toml"
    config.write_text('[embed]\nprovider = "hash"\n', encoding="utf-8")
    args = ["eval", "madial", str(memories), str(dialogues), "--json", "--config", str(config)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert set(payload["baseline"]) == {"plain all", "plain turn"}
    assert payload["baseline"]["plain all"]["R@1"] == 1.0  # every line: 跳舞 and 圣诞节 name memory 1
    assert set(payload["baseline"]["plain turn"]) == set(payload["metrics"])
    done = CliRunner().invoke(app, [*args, "--no-baseline"])
    assert done.exit_code == 0, done.output
    assert "baseline" not in json.loads(done.stdout)
