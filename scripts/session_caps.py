#!/usr/bin/env python3
"""Replay a per-session cap on recorded LoCoMo rankings: does spreading the top k over sessions help (issue #17)?

    python scripts/session_caps.py QUESTIONS.jsonl [--lists ../shared/eval/locomo/locomo_dev.json]

QUESTIONS.jsonl is what ``huiyi eval locomo ... --questions FILE`` writes (gold ids and the ids recalled,
in rank order). Each cap keeps at most ``cap`` turns of one session (``D<session>:<turn>``) in the order
until the rest of the recorded list runs out, the turns it held back following in their order; the
first hit is never moved. ``--lists DATA`` (the LoCoMo file, for the questions' text) applies it only
to questions that ask for a list ("What activities does X do?", "How many …", "… both …"): multi-hop
evidence is spread over sessions, while the top 10 is often spent on one session's turns. R@1/5/10 and
Hit@1 are printed overall (categories 1–4) and R@5/R@10 per category, for the recorded order and each
cap. The lists are as deep as the eval recorded them (30 ids): turns below cannot be brought up here.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

LIST_FORM = re.compile(
    r"^(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+)?[a-z]+s\s+(?:has|have|does|do|did|is|are|was|were)\b"
    r"|^how many\b|\bboth\b|^(?:what|which)\s.*\b(?:has|have)\s+\w+\s+\w+ed\b",
    re.IGNORECASE,
)


def capped(ranked: list[str], cap: int) -> list[str]:
    """``ranked`` with at most ``cap`` turns per session ahead of the held-back ones (the first stays).

    >>> capped(["D1:1", "D1:2", "D1:3", "D2:1"], 2)
    ['D1:1', 'D1:2', 'D2:1', 'D1:3']
    """
    kept: list[str] = []
    held: list[str] = []
    count: Counter[str] = Counter()
    for turn in ranked:
        session = turn.split(":")[0]
        if kept and count[session] >= cap:
            held.append(turn)
            continue
        kept.append(turn)
        count[session] += 1
    return kept + held


def score(rows: list[dict[str, Any]], order: Callable[[dict[str, Any]], list[str]]) -> str:
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        group = str(row["group"])
        if group == "5":
            continue
        gold = set(row["gold"])
        ranked = order(row)
        for k in (1, 5, 10):
            per[group][f"R@{k}"].append(len(set(ranked[:k]) & gold) / len(gold))
        per[group]["Hit@1"].append(float(bool(ranked) and ranked[0] in gold))
    names = ("R@1", "R@5", "R@10", "Hit@1")
    total = {name: sum(sum(per[g][name]) for g in per) / sum(len(per[g][name]) for g in per) for name in names}
    overall = " ".join(f"{name} {value:.3f}" for name, value in total.items())
    groups = " ".join(
        f"{g}: {sum(per[g]['R@5']) / len(per[g]['R@5']):.3f}/{sum(per[g]['R@10']) / len(per[g]['R@10']):.3f}"
        for g in sorted(per)
    )
    return f"{overall} | R@5/R@10 by category {groups}"


def main(argv: list[str]) -> None:
    with open(argv[1], encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    lists_only = "--lists" in argv
    questions: dict[str, str] = {}
    if lists_only:  # the questions file holds probe ids (conv-26:q15), not the questions themselves
        with open(argv[argv.index("--lists") + 1], encoding="utf-8") as file:
            data = json.load(file)
        questions = {f"{s['sample_id']}:q{i}": q["question"] for s in data for i, q in enumerate(s["qa"])}

    def applies(row: dict[str, Any]) -> bool:
        return not lists_only or bool(LIST_FORM.search(questions.get(str(row["probe"]), "")))

    print("recorded", score(rows, lambda row: list(row["ranked"])))
    for cap in (1, 2, 3, 4):

        def order(row: dict[str, Any], cap: int = cap) -> list[str]:
            return capped(row["ranked"], cap) if applies(row) else list(row["ranked"])

        print(f"cap {cap}", score(rows, order))


if __name__ == "__main__":
    main(sys.argv)
