"""A scheduled run killed (``kill -9``) while it saves a day's summaries on the day's last chance: the
next run, when the day has left the window, still finds the summaries saved or a job that writes them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from huiyi.model import JobState, MemoryKind, SummaryKind
from kill9_summary_child import AGENT, LAST_CHANCE, PERSON, SAID, open_memory

CHILD = Path(__file__).with_name("kill9_summary_child.py")
SRC = Path(__file__).resolve().parents[1] / "src"
CHAT: list[dict[str, object]] = [
    {"id": "u1", "text": "我下周三要考驾照，好紧张", "time": SAID - timedelta(hours=16)},
    {"id": "a1", "text": "别紧张，你一定能过的", "role": "assistant", "time": SAID - timedelta(hours=15)},
    {"id": "u2", "text": "我养了一只猫叫团子", "time": SAID - timedelta(hours=14)},
]


@pytest.mark.parametrize("point", ["enqueue", "delete", "save", "saved"])
def test_a_run_killed_saving_a_days_summaries_on_its_last_chance_loses_none(tmp_path: Path, point: str) -> None:
    with open_memory(str(tmp_path), SAID) as memory:
        memory.add(CHAT, agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        memory.run_jobs()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(CHILD.parent), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.run(
        [sys.executable, str(CHILD), str(tmp_path), point], capture_output=True, text=True, env=env, timeout=120
    )
    assert child.returncode in (0, -signal.SIGKILL), child.stderr
    with open_memory(str(tmp_path), LAST_CHANCE + timedelta(days=1)) as memory:  # 09-01 has left the window
        memory.maintain(catch_up=False)
        summaries = memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.SUMMARY])
        dailies = [s.summary.period for s in summaries if s.summary.kind is SummaryKind.DAILY]
        assert dailies == ["2024-09-01"]
        jobs = [job for job in memory.core.store.list_jobs() if job.kind == "summary"]
        assert all(job.state is JobState.DONE for job in jobs)
