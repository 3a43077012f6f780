"""A plan the speaker calls off (issue #13, probe pl7): 搬家泡汤, 露营取消了, 聚餐改到下周六.

The plan fact said before (陈大川这周六（2024-11-16）搬家) is no longer how things are: the fold flow
closes the speaker's open plan facts that share the cancelled plan's key word (``valid_to`` = when it
was called off). A new time named for it in the same clause or a later one of the speaker in the fold
(改到下周六, 顺利的话下周搬: no 我, the plan's word says whose) becomes a plan fact of its own, its text
with the plan's word (陈大川搬家，下周六（2024-11-23）搬); the newest time named closes the ones named before.
A day named with the call-off (今天不去北京了, 周六的聚餐取消了) closes only the plans of that day: next
week's trip to 北京 stays.

Only the speaker's own plans: a clause with a subject of its own (他, a member's name) is someone else's
business; questions (搬家泡汤了？), near misses (差点泡汤) and fears (怕是要黄了) call nothing off.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.rules.condense import label
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE
from huiyi.flows.extract.rules.plans import NAMED_THING, plan_fact
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.text import tokens
from huiyi.text.times import TimeSpan, find_time_phrases

__all__ = ["Cancels"]

_OFF = re.compile(
    # 我不去爬山了, 不回老家了, 周六去不成杭州了: the thing follows (first: 去不成 alone is the next word's)
    r"(?:不(?:去|回|打算|想去|再去)|去不[了成])(?=(?P<thing>[^，。！？了]{2,6})了$)"
    r"|泡汤了?|取消了|不去了|去不了了|去不成了?|没去成|黄了|改到|推迟到|延期到|改成"
)
_MOVED = re.compile(r"改到|推迟到|延期到|改成")  # these name the new time themselves
# what keeps a plan on: almost (差点泡汤), maybe or feared (可能要黄了, 怕是去不了了), or a condition
_NOT_OFF = re.compile(r"差点|差一点|险些|几乎|可能|也许|怕|担心|万一|如果|要是|会不会|是不是|快要?|不会|没")
_OTHER = re.compile(r"你|他|她|它|咱|大家|谁|我们")
# not going home (老家, 家, 去: back) for a festival or on a day: 今年不回家过年了, 中秋不回去了
_HOME_OFF = re.compile(r"不回(?P<home>老家|家|去)(?:过年|过节|过春节)?了$")
_HOME_WORDS = ("回家", "回老家")  # how a plan says the trip home (回去 is back to work too: 初八回去上班)
_NEW_YEAR = re.compile(r"过年|春节|新年|年夜饭")
_NEW_YEAR_TRIP = timedelta(days=15)  # people go home for 春节 in the fortnight before it and stay until 元宵
Span = tuple[datetime, datetime]  # the time a call-off is about: only the plans of then are closed
_DAYS_NAMED = timedelta(days=2)  # a day or a weekend named with a call-off: only the plans of those days
_FOLLOW = 3  # how many of the speaker's later messages may name the new time
# a planned thing said in one character, after its time: 三点的会, 周五的课, 明晚的饭, 周六的局
_THING = re.compile(r"(?<=的)[会课饭局约]$")


class Cancels:
    """Reads the fold's messages in order; remembers each speaker's called-off plan words."""

    def __init__(self, roster: Roster, called_off: dict[str, str] | None = None) -> None:
        self.roster = roster
        self.closes: list[CloseDraft] = []
        # speaker -> (plan word, messages left to name a time); a fold before may have called it off
        self._open: dict[str, tuple[str, int]] = {s: (w, _FOLLOW) for s, w in (called_off or {}).items()}

    def read(self, said: Said) -> list[FactDraft]:
        """Record what ``said`` calls off; return the new plans it names for a called-off one."""
        if said.lang != "zh" or said.speaker == self.roster.agent_name:
            return []
        text = said.own
        times = _Times(said)
        out: list[FactDraft] = []
        named = ""  # the word of the plan a new time was named for
        pending = self._open.get(said.speaker)
        if pending is not None:
            self._open[said.speaker] = (pending[0], pending[1] - 1)
            if pending[1] <= 0:
                del self._open[said.speaker]
        # 我下周六搬: the plan rules read it; asked once a message, not once a clause of a message of many facts
        read = any(f.predicate == "计划" for f in said.facts)
        for match in ZH_CLAUSE.finditer(text):
            clause = match.group().strip()
            end = text[match.end() : match.end() + 1]
            if not clause or (end and end in "？?") or QUESTION_END.search(clause) or self._other(clause):
                continue
            home = _HOME_OFF.search(clause)
            if home is not None and not _NOT_OFF.search(clause[: home.start()]):
                self._home_trip_off(said, times, clause, home["home"], match.start())
                continue
            off = _OFF.search(clause)
            if off is not None and not _NOT_OFF.search(clause[: off.start()]):
                word, about = _word(clause[: off.start()]) or (off["thing"] and _word(off["thing"])), None
                follow = True  # whether a later line may name the plan's new time
                if off.group() == "不回":  # 不回老家了: the place not gone back to, on the day named (今晚)
                    word, about = _returned_to(off["thing"]), _day_named(times, clause, match.start())
                    follow = about is None
                if word is None:  # 三点的会改到明天: a one-word thing, known by its time
                    word, about = self._timed_thing(times, clause[: off.start()])
                    follow = about is None
                elif about is None:  # 今天不去北京了: the trip of that day, not next week's (改到 names the new one)
                    named_in = clause[: off.start()] if _MOVED.match(off.group()) else clause
                    about = _day_named(times, named_in, match.start())
                if word is not None:
                    self._close(said, word, about)
                elif said.speaker in self._open and _MOVED.match(off.group()):
                    word = self._open[said.speaker][0]  # 周六不用了，改到下周: the plan just called off
                else:
                    continue
                if follow:  # a later 明天会… is no new time for 三点的会
                    self._open[said.speaker] = (word, _FOLLOW)
                if _MOVED.match(off.group()) and (found := self._plan(said, times, clause, word, off.end())):
                    # 我改到下周六: the plan rules read the same date without the plan's word; this one replaces it
                    dates = {f.time for f in found}
                    said.facts[:] = [f for f in said.facts if f.predicate != "计划" or f.time not in dates]
                    read = any(f.predicate == "计划" for f in said.facts)
                    out.extend(found)
                    named = "" if about else word  # a word known only by its time closes nothing more
                continue
            known = self._open.get(said.speaker)
            # 顺利的话下周搬, 下周六搬: a new time named for the plan called off
            if (
                known is not None
                and not read
                and known[0][0] in clause
                and (found := self._plan(said, times, clause, known[0]))
            ):
                out.extend(found)
                named = known[0]
        if named:  # the newest time named for it is the plan now: 下周六搬 after 顺利的话下周搬
            self._close(said, named)
        return out

    def _close(self, said: Said, word: str, about: Span | None = None) -> None:
        close = CloseDraft(said.speaker, "计划", word, said.message.time, [said.message.id], about=about)
        if close not in self.closes:
            self.closes.append(close)

    def _home_trip_off(self, said: Said, times: _Times, clause: str, home: str, before: int) -> None:
        """今年不回家过年了, 过年不回去了, 中秋不回老家了: the trip home for that festival or on that day is off,
        however the plan said it (春节回老家, 除夕回家). 不回家了 with no time named is tonight's, no plan's;
        不回老家了 alone is every trip to 老家 planned."""
        about: Span | None = None
        if _NEW_YEAR.search(clause):  # 今年 said in December is the 春节 to come: the one the time rules read
            spring = find_time_phrases("明年春节" if "明年" in clause else "春节", said.message.time)
            if spring and spring[0].end + _NEW_YEAR_TRIP <= said.message.time:  # said in March: next year's
                spring = find_time_phrases("明年春节", said.message.time)
            about = (spring[0].start - _NEW_YEAR_TRIP, spring[0].end + _NEW_YEAR_TRIP) if spring else None
        else:
            about = _day_named(times, clause, before)
        if about is None and home == "老家":
            self._close(said, home)
            self._open[said.speaker] = (home, _FOLLOW)
        elif about is not None:
            for word in (*_HOME_WORDS, home) if home == "老家" else _HOME_WORDS:
                self._close(said, word, about)

    def _timed_thing(self, times: _Times, before: str) -> tuple[str | None, Span | None]:
        """A one-character thing (会, 课, 饭) and the time it was planned at, when ``before`` names both
        (三点的会, 周五的课): the word alone is too common to close plans by, the time with it is not."""
        thing = _THING.search(before)
        span = times.first_in(before)
        if thing is None or span is None:
            return None, None
        return thing.group(), (span.start, span.end)  # the whole span: 周五的课 at 14:00 that Friday too

    def _other(self, clause: str) -> bool:
        """Whether the clause has a subject of its own: a pronoun or a member's name."""
        return bool(_OTHER.search(clause)) or any(
            len(name) > 1 and name in clause for name in self.roster.all_names() if name
        )

    def _plan(self, said: Said, times: _Times, clause: str, word: str, start: int = 0) -> list[FactDraft]:
        """The new plan the clause names from ``start`` on (改到明天 after 三点的会: not the 三点 before it)."""
        span = times.first_in(clause[start:], ahead=True)
        if span is None:
            return []
        shown = clause.replace(span.phrase, f"{span.phrase}（{label(span)}）", 1)
        if word not in shown:  # the plan's word, which closes it again when a newer time is named
            shown = f"{word}，{shown}"
        return [plan_fact(said, self.roster, shown, shown, span)]


def _returned_to(thing: str) -> str | None:
    """The place of 不回X了 (老家, 学校): 不回家吃饭了 names no plan, its 吃饭 is what is done at home."""
    words = [(w, f) for w, f in tokens.tag(thing) if w.strip()]
    if words and len(words[0][0]) >= 2 and words[0][1][:1] in ("n", "s"):
        return words[0][0]
    return None


def _day_named(times: _Times, clause: str, before: int = 0) -> Span | None:
    """The whole days of a day or less, or a weekend, the clause names (今晚不回学校了: today, not the trip back
    on Saturday; 今天不去北京了: today's trip, not next week's; 明晚不去了: tomorrow's, said for the day); a longer
    time (下个月, 月底) is no day to match a plan by.
    A clause that names no time takes a day not yet over from the message before offset ``before`` (今天有事，
    北京不去了; 昨天想了一晚上 is when it was decided)."""
    # the one time said before it (昨天想了一晚上 names two, and a past day)
    named = times.first_in(clause) or times.only_before(before)
    # a day gone is no plan's (周六去不成杭州了 may be read as last Saturday): any day's plan is called off
    if named is None or named.end - named.start > _DAYS_NAMED or named.end <= times.now:
        return None
    start, end = named.start, named.end
    last = (end - timedelta(microseconds=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return start.replace(hour=0, minute=0, second=0, microsecond=0), last + timedelta(days=1)


class _Times:
    """A message's time spans, grouped by the words that said them once for the message: asking each of them
    again for each clause made a long line of call-offs read in time that grew with the square of its length."""

    def __init__(self, said: Said) -> None:
        self.text, self.now = said.own, said.message.time
        self.said: dict[str, list[tuple[int, TimeSpan]]] = {}  # phrase -> its spans and their places in line
        for order, span in enumerate(said.spans):
            self.said.setdefault(span.phrase, []).append((order, span))
        self._ends: dict[str, int] = {}  # phrase -> where it is first said to end in the text, -1 if never

    def first_in(self, words: str, ahead: bool = False) -> TimeSpan | None:
        """The first span of the message whose phrase ``words`` hold (of those to come, when ``ahead``)."""
        found = [
            next(((order, span) for order, span in group if not ahead or span.start > self.now), None)
            for phrase, group in self.said.items()
            if phrase in words
        ]
        return min((f for f in found if f is not None), default=(0, None))[1]

    def only_before(self, at: int) -> TimeSpan | None:
        """The one span whose phrase the text says before offset ``at``; None for none or more than one."""
        before = [group for phrase, group in self.said.items() if 0 <= self._end(phrase) <= at]
        return before[0][0][1] if len(before) == 1 and len(before[0]) == 1 else None

    def _end(self, phrase: str) -> int:
        if phrase not in self._ends:
            first = self.text.find(phrase)
            self._ends[phrase] = first + len(phrase) if first >= 0 else -1
        return self._ends[phrase]


def _word(before: str) -> str | None:
    """The plan's key word: the last verb or noun of two or more characters before the word that calls it off,
    or the word right before it whatever the tagger takes it for (团建 an adjective, 生日派对 an idiom)."""
    words = [(w, f) for w, f in tokens.tag(before) if w.strip()]
    for at, (word, flag) in enumerate(reversed(words)):
        if len(word) >= 2 and (flag[:1] in ("v", "n") or (at == 0 and flag in NAMED_THING)):
            return word
    return None
