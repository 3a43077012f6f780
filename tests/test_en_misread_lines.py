"""English lines a companion month's memory misread (rules, no LLM): a weekend had as a length (I've got a
3-day weekend), a count after a clock's "at" (tomorrow at 10 people are coming), "the end of the week" said on a
Sunday, a weekday before "is my boss", and a question to the bot dated as if it told of its asker."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.flows.extract import EventDraft, Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope, ScopeKind
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

SCOPE = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
GROUP = Scope(agent="Kai", kind=ScopeKind.SPACE, key="book club")
MONDAY_MORNING = datetime(2024, 11, 4, 9, 0)
WEDNESDAY_MORNING = datetime(2024, 11, 6, 9, 0)
FRIDAY_EVENING = datetime(2024, 11, 8, 19, 0)
SATURDAY_NOON = datetime(2024, 11, 9, 12, 0)
SUNDAY_EVENING = datetime(2024, 11, 10, 20, 0)
THIS_WEEKEND = "11-09..11-10"  # the weekend of the week of 11-04
THIS_LONG_WEEKEND = "11-09..11-11"  # and with its Monday, a long one (times_en._longer_weekend)


def spans(text: str, now: datetime) -> list[str]:
    """Each time read in ``text``: its days, and its hour when it is less than a day."""
    out = []
    for span in find_time_phrases(text, now):
        last = span.end - timedelta(seconds=1)
        hour = "" if span.end - span.start >= timedelta(days=1) else f" {span.start:%H:%M}"
        out.append(f"{span.start:%m-%d}..{last:%m-%d}{hour}")
    return out


@pytest.mark.parametrize("text", ["I've got a 3-day weekend", "I have a three-day weekend", "we've got a long weekend"])
@pytest.mark.parametrize("now", [MONDAY_MORNING, WEDNESDAY_MORNING, FRIDAY_EVENING, SATURDAY_NOON, SUNDAY_EVENING])
def test_a_weekend_had_as_a_length_is_this_weeks(text: str, now: datetime) -> None:
    # said on a Monday or a Wednesday it was the weekend gone (11-02..11-03), as a bare "the weekend" is then
    assert spans(text, now) == [THIS_LONG_WEEKEND]


@pytest.mark.parametrize("text", ["I had a 3-day weekend", "just a long weekend"])
def test_a_weekend_length_told_done_or_alone_is_no_date(text: str) -> None:
    assert spans(text, WEDNESDAY_MORNING) == []


@pytest.mark.parametrize("now", [WEDNESDAY_MORNING, FRIDAY_EVENING])
def test_a_weekend_had_is_what_the_plan_has(now: datetime) -> None:
    # its object was "has got a 3-day": the weekend was cut away as the plan's time
    (plan,) = extract_private(SCOPE, ("I've got a 3-day weekend",), now, "en").facts
    assert (plan.object, plan.about) == ("has got a 3-day weekend", "2024-11-09～2024-11-11")
    # and its event is on it: "got" read as a past (I got a ticket) kept it on the day it was said
    (event,) = extract_private(SCOPE, ("I've got a 3-day weekend",), now, "en").events
    assert event.about == "2024-11-09～2024-11-11"


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a number before who or what is counted is a count: it was the clock 10:00
        ("tomorrow at 10 people are coming", ["11-07..11-07"]),
        ("tomorrow at 6 guests arrive for dinner", ["11-07..11-07"]),
        ("tonight at 8 more friends join us", ["11-06..11-06 18:00"]),
        ("on Friday at 3 of us are driving up", ["11-08..11-08"]),
        # a clock still: a comma parts it from who comes, or nothing counted follows
        ("tomorrow at 10, people are coming", ["11-07..11-07 10:00"]),
        ("tomorrow at 7 my friends are coming", ["11-07..11-07 07:00"]),
        ("tomorrow at 10 o'clock people are coming", ["11-07..11-07 10:00"]),
        ("tonight at 8 we're eating out", ["11-06..11-06 20:00"]),
        ("tomorrow 10 people are coming to dinner", ["11-07..11-07"]),
    ],
)
def test_a_count_after_at_is_no_clock(text: str, read: list[str]) -> None:
    assert spans(text, WEDNESDAY_MORNING) == read


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        # on a Sunday the end of the week to come is the coming week's: it was this week's Thursday to that Sunday
        ("I'll finish the report by the end of the week", SUNDAY_EVENING, ["11-14..11-17"]),
        ("I'll finish it by the end of this week", SUNDAY_EVENING, ["11-14..11-17"]),
        ("I need to get it done by end of week", SUNDAY_EVENING, ["11-14..11-17"]),  # no article: was no time
        ("I'll finish the report by the end of the week", WEDNESDAY_MORNING, ["11-07..11-10"]),
        ("I need to get it done by end of week", WEDNESDAY_MORNING, ["11-07..11-10"]),
        # told done on a Sunday it is the one ending
        ("the end of the week was crazy busy", SUNDAY_EVENING, ["11-07..11-10"]),
    ],
)
def test_the_end_of_the_week_said_on_a_sunday_is_the_coming_weeks(text: str, now: datetime, read: list[str]) -> None:
    assert spans(text, now) == read


@pytest.mark.parametrize(
    ("now", "about"),
    [
        (SUNDAY_EVENING, "2024-11-14～2024-11-17"),
        (WEDNESDAY_MORNING, "2024-11-07～2024-11-10"),
        # the end already begun: the days after today (said on a Friday it was no plan)
        (FRIDAY_EVENING, "2024-11-09～2024-11-10"),
        (SATURDAY_NOON, "2024-11-10"),
    ],
)
def test_a_plan_by_the_end_of_the_week_is_dated_ahead(now: datetime, about: str) -> None:
    facts = extract_private(SCOPE, ("I'll finish the report by the end of the week",), now, "en").facts
    assert [(fact.predicate, fact.about) for fact in facts] == [("plans", about)]


@pytest.mark.parametrize("text", ["Monday is my boss", "Friday is my best friend", "Friday's my sister"])
@pytest.mark.parametrize("now", [WEDNESDAY_MORNING, SUNDAY_EVENING])
def test_a_weekday_is_nobodys_name(text: str, now: datetime) -> None:
    # Monday is my boss made Monday Mia's boss, and an entity of its own
    extraction = extract_private(SCOPE, (text,), now, "en")
    assert extraction.facts == []
    assert [entity.name for entity in extraction.entities] == ["Mia"]


@pytest.mark.parametrize(("text", "named"), [("Dana is my boss", "Dana"), ("April is my sister", "April")])
def test_a_name_before_is_my_is_still_read(text: str, named: str) -> None:
    (fact,) = extract_private(SCOPE, (text,), WEDNESDAY_MORNING, "en").facts
    assert fact.object == named


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        # what a day is, said after it this week, is the coming one: it was the Monday gone (11-04)
        ("Monday is my boss's birthday", WEDNESDAY_MORNING, ["11-11..11-11"]),
        ("Monday is my boss's birthday", SUNDAY_EVENING, ["11-11..11-11"]),
        ("Tuesday's my day off", SATURDAY_NOON, ["11-12..11-12"]),
        ("Friday is my sister's wedding", WEDNESDAY_MORNING, ["11-08..11-08"]),
        # asked of the other party in the present progressive, it is to come too (was the Friday gone)
        ("are you seeing your sister on Friday", SUNDAY_EVENING, ["11-15..11-15"]),
        ("you're coming on Monday right", WEDNESDAY_MORNING, ["11-11..11-11"]),
        # what one has on a day is ahead too (was the Monday gone, 11-04)
        ("I have a test on Monday", SUNDAY_EVENING, ["11-11..11-11"]),
        ("I've got a dentist appointment on Monday", WEDNESDAY_MORNING, ["11-11..11-11"]),
        # told done, or a day's thing: the one gone
        ("I had a test on Monday", SUNDAY_EVENING, ["11-04..11-04"]),
        ("Monday was my boss's birthday", WEDNESDAY_MORNING, ["11-04..11-04"]),
        ("were you seeing him on Monday", WEDNESDAY_MORNING, ["11-04..11-04"]),
        ("Monday's meeting was awful", WEDNESDAY_MORNING, ["11-04..11-04"]),
    ],
)
def test_what_a_weekday_is_is_the_coming_one(text: str, now: datetime, read: list[str]) -> None:
    assert spans(text, now) == read


def events(scope: Scope, said: list[tuple[str, str]], start: datetime, language: str = "en") -> list[EventDraft]:
    """The events the rules read in ``said`` (speaker, text), a line a minute from ``start``."""
    messages = [
        Message(
            id=f"m{i}",
            agent="Kai",
            space=scope.space_id,
            scope=scope,
            speaker=speaker,
            role="assistant" if speaker == "Kai" else "user",
            text=text,
            time=start + timedelta(minutes=i),
            seq=i,
        )
        for i, (speaker, text) in enumerate(said)
    ]
    person = "Mia" if scope is SCOPE else None
    fold = Fold("Kai", scope.space_id, scope, messages, person=person, language=language)
    return RuleExtractor().extract_sync(fold).events


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Have you been busy this weekend?", "en"),
        ("Are you free this weekend?", "en"),
        ("What did you do yesterday?", "en"),
        ("Is it going to rain tomorrow?", "en"),
        ("你周末忙吗？", "zh"),
    ],
)
@pytest.mark.parametrize("scope", [SCOPE, GROUP])
@pytest.mark.parametrize("now", [WEDNESDAY_MORNING, FRIDAY_EVENING])
def test_a_question_unanswered_is_dated_when_asked(text: str, language: str, scope: Scope, now: datetime) -> None:
    # it was dated at the weekend it asks of (about 2024-11-02～2024-11-03): the asker's weekend, in a timeline
    (event,) = events(scope, [("Mia", text)], now, language)
    assert (event.time, event.about) == (now, "")


@pytest.mark.parametrize("scope", [SCOPE, GROUP])
def test_a_question_answered_or_said_of_the_asker_keeps_its_day(scope: Scope) -> None:
    answered = events(
        scope, [("Mia", "Have you been busy this weekend?"), ("Kai", "A bit, I read two books!")], WEDNESDAY_MORNING
    )
    told = events(scope, [("Mia", "I went hiking yesterday. How about you?")], WEDNESDAY_MORNING)
    ours = events(scope, [("Mia", "Are we still on for tomorrow?")], WEDNESDAY_MORNING)
    assert [event.about for event in answered + told + ours] == ["2024-11-02～2024-11-03", "2024-11-05", "2024-11-07"]
