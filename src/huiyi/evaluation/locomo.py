"""LoCoMo (Maharana et al., ACL 2024) into the probe format: turn-level evidence recall.

Each conversation becomes one case: its two speakers talk in one space (neither is the agent), each
turn a message from its speaker at its session's time, with ``[shares <caption>]`` appended when the
turn shared an image. Each question becomes a probe asked after the last session, with its evidence
ids as gold, normalised (``D:11:26``, ``D8:6; D9:17`` and the like) and kept only if the turn exists;
questions left without gold are skipped. Categories are the groups; 5 (adversarial) is reported apart.

    >>> normalise_evidence(["D8:6; D9:17", "D:11:026", "D"], {"D8:6", "D9:17", "D11:26"})
    ['D8:6', 'D9:17', 'D11:26']
    >>> parse_session_time("1:56 pm on 8 May, 2023")
    datetime.datetime(2023, 5, 8, 13, 56)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from huiyi.evaluation.probes import Case, Probe, ProbeMessage, ProbeSet

GOLD_ID = re.compile(r"D:?(\d+):0*(\d+)")
SESSION_KEY = re.compile(r"session_(\d+)")
SESSION_TIME_FORMAT = "%I:%M %p on %d %B, %Y"
CATEGORIES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}
APART = ["5"]  # adversarial questions have no answer in the chat; reported on their own
AGENT = "observer"  # LoCoMo's two speakers are both people; the agent only listens
ASKED_AFTER = timedelta(days=1)  # questions are asked this long after the last session


def parse_session_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), SESSION_TIME_FORMAT)


def normalise_evidence(evidence: Iterable[str], existing: set[str]) -> list[str]:
    """Evidence strings → turn ids ``D<session>:<turn>`` that exist, in order, each once."""
    out: list[str] = []
    for raw in evidence:
        for session, turn in GOLD_ID.findall(str(raw)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id in existing and dia_id not in out:
                out.append(dia_id)
    return out


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", ""))
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares {caption}]"
    return text


def conversation_case(sample: dict[str, Any], index: int = 0) -> Case:
    conversation = sample["conversation"]
    case_id = str(sample.get("sample_id") or f"conv-{index}")
    sessions = sorted(
        (int(match.group(1)), value)
        for key, value in conversation.items()
        if (match := SESSION_KEY.fullmatch(key)) and isinstance(value, list)
    )
    messages: list[ProbeMessage] = []
    last_time: datetime | None = None
    for number, turns in sessions:
        when = parse_session_time(conversation[f"session_{number}_date_time"])
        last_time = when if last_time is None else max(last_time, when)
        for turn in turns:
            text = turn_text(turn)
            if not text.strip():
                continue
            messages.append(
                ProbeMessage(id=str(turn["dia_id"]), space=case_id, speaker=str(turn["speaker"]), text=text, time=when)
            )
    existing = {m.id for m in messages}
    asked = (last_time or datetime(2000, 1, 1)) + ASKED_AFTER
    probes: list[Probe] = []
    for number, qa in enumerate(sample.get("qa", [])):
        gold = normalise_evidence(qa.get("evidence", []), existing)
        if not gold:
            continue
        probes.append(
            Probe(
                id=f"{case_id}:q{number}",
                query=str(qa["question"]),
                space=case_id,
                time=asked,
                gold=gold,
                group=str(qa.get("category", "")),
            )
        )
    return Case(id=case_id, agent=AGENT, language="en", messages=messages, probes=probes)


def load(path: str | Path) -> ProbeSet:
    """A LoCoMo JSON file (a list of conversations) as a probe set."""
    samples = json.loads(Path(path).read_text(encoding="utf-8"))
    cases = [conversation_case(sample, index) for index, sample in enumerate(samples)]
    return ProbeSet(name="locomo", cases=cases, apart=APART)
