"""How a text is cut depends on the text and on the names of the scope being worked on, never on what
else the process has seen: one person's entities and names must not reshape another person's keywords,
and two processes on one store (or one after a restart) cut a query alike."""

from __future__ import annotations

import doctest
import importlib
import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Person, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.text import tokens

AGENT = "祈煜"
CONFIG = Config(recall={"reinforce": False}, worker={"maintenance_minutes": 0})
COMPANY = "杭州那家游戏公司"


BOBS = [f"我面试了{COMPANY}，下周出结果", "听说杭州有家游戏公司在招策划", "苏霓说她下个月去杭州跑马拉松"]


def _bobs_top(path: Path, query: str) -> tuple[list[tuple[str, float]], list[str]]:
    """bob's memories in a new store, and what recall finds first for his query there."""
    with Memory(path, embedder=HashEmbedder(64), config=CONFIG) as memory:
        for text in BOBS:
            memory.remember(text, agent=AGENT, person="bob")
        result = memory.recall(query, agent=AGENT, person="bob", limit=3)
    return [(hit.text, round(hit.score, 3)) for hit in result.hits], list(result.info.get("words", []))


def test_one_persons_entity_and_name_leave_another_persons_cuts_and_recall_alike(tmp_path: Path) -> None:
    text = f"{COMPANY}给我发offer了"
    cut_before = tokens.words(text)
    seen_before = [_bobs_top(tmp_path / "before", query) for query in ("杭州的游戏公司", f"{COMPANY}怎么样了")]
    with Memory(tmp_path / "alice", embedder=HashEmbedder(64), config=CONFIG) as memory:
        memory.create_entity(COMPANY, agent=AGENT, person="alice")  # alice's entity, alice's name
        memory.set_person(Person(id="alice", name="苏霓", aliases=["霓霓"]), agent=AGENT)
    assert tokens.words(text) == cut_before
    assert tokens.words("苏霓说她下个月去杭州") == ["苏霓", "说", "她", "下个月", "去", "杭州"]
    # bob's memories indexed, and his queries cut, after alice's entity: found as before it
    seen_after = [_bobs_top(tmp_path / "after", query) for query in ("杭州的游戏公司", f"{COMPANY}怎么样了")]
    assert seen_after == seen_before


def test_the_rerank_doctest_holds_after_names_were_taught(tmp_path: Path) -> None:
    # 吉他 as a learned name cut 电吉他很贵 as 电/吉他 for the whole process, and the doctest failed
    before = tokens.words("电吉他很贵")
    with Memory(tmp_path / "store", embedder=HashEmbedder(64), config=CONFIG) as memory:
        memory.create_entity("吉他", agent=AGENT, person="alice")
        memory.set_person(Person(id="bob", name="苏霓", aliases=["霓霓"]), agent=AGENT)
    scope = Scope.of_person(AGENT, "carol")
    said = Message(
        id="m1", agent=AGENT, space=scope.space_id, scope=scope, speaker="carol", role="user",
        text="我想学吉他", time=datetime(2024, 5, 1, 20), seq=0,
    )  # fmt: skip
    fold = Fold(
        agent=AGENT, space=scope.space_id, scope=scope, messages=[said], person="carol", aliases={"carol": ["吉他"]}
    )
    RuleExtractor().extract_sync(fold)  # the roster's names are the fold's alone
    assert tokens.words("电吉他很贵") == before
    result = doctest.testmod(importlib.import_module("huiyi.recall.rerank"), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


_QUERY_SCRIPT = """
import json, sys
from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.routes import query_terms
from huiyi.text import tokens
config = Config(recall={"reinforce": False}, worker={"maintenance_minutes": 0})
with Memory(sys.argv[1], embedder=HashEmbedder(64), config=config) as memory:
    if sys.argv[2] == "teach":
        memory.create_entity("杭州那家游戏公司", agent="祈煜", person="alice")
    result = memory.recall("杭州那家游戏公司怎么样了", agent="祈煜", person="alice", limit=3)
    print(json.dumps([result.info.get("words", []), tokens.words("我面试了杭州那家游戏公司")]))
"""


def test_two_processes_one_of_which_learned_a_name_cut_a_scopes_query_alike(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

    def run(mode: str) -> object:
        done = subprocess.run(
            [sys.executable, "-c", _QUERY_SCRIPT, store, mode], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    assert run("teach") == run("read")
