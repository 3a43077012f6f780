"""A trip or an outing booked in English, with a time still to come, is the speaker's plan: Flights to Lisbon are
booked, leaving Oct 2 at 7am is ``Mumu's flights to Lisbon are booked, leaving Oct 2 at 7am``, dated then; Got
tickets for the Coldplay concert on the 14th and I booked a table at Nobu for Friday too. The English side of
:mod:`~huiyi.flows.extract.rules.bookings`, stored as the plan rules store a plan (``plans``).

The booking says the thing as done, its time in the clause or the next one (…, leaving Oct 2 at 7am). Only the
speaker's: said with I, my, the or no subject at all; someone else's (My sister booked…, Jake's flights are
booked, booked flights for my mom), ours (whose?), a question, a booking not done (haven't booked, aren't booked
yet) and one with no time to come (I booked the flights last week) are none; nor a plan the plan rules read of
the same time (I booked a table at Nobu for Friday, said on a Wednesday).

    >>> [bool(_booked(c)) for c in ("Flights to Lisbon are booked", "Got tickets for the concert", "I booked a table")]
    [True, True, True]
    >>> [bool(_booked(c)) for c in ("My sister booked a table", "Our flights are booked", "Flights aren't booked yet")]
    [False, False, False]
"""

from __future__ import annotations

import re

from huiyi.flows.extract import FactDraft
from huiyi.flows.extract.rules.condense import dated
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.new_jobs_en import each_once
from huiyi.flows.extract.rules.patterns import en_rule
from huiyi.flows.extract.rules.plans import to_come
from huiyi.flows.extract.rules.plans_en import plan_fact_en
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.flows.extract.rules.sold_out_en import without_sold_out
from huiyi.patterns import lazy
from huiyi.text.times import TimeSpan

__all__ = ["booked_in_en"]

_SENTENCE = lazy(r"[^.!?;\n]+[.!?;\n]*")
_CLAUSE = lazy(r"[^,]+")
_MAX_CHARS = 100  # a longer clause is a story, not a booking
_THING = (
    r"(?:(?:plane|train|bus|concert|movie|show|theater|theatre|game|festival|ferry)\s+)?(?:tickets?|seats?|passes)"
    r"|flights?|(?:a|the)\s+table|(?:a|the)\s+(?:hotel(?:\s+room)?|room|airbnb|cabin|campsite|rental\s+car)"
    r"|hotels?|(?:a|the|our|my)\s+reservation|reservations"
)
# where to or what for: to Lisbon, at Nobu, for the Coldplay concert (a time there is cut from the object)
_FOR = r"(?:\s+(?:to|for|at|in)\s+[^,]{1,50}?)?"
_SO = r"(?:(?:all|just|finally|officially|already|now)\s+)*"
_BOOKED = (
    # Flights to Lisbon are booked, The hotel's booked, My tickets are bought
    en_rule(
        rf"(?:my\s+|the\s+)?(?P<what>(?:{_THING}){_FOR})(?:\s+(?:is|are|got|(?:has|have)\s+been)|'s|'re)\s+{_SO}"
        r"(?:booked|reserved|bought|confirmed|sorted)\b"
    ),
    # I booked a table at Nobu, Got tickets for the Coldplay concert, I've just booked flights to Lisbon
    en_rule(
        rf"(?:I(?:'ve|\s+have)?\s+)?{_SO}(?P<verb>booked|reserved|got|bought|grabbed|scored)\s+(?:us\s+|me\s+)?"
        rf"(?:(?:some|two|three|four|\d)\s+)?(?P<what>(?:{_THING}){_FOR})[\s!.~]*$"
    ),
)
# someone else's trip: booked for my mom, for him, for Mom and Dad, for the kids, for you; Jake's flights
_FOR_SOMEONE = lazy(
    r"\bfor\s+(?:(?:my|his|her|their|your)\s+(?!own\b)\w+|him|her|them|you|the\s+kids"
    r"|mom|mum|dad|grandma|grandpa|nana)\b|\b(?:we|our|us)\b",
    re.I,
)


def _booked(clause: str) -> re.Match[str] | None:
    if _FOR_SOMEONE.search(clause):
        return None
    return next((found for pattern in _BOOKED if (found := pattern.match(clause))), None)


def booked_in_en(said: Said, roster: Roster) -> list[FactDraft]:
    """The plans the message's speaker tells booked, one fact each, dated by the first time to come in the
    booking's clause or the next; none where a plan of the message already has that time."""
    if said.lang != "en" or said.speaker == roster.agent_name:
        return []
    # each phrase once: a line of 3,000 bookings has 3,000 spans, and every booking looked at each (quadratic)
    coming = each_once(to_come(said.spans, said.message.time))
    if not coming:
        return []
    text = said.own.replace("’", "'")
    out: list[FactDraft] = []
    for sentence in (m.group().strip() for m in _SENTENCE.finditer(text, joke_end(text))):
        if sentence.endswith("?"):
            continue
        sentence = without_sold_out(sentence)  # Flights are all booked for Christmas: sold out, no booking
        clauses = [m.group().strip() for m in _CLAUSE.finditer(sentence.rstrip(".!;\n "))]
        for i, clause in enumerate(clauses):
            if len(clause) > _MAX_CHARS or (found := _booked(clause)) is None:
                continue
            then = clauses[i + 1] if i + 1 < len(clauses) else ""
            span = _when(clause, coming) or _when(then, coming)
            planned = [f for f in [*said.facts, *out] if f.predicate == "plans" and span and f.time == span.start]
            if span is None or planned:
                continue
            shown = _shown(said.speaker, clause, found) + (f", {then}" if span.phrase.lower() in then.lower() else "")
            what = _cut(found["what"][:1].lower() + found["what"][1:], span)
            out.append(plan_fact_en(said, roster, said.speaker, dated(shown, [span], "en"), [span], 0.6, what))
    return out


def _when(clause: str, coming: list[TimeSpan]) -> TimeSpan | None:
    return next((span for span in coming if span.phrase and span.phrase.lower() in clause.lower()), None)


def _shown(speaker: str, clause: str, found: re.Match[str]) -> str:
    """The booking said of the speaker: Mumu's flights to Lisbon are booked, Mumu got tickets for…"""
    if found.groupdict().get("verb") is None:  # Flights are booked, My tickets are bought
        rest = clause[found.start("what") :]
        return f"{speaker}'s {rest[:1].lower()}{rest[1:]}"
    return f"{speaker} {clause[found.start('verb') :][:1].lower()}{clause[found.start('verb') + 1 :]}"


def _cut(what: str, span: TimeSpan) -> str:
    """The thing booked without the time said in it, nor the word that led to it (for Friday)."""
    cut = re.sub(rf"\s*(?:\b(?:for|on|at)\s+)?{re.escape(span.phrase)}", "", what, flags=re.IGNORECASE)
    return " ".join(cut.split()) or what
