"""The latest arrangement of a plan leads, and a question about how things ended finds the change.

In a group a plan is arranged over hours: 后天晚上…去安吉看 (the announcement), 改去临安的大明山了 (a
change), 后天晚上九点西溪湿地集合 (the final arrangement). The first says most of the question's words, so
it led "这周六夜里去看流星，几点在哪儿集合", and "最后去的是哪座山" found the announcement, not the change
(issue #13: pl5, cf6). Two rules, without an LLM:

- **The newest arrangement inherits the plan's place** (:func:`inherited`). A question about a time to come
  (后天, 明晚, 这周六) names the plan's time; a speaker's lines that name a time in it are that speaker's
  arrangements of it. The newest of them that fixes something (a clock time, a change) takes the best
  score among them, a hair above: it is what holds now. Lines of other speakers, and lines that name no
  time in the span, are left as they are.
- **A final-state question prefers the change** (:func:`changes`). "最后/最终/到底/后来/改到哪" asks how a
  thing ended: a line that announces a change or a decision (改到, 换成, 定了, 推迟, 取消) gains
  ``weight``.

    >>> asks_final("九溪那次爬山最终改到哪天了"), asks_final("明晚给我接风最后定的吃什么"), asks_final("阿木的店在哪")
    (True, True, False)
    >>> asks_final("它现在只能吃哪种饭来着"), asks_final("我现在好累")
    (True, False)
    >>> revises("改去临安的大明山了"), revises("明晚的事定了：改成烧烤"), revises("我也去")
    (True, True, False)
    >>> arranges("后天晚上九点西溪湿地集合"), arranges("时间还是七点半"), arranges("明晚见老K")
    (True, True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from huiyi.model import MemoryKind
from huiyi.patterns import lazy
from huiyi.store.base import RankRow

__all__ = ["arranges", "asks_final", "changes", "inherited", "revises", "speaker_of"]

Window = list[tuple[int, tuple[float, dict[str, float]]]]

# how a thing ended: 最后/最终/到底/后来, 改到哪/改成啥, 定的/定了 (in a question)
_FINAL = lazy(r"最后|最终|到底|后来|结果|改到|改成|改去|改在|定的|定了|定在|敲定")
_NOW = lazy(r"现在|目前|如今|最新")
_ASKS = lazy(r"[?？]|吗|呢|什么|啥|哪|几|多少|怎么|怎样|谁")
# a line that changes or settles an arrangement
_REVISES = lazy(
    r"改到|改成|改去|改在|改为|改了|换到|换成|换去|换了|推迟|推到|往后推|延期|延后|提前到|提前了|"
    r"定了|定在|敲定|更正|取消|泡汤|不去了|作废"
)
_CLOCK = lazy(r"(?:\d{1,2}|[一二三四五六七八九十两]{1,3})[点時时](?:半|\d{1,2}分?|[一二三四五]刻)?|\d{1,2}[:：]\d{2}")
INHERIT_DEPTH = 30  # the best candidates a plan's arrangements are looked for among
STEP = 1e-3  # how far above the plan's best the newest arrangement goes


def asks_final(query: str) -> bool:
    """Whether the question (its last line) asks how something ended (最后, 最终, 到底, 改到哪, 定的) or how
    it is now (现在, 目前, 最新: in a question only; 我现在好累 asks nothing)."""
    last = query.strip().rsplit("\n", 1)[-1]
    return _FINAL.search(last) is not None or (_NOW.search(last) is not None and _ASKS.search(last) is not None)


def revises(text: str) -> bool:
    """Whether a line changes or settles an arrangement (改到, 换成, 定了, 推迟, 取消)."""
    return _REVISES.search(text) is not None


def arranges(text: str) -> bool:
    """Whether a line fixes something of a plan: a clock time (九点, 7:30) or a change."""
    return _CLOCK.search(text) is not None or revises(text)


def speaker_of(row: RankRow) -> str | None:
    """Who said a one-turn chunk (its ``speaker: `` prefix), None for other memories."""
    if row.kind is not MemoryKind.CHUNK or "\n" in row.text:
        return None
    for name in row.participants:
        if name and row.text.startswith(f"{name}: "):
            return name
    return None


def _line(row: RankRow, speaker: str) -> str:
    return row.text[len(speaker) + 2 :]


def inherited(
    window: Window, rows: Mapping[int, RankRow | None], names_span: Callable[[int, RankRow], bool]
) -> dict[int, float]:
    """For each speaker whose one-turn chunks among the best candidates name a time in the question's span
    (``names_span``), the newest of them that :func:`arranges` gains what lifts it just above the best of
    them (nothing when it leads already).

    >>> from datetime import datetime
    >>> def row(id_, text, minute):
    ...     return RankRow(id_, "s", MemoryKind.CHUNK, datetime(2024, 11, 14, 20, minute), (text.split(":")[0],),
    ...                    (id_,), "g", minute, text, 0.5, None)
    >>> rows = {1: row("a", "星辰: 后天去安吉看流星", 1), 2: row("b", "星辰: 后天九点西溪集合", 9),
    ...         3: row("c", "星辰: 后天记得带外套", 12), 4: row("d", "阿木: 后天九点开店", 10)}
    >>> window = [(1, (1.4, {})), (4, (1.2, {})), (3, (1.15, {})), (2, (1.1, {}))]
    >>> {key: round(gain, 3) for key, gain in inherited(window, rows, lambda key, row: True).items()}
    {2: 0.301}
    """
    best: dict[str, float] = {}
    newest: dict[str, tuple[object, int, float]] = {}
    for key, (score, _) in window[:INHERIT_DEPTH]:
        row = rows.get(key)
        speaker = row and speaker_of(row)
        if row is None or speaker is None or not names_span(key, row):
            continue
        best[speaker] = max(best.get(speaker, score), score)
        if arranges(_line(row, speaker)) and row.time is not None:
            seen = newest.get(speaker)
            if seen is None or (row.time, row.seq or 0) > seen[0]:  # type: ignore[operator]
                newest[speaker] = ((row.time, row.seq or 0), key, score)
    return {key: best[speaker] + STEP - score for speaker, (_, key, score) in newest.items() if score < best[speaker]}


def changes(keys: Sequence[int], rows: Mapping[int, RankRow | None], weight: float) -> dict[int, float]:
    """``weight`` for each candidate whose own words change or settle an arrangement (:func:`revises`), or
    that was said when a candidate fact was closed (我不喜欢咖啡了 ended 木木喜欢喝咖啡); not a closed fact
    (搬家，改到下周, called off since): it was a change once, it is not how things ended."""
    closed = [row for key in keys if (row := rows.get(key)) is not None and row.valid_to is not None]
    ends = {(row.valid_to, row.subject) for row in closed}  # whose: in a group others speak that minute too
    # the closed facts' own lines: said the same minute as their end (one add with no times), not the change
    told = {source for row in closed for source in row.sources}
    out: dict[int, float] = {}
    for key in keys:
        row = rows.get(key)
        if row is None or row.valid_to is not None:
            continue
        speaker = speaker_of(row)
        ended = (row.time, speaker or row.subject) in ends and told.isdisjoint(row.sources)
        if revises(_line(row, speaker) if speaker else row.text) or ended:
            out[key] = weight
    return out
