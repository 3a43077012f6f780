"""The tense of an English time phrase's clause: whether it says its time is still to come (I'll call on Monday)
or tells it done (we watched Dune 2 over the weekend). Read by :mod:`huiyi.text.times_en` and
:mod:`huiyi.text.month_days_en` to pick which of two days a bare name means."""

from __future__ import annotations

import re

from huiyi.patterns import lazy

__all__ = [
    "MEETS_AT",
    "MOVED_TO",
    "MOVE_VERB",
    "REACH",
    "SAID_DONE",
    "Clause",
    "asked_ahead",
    "clause",
    "given_up",
    "still_to_come",
    "told_done",
]

Clause = tuple[str, int, int, int]

# a round one goes to, said whole: not one that names a thing (school stuff, practice pics, class notes)
_ROUNDS = (
    r"(?:work|school|class(?:es)?|practice|training|rehearsal|lessons?|shift|church|band|choir)(?!\s+(?!(?:on|at|in"
    r"|this|next|tomorrow|tonight|today|tmrw|every|all|until|till|from|early|late|again|then|and|but|so|or|with|for"
    r"|to|off|\w+day|weekend|morning|afternoon|evening|night)\b)\w)"
)
# a clause that says its day is still to come, and one that says it happened (I was going to…)
TO_COME = lazy(
    r"\b(?:will|shall|going\s+to|gonna|plan(?:ning)?\s+to|ha(?:ve|s)\s+to|need\s+to|want\s+to|hope\s+to"
    r"|can(?:'t|not|\s+not)\s+wait|look(?:s|ing)?\s+forward|plans?|planned|(?:I'm|I\s+am|we're|we\s+are|you're|you\s+are|are\s+(?:you|we|they)|he's|she's|they're)\s+(?:\w+ing|off)"
    # (I'm off Monday: a day off or a leaving, both ahead); a schedule said in the present (results come back
    # Monday, the exam is due Friday, it opens Tuesday)
    r"|comes?\s+back|(?:is|are)\s+due|due|starts?|begins?|opens?|arrives?|gets?\s+back|leaves?|flies|fly"
    # what one has on a day is on its way (I have a test on Monday, I've got a dentist appointment on Friday), as
    # is a round one goes to (I have work Monday, I've got practice on Tuesday)
    rf"|ha(?:ve|s)(?:\s+got)?\s+(?:an?|{_ROUNDS})"
    # a day wished to come is ahead (Monday can't come soon enough, counting down to Friday), not one counted down
    r"|can(?:'t|not|\s+not)\s+(?:come|get\s+here|arrive)\s+(?:soon|fast|quick)(?:er)?\s+enough|count(?:s|ing)?\s+down|countdown\s+to)"
    rf"\b|'ll\b|'ve\s+got\s+(?:an?|{_ROUNDS})\b",
    re.IGNORECASE,
)
SAID_DONE = lazy(r"\b(?:was|were|did|didn't|had|went|ago|already|would|could|should)\b", re.IGNORECASE)
# a day something was moved to is still to come whatever tense the move is told in (the meeting was moved
# to Monday, said on a Thursday: the coming Monday), and so is one a thing was moved to (I moved my dentist
# appointment to Friday, I'm moving my meeting to Friday); "I waited until Monday" is not such a move. Its
# ``to`` leads only to the time, so a plan's object leaves it with the time (rules.plans_en)
MOVE_VERB = (
    r"(?:(?:mov|chang|postpon|reschedul)(?:e|es|ed|ing)|(?:push|switch|bump|delay|shift)(?:es|s|ed|ing)?"
    r"|put(?:s|ting)?(?:\s+[\w']+){0,3}?\s+off)\b"
)
MOVED_TO = lazy(rf"\b{MOVE_VERB}(?:\s+[\w']+){{0,5}}?\s+(?P<to>to|till|until)\s+(?:on\s+)?$", re.IGNORECASE)
# the time a move gives up for the one after its "to" (moving my meeting from Monday to Friday, the call was
# pushed from Monday…: not Monday's); not a moving of one's own (I'm moving from Monday to Friday: house, a span)
# nor a move whose new thing is said before its "from" (switching to day shifts from Monday to Friday: a span)
_MOVED_FROM = lazy(rf"\b{MOVE_VERB}(?:(?<!ing)|(?:\s+(?!to\b)[\w']+){{1,5}}?)\s+from\s+(?:on\s+)?$", re.IGNORECASE)
_TO_ANOTHER = lazy(r"\s*(?:[-–—]|\s(?:to|till|until|til)\s)", re.IGNORECASE)
CLAUSE_END = lazy(r"[.!?;,\n]|\bbut\b", re.IGNORECASE)


REACH = 300  # characters either side a clause is looked for in: every match reads that much, not the text


def clause(match: re.Match[str]) -> Clause:
    """The text near ``match`` (curly apostrophes made straight), the bounds of the clause around it in that
    text, and where the match starts there. Only ``REACH`` characters either side are read: a message of
    thousands of "Monday" or "Christmas" read the whole text for each (quadratic, seconds at 10k)."""
    first = max(0, match.start() - REACH)
    text = match.string[first : match.end() + REACH].replace("’", "'")
    at, end_at = match.start() - first, match.end() - first
    start = max((m.start() for m in CLAUSE_END.finditer(text, 0, at)), default=-1) + 1
    after = CLAUSE_END.search(text, end_at)
    return text, start, after.start() if after else len(text), at


def given_up(text: str, phrase: str) -> bool:
    """Whether ``phrase``, where ``text`` first says it, is the time a move gives up for another (I'm moving my
    meeting from Monday to Friday: Monday): the thing moved is no longer then, and a plan of it is not."""
    found = re.search(re.escape(phrase), text, re.IGNORECASE)
    if found is None or not _TO_ANOTHER.match(text, found.end()):
        return False
    return _MOVED_FROM.search(text.replace("’", "'"), max(0, found.start() - 80), found.start()) is not None


def still_to_come(match: re.Match[str], around: Clause | None = None) -> bool:
    """Whether the clause around ``match`` (``around``: it, when the caller read it) says its time is still to
    come and not that it happened."""
    text, start, end, at = around or clause(match)
    if MOVED_TO.search(text, start, at):
        return True
    return TO_COME.search(text, start, end) is not None and SAID_DONE.search(text, start, end) is None


# a verb told in the past: was, went, saw…, or a word in -ed right after who did it (Emma and I watched, Liz
# hosted); not one that leads to what is planned (we decided to go), nor need or feed
_TOLD_IN_PAST = lazy(
    r"(?i:\b(?:was|were|did|didn't|had|went|ago|saw|took|came|met|ate|spent|bought|caught|felt|slept|found|gave"
    r"|won|lost|drove|flew|wrote|swam|brought|began|kept|sang|wore|threw|held|built|sold|sent|paid|rode|fell|broke"
    r"|woke|drank|ran|made|forgot)\b|(?<!'ve\s)(?<!have\s)\bgot\b)"  # I got, not I've got
    r"|\b(?:(?i:I|we|he|she|it|they|you)|[A-Z][a-z]+)\s+(?i:(?:just|also|all|both|\w+ly)\s+)?(?i:[a-z]*[a-df-z]ed)\b"
    r"(?!\s+to\b)"
    # the present perfect tells what is done, as the past does (I've been busy this weekend, I have finished it on
    # Friday); not have got, which is have (I've got a wedding this weekend), nor what is arranged for a day to come
    r"|(?i:(?:\b(?:I|we|you|they)'ve|\bha(?:ve|s)(?:\s+(?:you|we|they|he|she|it|I))?|'s(?=\s+(?:\w+ly\s+)?(?:been|had|done|gone|seen|spent)\b))"
    r"\s+(?:(?:just|already|finally|also|all|\w+ly)\s+)?(?!(?:booked|scheduled|planned|arranged|organi[sz]ed"
    r"|reserved|registered|signed|set|decided|agreed|promised|offered|invited|asked)\b)"
    # what one has been doing or feeling toward a day, or been invited to, is of the day ahead (I've been planning a
    # picnic on Saturday, been invited to a wedding this weekend, been so nervous about Friday), as is a day taken off
    r"(?:been(?!\s+(?:(?:so|really|very|\w+ly)\s+)?(?:\w+ing|invited|asked|told|chosen|selected|picked|nervous"
    r"|worried|anxious|excited|scared|stressed)\b)|taken(?!\s+\w+\s+off\b)|had|done|gone|seen|made|given"
    r"|eaten|written|met|spent|won|lost|heard|kept|left|brought|bought|felt|slept|found|run|swum|[a-z]*[a-df-z]ed)\b)"
)
# asking how a time went: Anything fun over the weekend? (not Doing anything…, nor Anything planned…)
_ASKED_HOW_IT_WENT = lazy(
    r"\W*(?:(?:so|and|well|hey|oh)\W+)?anything\s+(?:(?!plan|coming|happening|going|on\b)\w+\s+){0,3}"
    r"(?:over|during|at)\s+",
    re.IGNORECASE,
)
# a time something is readied for or waited till is still to come (I booked a hotel for the weekend)
_AWAITED = lazy(r"\b(?:for|until|till|before|by)\s+$", re.IGNORECASE)
# a thing got or booked for a time is for then, whatever tense the getting is told in (Got tickets for the concert
# on the 14th, booked flights to Lisbon for Oct 2): not "I got tickets on Monday", whose day is the getting's
_BOOKED_FOR = lazy(
    r"\b(?:tickets?|seats?|passes|(?:a|the)\s+table|reservations?|flights?)\s+(?:to|for)\b", re.IGNORECASE
)
# …but not one had (I had tickets to the show on Friday: the show gone), nor one whose sentence goes on to tell
# how it went (I got tickets for the concert on Saturday, it was great)
_HAD = lazy(r"\b(?:had|was|were)\b", re.IGNORECASE)
_SENTENCE_REST = lazy(r"[^.!?\n]*")
# a past verb that leads to a proposal, a hope or what is so now tells nothing done: I was thinking we could go
# on Friday, I was wondering if you're free Friday, I was told the meeting is on Friday (not can't)
_STILL_OPEN = lazy(
    r"\b(?:(?:we|you)\s+could|could\s+(?:we|you)|can(?!')|is|are|am|hoping\s+to|supposed\s+to)\b|\b\w+'re\b",
    re.IGNORECASE,
)


def told_done(match: re.Match[str], around: Clause | None = None) -> bool:
    """Whether the clause around ``match`` tells its time in the past (we watched Dune 2 over the weekend, I've
    been busy this weekend) or asks how it went (Anything fun over the weekend?), and says nothing of a time to
    come: which weekend or day of a month a bare name means (the one gone)."""
    text, start, end, at = around or clause(match)
    if MOVED_TO.search(text, start, at) or _AWAITED.search(text, start, at) or TO_COME.search(text, start, end):
        return False
    if _BOOKED_FOR.search(text, start, at) and not _HAD.search(text, start, at):
        rest = _SENTENCE_REST.match(text, end)
        if rest is None or not _TOLD_IN_PAST.search(text, end, rest.end()):
            return False
    if _STILL_OPEN.search(text, start, at):  # before the day: we had fun this weekend, which is rare
        return False
    return _TOLD_IN_PAST.search(text, start, end) is not None or bool(_ASKED_HOW_IT_WENT.fullmatch(text, start, at))


# a time met at or asked to be free for (see you Friday, still on for Friday, are you free Friday): one to come;
# not a meeting one was glad of (good to see you Friday, nice seeing you Saturday)
MEETS_AT = lazy(
    r"\b(?<!good\sto\s)(?<!nice\sto\s)(?<!great\sto\s)(?:see\s+(?:you|ya|u)|still\s+on|(?<!-)free|available|let'?s"
    r"|up\s+for|down\s+for|wanna)\b",
    re.IGNORECASE,
)
# a day asked about bare (how about Friday?, Friday?) may ask of the one gone as well: the question beside it
# tells which (How about Saturday? Did you have fun?, When was the party? Friday?)
_ASKED_ABOUT = lazy(r"\b(?:how|what)\s+about\b", re.IGNORECASE)
_ASKED_NEXT = lazy(
    r"[\s?!.,]*(?:(?:so|and|oh|well|like)\W+)?(?:did|didn't|was|wasn't|were|weren't|how\s+(?:was|did)|how'd"
    r"|what(?:\s+\w+)?\s+happened|what\s+went)\b",
    re.IGNORECASE,
)
# SAID_DONE, but for a would, could or should that asks what to do (what should we do Saturday?)
_ASKED_DONE = lazy(
    r"\b(?:(?:was|were|did|had)(?:n't)?|went|ago|already|(?:would|could|should)(?:n't)?(?:\s+have|'ve))\b",
    re.IGNORECASE,
)
# a question that recalls a time (remember Friday?, how'd Friday go?) asks of the one gone, as does one of how
# it went (Good weekend?, Busy Saturday?) or of what came of it or since (sore from Saturday?, better since Monday?)
_RECALLED = lazy(r"\b(?:remember|how'd|what'd|happened)\b", re.IGNORECASE)
_HOW_IT_WENT = lazy(
    r"\b(?:good|nice|great|fun|busy|lazy|quiet|relaxing|productive|crazy|wild|rough)\s+$", re.IGNORECASE
)
# a day asked bare (So, Friday night?), and one talked about, not met at (let's not talk about Friday)
_PART_OF_DAY = lazy(r"\s*(?:(?:morning|afternoon|evening|night)\b)?\W*", re.IGNORECASE)
_ABOUT = lazy(r"(?<!how\s)(?<!what\s)\babout\s+$", re.IGNORECASE)
_FILLER = lazy(r"\W*(?:(?:so|and|oh|ok|or|wait)\W+)*", re.IGNORECASE)
_CAME_OF = lazy(r"\b(?:since|from|after)\s+$", re.IGNORECASE)


def asked_ahead(match: re.Match[str], around: Clause | None = None) -> bool:
    """Whether the clause around ``match`` meets at its time or asks of it (see you Friday, Are we still on for
    Friday?, are you free Friday?) and tells nothing done (did you go out Friday?, how was Friday?): a bare
    day asked of is most often one to come, as a plan's is (what should we do Saturday?, not should've)."""
    text, start, end, at = around or clause(match)
    meets = MEETS_AT.search(text, start, end) is not None
    if not (meets or _ASKED_ABOUT.search(text, start, end) or text.startswith("?", end)):
        return False  # first, as it is the cheapest: most days are neither met at nor asked of
    if any(done.search(text, start, end) for done in (_ASKED_DONE, _TOLD_IN_PAST, _RECALLED)):
        return False
    if meets and not _ABOUT.search(text, start, at):  # let's not talk about Friday: nothing met at
        return True
    if _HOW_IT_WENT.search(text, start, at) or _CAME_OF.search(text, start, at) or _ASKED_NEXT.match(text, end):
        return False
    if not text.startswith("?", end):
        return False  # let's just forget about Friday: no question
    # a day asked bare after a question of what was, or before a telling of it (When was the party? Friday?,
    # Saturday morning? I was asleep lol)
    said = at + len(match.group())
    if not (_FILLER.fullmatch(text, start, at) and _PART_OF_DAY.fullmatch(text, said, end)):
        return True
    asked = max((m.end() for m in CLAUSE_END.finditer(text, 0, max(0, start - 1))), default=0)
    told = CLAUSE_END.search(text, end + 1)
    told_end = told.start() if told else len(text)
    return not (
        _ASKED_DONE.search(text, asked, start)
        or (_TOLD_IN_PAST.search(text, end + 1, told_end) and not TO_COME.search(text, end + 1, told_end))
    )
