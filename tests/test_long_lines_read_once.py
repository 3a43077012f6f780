"""A long message of many clauses and times is read in time that follows its length: each clause looked at the
message's every time span (plans_in) and each 周末 read the rest of a message of commas (tense_zh's sentence),
so 3,000 clauses of 周末去露营 took 22 s where a tenth of that was read before. Counted, not timed."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract.rules import plans, plans_en
from huiyi.model import Scope
from huiyi.text.tense_zh import sentence_around
from rule_lines import extract_private

TUESDAY = datetime(2024, 12, 3, 15, 0)


def test_a_sentence_of_commas_alone_is_read_within_its_bounds() -> None:
    text = "周末去露营，" * 1000
    assert len(sentence_around(text, len(text) // 2)) <= 400
    assert sentence_around("我周末去露营。你呢？", 1) == "我周末去露营"


def test_each_clause_of_a_long_message_looks_at_each_phrase_once(monkeypatch: pytest.MonkeyPatch) -> None:
    looked: list[str] = []
    counted = plans._counted

    def counting(text: str, span: plans.TimeSpan) -> bool:
        looked.append(span.phrase)
        return counted(text, span)

    monkeypatch.setattr(plans, "_counted", counting)
    clauses = 200
    extract_private(Scope.of_person("bot", "木木"), ("我周末去露营，" * clauses,), TUESDAY)
    assert 0 < len(looked) <= 2 * clauses  # one phrase, 周末: not one look per clause and span (40,000)


def test_each_english_clause_looks_at_each_phrase_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """English plans read every span of the message for each clause, and cut each from the plan: 3,000 times
    "I'm flying to Osaka next Monday." took 34 s (1.6 s read once a phrase)."""
    cut: list[str] = []
    cut_time = plans_en._cut_time

    def counting(what: str, phrase: str) -> str:
        cut.append(phrase)
        return cut_time(what, phrase)

    monkeypatch.setattr(plans_en, "_cut_time", counting)
    clauses = 200
    text = "I'm moving my meeting from Monday to Friday. " * clauses
    extract_private(Scope.of_person("bot", "Mumu"), (text,), TUESDAY, "en")
    assert 0 < len(cut) <= 2 * clauses  # two phrases a clause: not one cut per clause and span (80,000)
