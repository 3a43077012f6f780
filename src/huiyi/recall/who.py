"""Who-questions: "是谁说年底忙得每晚都走得很晚" describes a line and asks who said it.

The asker does not know the speaker, so no speaker bonus helps; what identifies the answer is how much of
the description a line says. Meaning and words favoured a speaker's short line that shares one word
(年底了哪敢请假) over the same speaker's line that says it (年底审计季，这一周天天十点以后才走; issue #13,
w3). Two rules:

- each candidate line gains ``weight`` × the share of the question's words it says (:func:`coverage`);
- among one speaker's lines near the top, the one that says most of the question takes the best place of
  them (:func:`owned`): any of them would name the speaker, that one is the evidence.

    >>> coverage(["年底", "忙", "走"], "今天又是加班夜，年底审计季，这一周天天十点以后才走")
    0.6666666666666666
    >>> question_words("谁说年底忙得每晚都走得很晚"), question_words("阿木的店在哪")
    (['年底', '忙', '得', '每晚', '走', '晚'], [])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from huiyi.recall.latest import speaker_of
from huiyi.store.base import RankRow
from huiyi.text import tokens
from huiyi.text.frames import asks_who, unframed

__all__ = ["coverage", "owned", "question_words"]

Window = list[tuple[int, tuple[float, dict[str, float]]]]
OWN_DEPTH = 30  # the best candidates a speaker's lines are compared among
STEP = 1e-3  # how far above the speaker's best line the line that says most goes


def question_words(query: str, when: str = "") -> list[str]:
    """The content words of a who-question's last line without its frame and without ``when`` (the time
    phrase the question names: 今天一大早 says when, not what); none for other questions."""
    last = query.strip().rsplit("\n", 1)[-1]
    if not asks_who(last):
        return []
    return tokens.content_words(unframed(last.replace(when, " ") if when else last))


def coverage(words: Sequence[str], line: str) -> float:
    """The share of ``words`` the line says."""
    return sum(1 for word in words if word in line) / len(words) if words else 0.0


def owned(
    window: Window, rows: Mapping[int, RankRow | None], words: Sequence[str], timely: Mapping[int, float] | None = None
) -> dict[int, float]:
    """For each speaker with several one-turn lines among the best candidates, the line that says most of
    the question (strictly more than the speaker's best-placed line) gains what lifts it just above that;
    not when the best-placed line lies in the question's time and it does not (``timely``: the time bonus
    each candidate got: 今天一大早是谁说… wants the morning's line).

    >>> from datetime import datetime
    >>> from huiyi.model import MemoryKind
    >>> def row(id_, text):
    ...     return RankRow(id_, "s", MemoryKind.CHUNK, datetime(2024, 11, 14), (text.split(":")[0],), (id_,),
    ...                    "g", 1, text, 0.5, None)
    >>> rows = {1: row("a", "方圆: 年底了哪敢请假"), 2: row("b", "豆豆: 早上好"),
    ...         3: row("c", "方圆: 年底审计季，天天十点以后才走")}
    >>> window = [(1, (1.28, {})), (2, (1.2, {})), (3, (1.19, {}))]
    >>> {key: round(gain, 3) for key, gain in owned(window, rows, ["年底", "忙", "走"]).items()}
    {3: 0.091}
    """
    timely = timely or {}
    best: dict[str, tuple[float, float, int]] = {}  # speaker -> (their best score, its coverage, its key)
    most: dict[str, tuple[float, int, float]] = {}  # speaker -> (coverage, key, score) of the line saying most
    for key, (score, _) in window[:OWN_DEPTH]:
        row = rows.get(key)
        speaker = speaker_of(row) if row is not None else None
        if row is None or speaker is None:
            continue
        share = coverage(words, row.text[len(speaker) + 2 :])
        if speaker not in best:
            best[speaker] = (score, share, key)
        if share > most.get(speaker, (0.0, 0, 0.0))[0] and timely.get(key, 0.0) >= timely.get(best[speaker][2], 0.0):
            most[speaker] = (share, key, score)
    out: dict[int, float] = {}
    for speaker, (share, key, score) in most.items():
        top, top_share, _ = best[speaker]
        if share > top_share and score < top:
            out[key] = top + STEP - score
    return out
