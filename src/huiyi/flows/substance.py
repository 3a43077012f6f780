"""What a recap keeps: the events that say something of the person, not the routine of their days.

A month of chat repeats itself (麻辣烫有点咸, a 段子, 下雨, 好累) and the agent signs off the same way every
night (祈煜说：辛苦了，早点休息。). Without an LLM each such event is as important as 还是很想豆豆 or
今天把它的窝收起来了 (the rule extractor reads no weight into them), so a choice by importance, then the
latest, kept the routine. A daily summary's highlights and topics and the overview (前情提要) weigh
events and words by two rules instead:

- **Words said on the person's other days weigh less**, as TF-IDF weighs a word against other documents:
  a topic's score is multiplied by the share of the days that did not say it (:meth:`Days.rarity`); an
  event's novelty is the mean share of the other days its words were not said on (:meth:`Days.novelty`).
  With no other day to compare, every word weighs the same and nothing changes.
- **The agent's lines alone say little of the person**: such an event counts half its importance
  (:func:`agent_alone`: every message it cites is the agent's, whoever worded it, or its rule-written text
  tells only the agent's turn); a promise of the agent's still outweighs a pleasantry by what it says.

    >>> days = Days.of([(date(2024, 9, 1), "麻辣烫，段子"), (date(2024, 9, 2), "麻辣烫，豆豆")])
    >>> days.novelty("麻辣烫", date(2024, 9, 3)), days.novelty("豆豆的窝", date(2024, 9, 3))
    (0.0, 0.75)
    >>> round(weight(0.3, 0.75), 3), weight(0.3, 0.0, alone=True)
    (0.525, 0.15)
    >>> agent_alone("祈煜说：辛苦了，早点休息。", "祈煜", ["木木"])
    True
    >>> agent_alone("木木说：好累。祈煜说：辛苦了。", "祈煜", ["木木"])
    False
    >>> agent_alone("祈煜叮嘱木木早点休息。", "祈煜", ["木木"], by_agent=[True])
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, tzinfo

from huiyi.checks import wall_of
from huiyi.model import MemoryItem
from huiyi.text.tokens import content_words

__all__ = ["NOVELTY", "RECAP_DEPTH", "Days", "agent_alone", "recap", "weight"]

NOVELTY = 0.3  # how far an event of wholly new words outweighs one of routine words (importance is 0–1)
RECAP_DEPTH = 3  # the overview chooses among this many times its size of the latest events


@dataclass
class Days:
    """The words of each day (casefolded), to weigh a word or an event of one day against the others."""

    words: dict[date, set[str]] = field(default_factory=dict)
    names: tuple[str, ...] = ()  # who spoke: 木木说 says nothing of a day
    _cut: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, said: Iterable[tuple[date, str]], names: Iterable[str] = ()) -> Days:
        """From ``(day, text)`` pairs: the content words of each text (no stopwords, no ``names``)."""
        days = cls(names=tuple(names))
        for day, text in said:
            days.words.setdefault(day, set()).update(days.words_of(text))
        return days

    def words_of(self, text: str) -> list[str]:
        # each event's text is cut once per Days (of(), then novelty()); the speakers' names whole, then out
        if (known := self._cut.get(text)) is None:
            known = self._cut[text] = [word.casefold() for word in content_words(text, self.names, self.names)]
        return known

    def _others(self, day: date) -> list[set[str]]:
        return [words for other, words in self.words.items() if other != day]

    def rarity(self, word: str, day: date) -> float:
        """The share of the days (``day`` and the others) that did not say ``word``: 1 for a word of this day
        alone, 1 / (D + 1) for one every other day said too (a day's topics: its own words first)."""
        others = self._others(day)
        said = sum(1 for words in others if word.casefold() in words)
        return (len(others) + 1 - said) / (len(others) + 1)

    def novelty(self, text: str, day: date) -> float:
        """The mean share of the other days that did not say each content word of ``text``; 0 with no word
        or no other day (nothing to tell them apart by)."""
        others = self._others(day)
        folded = self.words_of(text)
        if not others or not folded:
            return 0.0
        shares = [sum(1 for said in others if word not in said) / len(others) for word in folded]
        return sum(shares) / len(shares)


def weight(importance: float, novelty: float, alone: bool = False) -> float:
    return (importance / 2 if alone else importance) + NOVELTY * novelty


def agent_alone(text: str, agent: str, others: Iterable[str], by_agent: Sequence[bool] = ()) -> bool:
    """Whether an event tells only the agent's lines: every message it cites that is known (``by_agent``:
    whether each was the agent's) is the agent's, however an LLM worded it; or its text, the rule
    extractor's ``X说：…`` / ``X said: …`` turns, starts with the agent's turn and no one else's turn follows
    (a 嗯嗯 of the person's it cites is not told)."""
    if by_agent and all(by_agent):
        return True
    if not text.startswith((f"{agent}说：", f"{agent} said: ")):
        return False
    return not any(f"{name}说：" in text or f"{name} said: " in text for name in others if name and name != agent)


def _said_day(item: MemoryItem, zone: tzinfo) -> date | None:
    when = item.said_at or item.time or wall_of(item.created_at, zone)
    return when.date() if when else None


def recap(
    latest: list[MemoryItem],
    agent: str,
    size: int,
    by_agent: Mapping[str, bool] | None = None,
    zone: tzinfo = UTC,
) -> list[MemoryItem]:
    """The overview (前情提要): of ``latest`` (the space's ``RECAP_DEPTH`` × ``size`` latest events, newest
    said first), the ``size`` that weigh most, the latest first among equals; in the order they were said.
    Their days are weighed against each other: what a recap of a few days repeats is routine.
    ``by_agent``: message id -> whether the agent said it, for the messages the events cite. Days are the
    wall clock's of ``zone`` (the configured timezone; ``created_at`` is UTC)."""
    spoken = by_agent or {}
    names = {agent, *(name for item in latest for name in item.participants)}
    days = Days.of(((day, item.text) for item in latest if (day := _said_day(item, zone)) is not None), names)

    def weighed(item: MemoryItem) -> float:
        day = _said_day(item, zone)
        novelty = days.novelty(item.text, day) if day else 0.0
        cited = [spoken[source] for source in item.sources if source in spoken]
        return weight(item.importance, novelty, agent_alone(item.text, agent, item.participants, cited))

    order = {item.id: rank for rank, item in enumerate(latest)}
    chosen = {item.id for item in sorted(latest, key=lambda item: (-round(weighed(item), 6), order[item.id]))[:size]}
    return [item for item in reversed(latest) if item.id in chosen]
