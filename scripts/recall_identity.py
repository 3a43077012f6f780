#!/usr/bin/env python3
"""Every hit and score of ~600 varied recalls, for checking that a speed change leaves rankings alone
(issue 15): run ``dump`` with ``PYTHONPATH`` pointing at each checkout in turn, then ``compare``.

    PYTHONPATH=src python scripts/recall_identity.py build /tmp/small            # once: the probe files' chats
    PYTHONPATH=src python scripts/recall_identity.py dump /tmp/store-100k /tmp/small out.json
    python scripts/recall_identity.py compare old.json new.json

``build`` ingests tests/data/probes_group_day.json (a group chat) and probes_companion_month.json (a
private chat) as ``huiyi eval probes`` does. ``dump`` copies every store first (recall reinforces what it
returns, so each run starts from the same bytes) and asks: on the bench-built store of
scripts/recall_stages.py, its 200 probes (Chinese and English, private scopes) and 200 variants naming a
time, saying 我/I, or with chat lines before; in the group chat, each probe by its asker, by another
member, without the @mention and with its context lines; in the private chat, each probe bare and with
its context. ``now`` is fixed for every recall, so two dumps of the same code are identical.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from huiyi.config import Config
from huiyi.evaluation import runner, synthetic
from huiyi.evaluation.bench.run import BenchOptions, make_bench_embedder
from huiyi.formats.probes import ProbeSet
from huiyi.memory import Memory
from huiyi.providers.embed import make_embedder

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CASES = {"group": "probes_group_day.json", "companion": "probes_companion_month.json"}
ZH_VARIANTS = ["上周{q}", "我之前跟你说过{q}", "{q}昨天我好像提过", "三月份的时候{q}"]
EN_VARIANTS = ["Last week, {q}", "Did I tell you before: {q}", "{q} I mentioned it yesterday", "In March, {q}"]
DIALOGUE = ["今天好累啊", "怎么了？", "上班的事"]


def _copy(source: Path, into: Path) -> Path:
    shutil.copytree(source, into)
    return into


def _hits(result: Any) -> list[Any]:
    return [[h.id, h.score, dict(sorted(h.route_scores.items()))] for h in result.hits]


def _small_config() -> Config:
    return Config()


def build(directory: Path) -> None:
    config = _small_config()
    embedder = runner.DiskCachedEmbedder(make_embedder(config.embed), directory / "vectors.sqlite")
    for name, file in CASES.items():
        probes = ProbeSet.load(DATA / file)
        with Memory(directory / name, config=config, embedder=embedder) as memory:
            for case in probes.cases:
                runner.ingest_case(memory, case)
    embedder.close()


def _big(store: Path, out: list[Any], vectors: Path) -> None:
    embedder, config, _ = make_bench_embedder(BenchOptions())
    cached = runner.DiskCachedEmbedder(embedder, vectors)  # the views' texts of a dialogue too
    probes = json.loads((store / "probes.json").read_text())
    asked: list[tuple[str, str, list[str]]] = [(p[0], p[1], []) for p in probes]
    for n, (person, query, _) in enumerate(probes):
        form = (EN_VARIANTS if query.isascii() else ZH_VARIANTS)[n % 4]
        asked.append((person, form.format(q=query), DIALOGUE if n % 5 == 0 else []))
    now = synthetic.REFERENCE_TIME
    with (
        tempfile.TemporaryDirectory(prefix="identity-") as scratch,
        Memory(_copy(store, Path(scratch) / "big"), config=config, embedder=cached) as memory,
    ):
        for person, query, dialogue in asked:
            result = memory.recall(
                query, agent=synthetic.AGENT, person=person, limit=10, now=now, dialogue=dialogue or None
            )
            out.append([f"big {person} {query} {len(dialogue)}", _hits(result)])
    cached.close()


def _small(directory: Path, out: list[Any]) -> None:
    config = _small_config()
    embedder = runner.DiskCachedEmbedder(make_embedder(config.embed), directory / "vectors.sqlite")
    with tempfile.TemporaryDirectory(prefix="identity-") as scratch:
        for name, file in CASES.items():
            probes = ProbeSet.load(DATA / file)
            with Memory(_copy(directory / name, Path(scratch) / name), config=config, embedder=embedder) as memory:
                for case in probes.cases:
                    members = list(dict.fromkeys(m.speaker for m in case.messages if m.role == "user"))
                    for n, probe in enumerate(case.probes):
                        space = runner.probe_space(case, probe) if name == "group" else None
                        context = [line.text for line in probe.context_lines()]
                        other = (
                            members[(members.index(probe.person) + 1) % len(members)]
                            if probe.person in members
                            else None
                        )
                        bare = probe.query.replace(f"@{case.agent}", "").strip()
                        forms: list[tuple[str | None, str, list[str]]] = [(probe.person, probe.query, [])]
                        if context:
                            forms.append((probe.person, probe.query, context))
                        if name == "group":
                            forms += [(other, probe.query, []), (probe.person, bare, [])]
                        for person, query, dialogue in forms:
                            result = memory.recall(
                                query,
                                agent=case.agent,
                                person=person,
                                space=space,
                                limit=10,
                                now=probe.time,
                                dialogue=dialogue or None,
                            )
                            out.append([f"{name} {probe.id} {person} {query} {len(dialogue)} {n}", _hits(result)])
    embedder.close()


def compare(old: Path, new: Path) -> None:
    a, b = json.loads(old.read_text()), json.loads(new.read_text())
    same = sum(x == y for x, y in zip(a, b, strict=False))
    print(f"{same} of {len(a)} recalls identical ({len(b)} in the second)")
    for x, y in zip(a, b, strict=False):
        if x != y:
            print("first difference:", x[0], "\n old", x[1][:3], "\n new", y[1][:3])
            break
    sys.exit(0 if same == len(a) == len(b) else 1)


def main() -> None:
    command = sys.argv[1]
    if command == "build":
        build(Path(sys.argv[2]))
    elif command == "dump":
        out: list[Any] = []
        _big(Path(sys.argv[2]), out, Path(sys.argv[3]) / "big-vectors.sqlite")
        _small(Path(sys.argv[3]), out)
        Path(sys.argv[4]).write_text(json.dumps(out, ensure_ascii=False))
        print(f"{len(out)} recalls, {sum(len(hits) for _, hits in out)} hits")
    elif command == "compare":
        compare(Path(sys.argv[2]), Path(sys.argv[3]))


if __name__ == "__main__":
    main()
