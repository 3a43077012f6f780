"""Condensing a message for an event's text: fewer repeats, no fillers, times written out."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta

from huiyi.flows.extract.rules.said import Said
from huiyi.text.day_turn import begun_for_the_speaker
from huiyi.text.times import TimeSpan
from huiyi.text.times_en import MONTHS

_REPEAT = re.compile(r"([哈呵嘿嘻呜啊嗯哦~～!！?？.。…])\1{2,}")
# A whole message of fillers. 好的, 是的, 嗯嗯, 哈哈… are not alternatives of their own: each of their
# characters is in the class, and 哈 or 哈哈 made (…)+ try every split of 哈哈哈…太好笑了 (40 哈: minutes).
# Without them no run of CJK fillers splits two ways, so a failing match is linear (same strings match).
FILLER = re.compile(
    r"^(?:[嗯哦噢喔啊呀哈呵嘿嘻呜唔额呃好对是的吧嘛啦哇耶~～!！?？.。…,，\s]|ok|okay|lol|haha+|hmm+|yeah|yep|yes|no|nope|sure"
    r"|thanks|thx|cool|nice|wow|oh|ah|uh|没事|收到|明白|知道了)+$",
    re.IGNORECASE,
)
END_PUNCT = "。！？!?.…~～」”\"'）)"
_STOPS = "。！？!?.…~～"


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends its sentence: with a stop, or a closing quote or bracket right after one. A time's
    annotation ends no sentence, so the turn after it is not run on (两点（2025-04-01 14:00）木木说).

    >>> ends_sentence("好的。"), ends_sentence("他说“好的。”"), ends_sentence("下午两点（2025-04-01 14:00）")
    (True, True, False)
    >>> ends_sentence("他说“好的”"), ends_sentence("See you then (2025-04-01)."), ends_sentence(")")
    (False, True, False)
    """
    core = text.rstrip("」”\"'）)』")
    return bool(core) and core[-1] in _STOPS


# what an emoji leaves once its pictograph (So) is taken out: a presentation selector (❤️), a keycap's frame,
# a skin tone (👍🏽) and a flag's tags; a joiner (👨‍👩‍👧) goes with the pictograph before it
_EMOJI_PARTS = re.compile("[\ufe0e\ufe0f\u20e3\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


def condense(text: str) -> str:
    return without_emoji(_REPEAT.sub(r"\1\1", text))


def without_emoji(text: str) -> str:
    """``text`` without its emoji and the marks that shape them, its runs of spaces as one: a fact says what
    was said, not its tone (木木喜欢猫😍 made the thing liked 猫😍).

    >>> without_emoji("木木喜欢猫😍"), without_emoji("Liz works at Google 👍 "), without_emoji("I love 😍 cats")
    ('木木喜欢猫', 'Liz works at Google', 'I love cats')
    >>> without_emoji("我们一家👨‍👩‍👧去了❤️西湖")
    '我们一家去了西湖'
    """
    kept: list[str] = []
    dropped = False
    for ch in text:
        dropped = (
            unicodedata.category(ch) in ("So", "Cs", "Co")
            or bool(_EMOJI_PARTS.match(ch))
            or (dropped and ch == "\u200d")
        )
        if not dropped:
            kept.append(ch)
    return " ".join("".join(kept).split())


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip("，,、 ") + "…"


def absolute(span: TimeSpan) -> str:
    """A span as the dates it covers: one day, a minute, or "start～last day"."""
    length = span.end - span.start
    if length <= timedelta(days=1) and span.start.time() == datetime.min.time() and length == timedelta(days=1):
        return span.start.strftime("%Y-%m-%d")
    if length < timedelta(days=1):
        return span.start.strftime("%Y-%m-%d %H:%M")
    last = span.end - timedelta(days=1) if span.end.time() == datetime.min.time() else span.end
    return f"{span.start:%Y-%m-%d}～{last:%Y-%m-%d}"


def label(span: TimeSpan) -> str:
    """How a span reads beside its phrase in a memory's text: as ``absolute``, but a part of a day (今晚,
    明天下午, tomorrow evening) by its date alone, since the phrase says the part and "18:00" would read
    as an hour agreed.

    >>> label(TimeSpan(datetime(2024, 11, 15, 18), datetime(2024, 11, 16), "明晚"))
    '2024-11-15'
    >>> label(TimeSpan(datetime(2024, 11, 15, 15), datetime(2024, 11, 15, 16), "明天下午三点"))
    '2024-11-15 15:00'
    """
    if timedelta(hours=1) < span.end - span.start < timedelta(days=1):
        return f"{span.start:%Y-%m-%d}"
    return absolute(span)


# a phrase that names its calendar day (十月五号, May 5, 2024年) means the same day whenever it is read again
_CALENDAR = re.compile(r"[0-9０-９月号年]|[〇零一二两三四五六七八九十]日")
# a number that is a clock time or a distance (下午3点, at 3pm, 15:30, 3天后, in 2 days) names no calendar day
_CLOCK_OR_DISTANCE = re.compile(
    r"[0-9０-９]+\s*(?:[:：][0-5][0-9]|点|时|分|刻|(?:am|pm|a\.m\.|p\.m\.|o'?clock)\b)"
    r"|[0-9０-９]+[\s-]*(?:天|周|星期|小时|分钟|(?:days?|weeks?|hours?|minutes?|mins?)\b)",
    re.IGNORECASE,
)


def first_of_each(spans: list[TimeSpan]) -> list[TimeSpan]:
    """The first span of each phrase (case aside), in order: all :func:`dated` reads of them. A message saying
    我生日是周六 4,000 times made 8,000 birthday facts each read 4,000 spans (8 s)."""
    firsts: dict[str, TimeSpan] = {}
    for span in spans:
        firsts.setdefault(span.phrase.lower(), span)
    return list(firsts.values())


def dated(text: str, spans: list[TimeSpan], lang: str) -> str:
    """``text`` with each phrase of ``spans`` in it that names a day by its distance from when it was said
    (后天, 下周三, next Friday) followed by its date, as a plan's text is: read later, 后天 is another day.

    >>> span = TimeSpan(datetime(2024, 11, 22), datetime(2024, 11, 23), "后天")
    >>> dated("木木的生日是后天", [span], "zh"), dated("木木的生日是十月五号", [span], "zh")
    ('木木的生日是后天（2024-11-22）', '木木的生日是十月五号')
    >>> dated("木木后天去", [span, span], "zh")  # said twice in the message (a quote's, then one's own): once
    '木木后天（2024-11-22）去'
    >>> three = TimeSpan(datetime(2024, 11, 22, 15), datetime(2024, 11, 22, 16), "后天下午3点")
    >>> dated("木木后天下午3点去", [three], "zh")  # a clock time's digits name no calendar day
    '木木后天下午3点（2024-11-22 15:00）去'
    """
    seen: set[str] = set()
    for span in spans:
        if span.phrase.lower() in seen:
            continue
        seen.add(span.phrase.lower())
        words = re.findall(r"[a-z]+", span.phrase.lower())
        # Tomorrow is my birthday: the phrase begins the sentence, and the fact writes it in lower case
        at = text.lower().find(span.phrase.lower())
        if at < 0 or _CALENDAR.search(_CLOCK_OR_DISTANCE.sub("", span.phrase)) or any(w in MONTHS for w in words):
            continue
        end = at + len(span.phrase)
        shown = label(span)
        text = text[:end] + (f" ({shown})" if lang == "en" else f"（{shown}）") + text[end:]
    return text


def annotate(said: Said, text: str | None = None) -> str:
    """The message text (or ``text``, a part of it) with each relative time phrase followed by its absolute time."""
    text = said.message.text if text is None else text
    out: list[str] = []
    cursor = 0
    for span in said.spans:
        at = text.find(span.phrase, cursor)
        if at < 0:
            continue
        end = at + len(span.phrase)
        out.append(text[cursor:end])
        cursor = end
        now = said.message.time
        if (now in span and not begun_for_the_speaker(span.start, span.end, now)) or re.search(r"\d{4}", span.phrase):
            continue  # 今天, 最近, 2023年5月: nothing to add (明天 said at 00:40 is the speaker's tomorrow: shown)
        shown = label(span)
        out.append(f" ({shown})" if said.lang == "en" else f"（{shown}）")
    out.append(text[cursor:])
    return "".join(out)
