"""Two processes on one store never disagree about what was erased or corrected: a process whose caches
are warm sees every other process's erasure, edit and addition at its next call."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 1, 20, 0)
QUIET = Config(worker={"enabled": False})
SRC = Path(__file__).resolve().parents[1] / "src"

# the other process: opens the same store, runs the code given, closes
_OTHER = """
import sys
from datetime import datetime, timedelta
from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
T0 = datetime(2024, 11, 1, 20, 0)
with Memory(sys.argv[1], embedder=HashEmbedder(32), config=Config(worker={"enabled": False})) as memory:
"""


def _in_other_process(store: Path, code: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    script = _OTHER + textwrap.indent(textwrap.dedent(code), "    ")
    subprocess.run([sys.executable, "-c", script, str(store)], env=env, check=True, timeout=120)


def _texts(memory: Memory, query: str, person: str) -> list[str]:
    return [hit.text for hit in memory.recall(query, agent="a", person=person, limit=20).hits]


def test_a_person_erased_and_back_in_another_process_never_brings_their_old_memories_back(tmp_path: Path) -> None:
    # erasing a person's last memory drops their partition; its version must not start again where a
    # warm process's cache of the erased rows was read, or that process serves them as current
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        for i in range(3):
            line = {"text": f"我的暗号是 QZXSECRET{i}", "time": T0 + timedelta(minutes=i)}
            memory.add([line], agent="a", person="bob")
        assert any("QZXSECRET1" in text for text in _texts(memory, "暗号 QZXSECRET1", "bob"))  # caches warm
        _in_other_process(
            store,
            """
            memory.forget_person("bob", agent="a")
            for i in range(3):
                line = {"text": f"今天天气不错 QZXNEW{i}", "time": T0 + timedelta(days=1, minutes=i)}
                memory.add([line], agent="a", person="bob")
            """,
        )
        seen = _texts(memory, "暗号 QZXSECRET1", "bob")
        assert not any("QZXSECRET" in text for text in seen)
        assert any("QZXNEW2" in text for text in _texts(memory, "天气 QZXNEW2", "bob"))
        context = memory.context(agent="a", person="bob", message="暗号 QZXSECRET1")
        assert "QZXSECRET" not in context.text and context.recall is not None
        assert not any("QZXSECRET" in hit.text for hit in context.recall.hits)
