"""The speaker's new job said in English (I'm starting at Google on Monday, My first day at the hospital is
Monday): stored nothing of the job, or after "I quit my job, I'm starting at a new company on Monday" one
plan of the whole line ("quits Mumu's job, I'm starting at a new company"); now the employer, the role and the
first day, as the Chinese rule stores them."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Extraction
from huiyi.model import Scope
from rule_lines import extract_private

SCOPE = Scope.of_person("bot", "Mumu")
START = datetime(2025, 9, 17, 10)  # a Wednesday
MONDAY = datetime(2025, 9, 22)


def extract(*texts: str) -> Extraction:
    return extract_private(SCOPE, texts, START, "en")


def work(*texts: str) -> set[tuple[str, str, str, str, datetime | None]]:
    return {
        (fact.subject, fact.predicate, fact.object, fact.description, fact.time)
        for fact in extract(*texts).facts
        if fact.predicate in ("works at", "works as", "plans", "left job")
    }


def test_a_job_left_and_a_new_one_from_monday() -> None:
    extraction = extract("I quit my job, I'm starting at a new company on Monday")
    assert work("I quit my job, I'm starting at a new company on Monday") == {
        ("Mumu", "left job", "job", "Mumu left the job", START),
        ("Mumu", "plans", "starts a new job", "Mumu starts a new job on Monday (2025-09-22)", MONDAY),
    }
    assert any(close.predicate == "works at" for close in extraction.closes)


def test_the_employer_the_role_and_the_first_day() -> None:
    assert work("Starting my new job at Google next week as a product manager") == {
        ("Mumu", "works at", "Google", "Mumu moved to a new job at Google", START),
        ("Mumu", "works as", "a product manager", "Mumu works as a product manager", START),
        (
            "Mumu",
            "plans",
            "starts a new job at Google as a product manager",
            "Mumu starts a new job at Google as a product manager next week (2025-09-22～2025-09-28)",
            MONDAY,
        ),
    }


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("My first day at the hospital is Monday", "the hospital"),
        ("Monday is my first day at Google", "Google"),
        ("I'm starting at Google on Monday", "Google"),
        ("I start at St. Mary's on Monday", "St. Mary's"),
    ],
)
def test_a_first_day_names_the_new_workplace(text: str, employer: str) -> None:
    assert work(text) == {
        ("Mumu", "works at", employer, f"Mumu moved to a new job at {employer}", START),
        (
            "Mumu",
            "plans",
            f"starts a new job at {employer}",
            f"Mumu starts a new job at {employer} on Monday (2025-09-22)",
            MONDAY,
        ),
    }


def test_a_new_job_got_is_the_workplace_now() -> None:
    assert work("I got a new job at Stripe!") == {
        ("Mumu", "works at", "Stripe", "Mumu moved to a new job at Stripe", START)
    }


def test_the_new_workplace_ends_the_old() -> None:
    """One at a time: the fold closes the "works at" said before (closes.replaced)."""
    assert {f.object for f in extract("I work at Acme", "I'm starting at Google on Monday").facts} >= {"Acme", "Google"}


@pytest.mark.parametrize(
    "text",
    [
        "My husband starts his new job Monday",  # his
        "My husband's first day at the hospital is Monday",
        "Are you starting a new job on Monday?",  # a question
        "I'm not starting at Google on Monday",  # a negation
        "If I start at Google on Monday, I'll move",  # a supposition
    ],
)
def test_no_new_job_but_the_speakers_own(text: str) -> None:
    assert {fact for fact in work(text) if fact[1] != "plans"} == set()
    assert not any("new job" in fact[3] for fact in work(text))


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        ("I'm starting at the gym on Monday", "is starting at the gym"),  # no workplace
        ("I'm starting a diet on Monday", "is starting a diet"),
        ("I'm starting at 9 on Monday", "is starting at 9"),  # a time, no employer
        ("I start work at 9 tomorrow", "starts work"),  # back at work, as every day
        ("I start work tomorrow", "starts work"),
        ("I'm starting at Mom's on Monday", "is starting at Mom's"),  # a kin's home
        ("I'm starting at CrossFit next week", "is starting at CrossFit"),  # a class
    ],
)
def test_a_start_of_no_job_stays_the_plan_it_was(text: str, plan: str) -> None:
    assert {(fact[1], fact[2]) for fact in work(text)} == {("plans", plan)}


def test_a_job_said_in_the_present_stays_as_it_was() -> None:
    assert work("I work as a product manager at Google") == {
        ("Mumu", "works as", "a product manager", "Mumu works as a product manager", START),
        ("Mumu", "works at", "Google", "Mumu works at Google", START),
    }
