"""A long message of many clauses and times is read in time that follows its length: each clause looked at the
message's every time span (plans_in) and each 周末 read the rest of a message of commas (tense_zh's sentence),
so 3,000 clauses of 周末去露营 took 22 s where a tenth of that was read before; each 在 looked for its clause's
start in all the words before it (mentions), so 2,000 times 最近在追《繁花》， took 11 s. Counted, not timed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from huiyi.flows.extract.rules import cancels, mentions, moves, plans, plans_en
from huiyi.flows.extract.rules.extractor import _sentence
from huiyi.flows.extract.rules.said import Said
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


class _Reach:
    """A pattern that counts the characters its calls may read: how far a rule looks, not how long it takes."""

    def __init__(self, pattern: Any) -> None:
        self.pattern, self.read = pattern, 0

    def _looks(self, text: str, pos: int = 0, endpos: int | None = None) -> tuple[str, int, int]:
        end = len(text) if endpos is None else min(endpos, len(text))
        self.read += max(0, end - pos)
        return text, pos, end

    def search(self, *args: Any) -> Any:
        return self.pattern.search(*self._looks(*args))

    def match(self, *args: Any) -> Any:
        return self.pattern.match(*self._looks(*args))

    def fullmatch(self, *args: Any) -> Any:
        return self.pattern.fullmatch(*self._looks(*args))

    def finditer(self, *args: Any) -> Any:
        return self.pattern.finditer(*self._looks(*args))


def test_each_place_of_a_long_line_reads_its_own_clause(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each 在 looked for its clause's start in all the words before it (mentions._someone_elses): 2,000 times
    最近在追《繁花》， took 11 s of extraction, 8.3 s of it there."""
    marks = _Reach(mentions._CLAUSE_MARK)
    monkeypatch.setattr(mentions, "_CLAUSE_MARK", marks)
    text = "最近在追《繁花》，" * 400
    extract_private(Scope.of_person("bot", "木木"), (text,), TUESDAY)
    assert 0 < marks.read <= 4 * len(text)  # each word once a reading: not every word before each 在 (720,000)


def test_each_english_place_of_a_long_line_reads_its_own_clause(monkeypatch: pytest.MonkeyPatch) -> None:
    breaks = _Reach(mentions._EN_CLAUSE_BREAK)
    monkeypatch.setattr(mentions, "_EN_CLAUSE_BREAK", breaks)
    text = "My sister is in Boston, " * 400
    extract_private(Scope.of_person("bot", "Mumu"), (text,), TUESDAY, "en")
    assert 0 < breaks.read <= 4 * len(text)  # the text once a reading: not all of it before each place (1.9 M)


def test_a_long_line_of_moves_is_read_once_for_what_takes_them_back(monkeypatch: pytest.MonkeyPatch) -> None:
    taken_back = _Reach(moves._TAKEN_BACK)
    monkeypatch.setattr(moves, "_TAKEN_BACK", taken_back)
    text = "周末去露营，" * 400
    extract_private(Scope.of_person("bot", "木木"), (text,), TUESDAY)
    assert 0 < taken_back.read <= 2 * len(text)  # not the rest of the line after each clause (480,000)


class _Looked(list[Any]):
    """A list that counts how often it is read through, while ``reading`` says the rule under test runs."""

    reading = False

    def __init__(self, items: list[Any], looks: Counter[str], name: str) -> None:
        super().__init__(items)
        self.looks, self.name = looks, name

    def __iter__(self) -> Iterator[Any]:
        if _Looked.reading:
            self.looks[self.name] += 1
        return super().__iter__()


def test_each_clause_of_a_long_line_of_call_offs_asks_the_message_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each clause read all the message's facts (cancels: 我下周六搬 read by the plan rules) and each call-off
    all its time spans (the day it names, the one said before it)."""
    looks: Counter[str] = Counter()
    read = cancels.Cancels.read

    def counting(self: cancels.Cancels, said: Said) -> list[Any]:
        said.facts, said.spans = _Looked(said.facts, looks, "facts"), _Looked(said.spans, looks, "spans")
        _Looked.reading = True
        try:
            return read(self, said)
        finally:
            _Looked.reading = False

    monkeypatch.setattr(cancels.Cancels, "read", counting)
    clauses = 200
    extract_private(Scope.of_person("bot", "木木"), ("周六有事，聚餐取消了，" * clauses,), TUESDAY)
    assert 0 < looks["facts"] <= 2 and 0 < looks["spans"] <= 2  # not once a clause or call-off (200, 400)


def test_the_sentence_of_an_event_s_time_is_read_within_its_bounds() -> None:
    """Whether a time is only asked about (extractor._asks_only) read its sentence: a message of commas alone
    is one sentence, read again for each of its times."""
    text = "周末去露营，" * 500 + "明天见，" + "周末去露营，" * 500
    start, end = _sentence(text, "明天") or (0, len(text))
    assert end - start <= 402
    assert _sentence("我周末去露营。Are you free Monday? 好", "monday") == (7, 27)


def test_a_birthday_said_again_and_again_reads_each_phrase_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # 我生日是周六 said 4,000 times: 8,000 birthday facts each read 4,000 周六 for its date (8 s)
    from huiyi.flows.extract.rules import extractor

    given: list[int] = []
    dated = extractor.dated

    def counting(text: str, spans: list[Any], lang: str) -> str:
        given.append(len(spans))
        return dated(text, spans, lang)

    monkeypatch.setattr(extractor, "dated", counting)
    facts = extract_private(Scope.of_person("bot", "木木"), ("我生日是周六，" * 200,), TUESDAY).facts
    assert any("生日" in fact.description for fact in facts)
    assert given and sum(given) <= 4 * 200
