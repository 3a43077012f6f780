"""The speaker's new job said in English: I'm starting at a new company on Monday, Starting my new job at Google
next week as a product manager, My first day at the hospital is Monday, I got a new job at Stripe. The English
side of :mod:`~huiyi.flows.extract.rules.new_jobs`, stored alike.

The employer is a workplace (``works at``, ``Mumu moved to a new job at Google``, as 木木换到滨江工作) and the role
a job (``works as``, a title :func:`~huiyi.flows.extract.rules.jobs.job_title` knows), both one at a time
(closes.ONE_AT_A_TIME), so "where do I work now" finds the new one; the day it starts, still to come, is a plan
(``Mumu starts a new job at Google next week (2025-09-22～2025-09-28)``), as 下周一去新公司上班 is.

Only the speaker's, said with I or with no subject at a clause's start (Starting my new job…): My husband starts
his new job Monday is his, and nobody's here; a question, a negation, a wish or a supposition (I'm not starting,
if I start at Google) matches no pattern, each read from the clause's start to its end with its times left out.
A new company unnamed (at a new company) is no employer, nor is a time (starting at 9) nor a place one goes to
for oneself (the gym, school): a change said of it has only its day.

    >>> [bool(_changed(c)) for c in ("I'm starting at Google", "Starting my new job at Google as a nurse")]
    [True, True]
    >>> [bool(_changed(c)) for c in ("My first day at the hospital is", "I'm starting at the gym", "I'm starting")]
    [True, False, False]
    >>> [bool(_changed(c)) for c in ("My husband starts his new job", "I'm not starting at Google")]
    [False, False]
"""

from __future__ import annotations

import re
from collections.abc import Callable

from huiyi.flows.extract import EntityDraft, FactDraft
from huiyi.flows.extract.rules.condense import dated
from huiyi.flows.extract.rules.en_clauses import EN_AND_I
from huiyi.flows.extract.rules.jobs import job_title
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.new_jobs import job_fact
from huiyi.flows.extract.rules.patterns import en_rule
from huiyi.flows.extract.rules.persons_en import nobody, someones_place
from huiyi.flows.extract.rules.plans import to_come
from huiyi.flows.extract.rules.plans_en import plan_fact_en
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType
from huiyi.patterns import lazy
from huiyi.text.kin import EN_CALLED
from huiyi.text.language import EN_ABBREVIATION_DOT
from huiyi.text.times import TimeSpan

__all__ = ["each_once", "new_job_in_en"]

# a full stop ends a sentence, but not an abbreviation's (St. Mary's)
_SENTENCE = lazy(rf"(?:{EN_ABBREVIATION_DOT}|[^.!?;\n])+[.!?;\n]*")
_MAX_CHARS = 120  # a longer clause is a story, not news of a job
# where one works, said by its kind (the hospital): not one a person goes to for themselves (the gym, school)
_WORKPLACE = (
    r"the\s+(?:new\s+)?(?:hospital|clinic|bank|firm|office|bakery|restaurant|cafe|café|hotel|library|museum|lab"
    r"|store|shop|factory|agency|studio|startup|warehouse|pharmacy|salon|gallery|newspaper|station|company)"
)
# a name (Google, St. Mary's, Goldman Sachs), its office, or a workplace; a new company unnamed is none
_NAMED = (
    rf"{_WORKPLACE}|(?-i:[A-Z][\w&'.-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w&'.-]*){{0,3}})"
    r"(?:\s+(?:office|branch|store|campus|headquarters|location))?"  # McKinsey's London office
)
_UNNAMED = r"an?\s+new\s+(?:company|firm|place|office|job|team|employer|hospital|school|startup)"
_ROLE = r"an?\s+(?:[\w-]+\s+){0,3}?[\w-]+"
# at the employer and as the role, in either order, each at most once
_WHERE_AS = (
    lazy(rf"\s+at\s+(?:(?P<at>{_NAMED})|(?P<unnamed>{_UNNAMED}))(?:\s+as\s+(?P<as>{_ROLE}))?", re.IGNORECASE),
    lazy(rf"\s+as\s+(?P<as>{_ROLE})(?:\s+at\s+(?:(?P<at>{_NAMED})|(?P<unnamed>{_UNNAMED})))?", re.IGNORECASE),
)
_NEW_JOB = r"(?P<job>\s+(?:(?:my|a|the)\s+new\s+(?:job|role|position|gig)|work|my\s+job))"
_SO = r"(?:(?:finally|officially|just|actually|also)\s+)*"
_CHANGES = tuple(
    en_rule(pattern)
    for pattern in (
        # I'm starting at Google, I start my new job, Starting my new job at Google as a product manager
        rf"(?:I(?:'m|\s+am)\s+{_SO}(?:starting|beginning)|I(?:'ll|\s+will)\s+{_SO}(?:be\s+starting|start|begin)"
        rf"|I\s+{_SO}(?:start|begin)|{_SO}(?:starting|beginning)){_NEW_JOB}?(?P<tail>.*?)[\s,.!~]*$",
        # My first day at the hospital is (Monday), (Monday) is my first day at Google, my first day of work
        rf"(?:(?:is|'s)\s+)?my\s+first\s+day(?:\s+(?:at|of){_NEW_JOB})?(?P<tail>.*?)"
        r"(?:\s+(?:is|'s|will\s+be))?[\s,.!~]*$",
        # I got a new job at Stripe, I just landed a job at Google as an engineer, I started my new job at…
        rf"I(?:'ve|\s+have)?\s+{_SO}(?:got|landed|accepted|took|started)(?P<job>\s+(?:a|the|my)\s+(?:new\s+)?job)"
        r"(?P<tail>.*?)[\s,.!~]*$",
    )
)
# a kin's home or a class one joins is no employer (I'm starting at Mom's, I'm starting at CrossFit next week)
_NO_EMPLOYER = lazy(
    rf"{EN_CALLED}'s|Pilates|Yoga|CrossFit|Zumba|Barre"
    r"|Orangetheory|SoulCycle|Spin|Kumon",
    re.IGNORECASE,
)
_BARE_WORK = lazy(r"\s+(?:work|my\s+job)", re.IGNORECASE)  # not a new one
_A_JOB_WORD = lazy(r"\b(?:start|begin|first\s+day|job)", re.IGNORECASE)  # what every pattern holds, looked for first
# a time cut out of the clause, with the word that led to it (on Monday, from next week, starting Oct 1)
_LED = lazy(r"\s*(?:,\s*)?(?:(?:on|from|in|starting|this|come)\s+)?$", re.IGNORECASE)


def new_job_in_en(said: Said, roster: Roster) -> list[FactDraft]:
    """The employer, role and first day to come of the speaker's new job that ``said`` tells; the plans the
    plan rules read of that day give way to its plan."""
    if said.lang != "en" or said.speaker == roster.agent_name:  # the persona's career is its own business
        return []
    text = said.own.replace("’", "'")
    # each phrase once: a line of 3,000 "on Monday" has 3,000 spans, and every clause looked at each (quadratic)
    spans = each_once(said.spans)
    out: list[FactDraft] = []
    for sentence in (m.group().strip() for m in _SENTENCE.finditer(text, joke_end(text))):
        if sentence.endswith("?"):
            continue
        for clause in EN_AND_I.split(sentence.rstrip(".!;\n ")):
            if len(clause) > _MAX_CHARS:
                continue
            if not _A_JOB_WORD.search(clause):
                continue
            timeless, said_in = _without_times(clause.strip(" ,"), spans)
            if (found := _changed(timeless, roster.resolve)) is not None:
                out.extend(_facts(said, roster, *found, to_come(said_in, said.message.time)))
    return out


def each_once(spans: list[TimeSpan]) -> list[TimeSpan]:
    """The first span of each phrase, in the order said."""
    first: dict[str, TimeSpan] = {}
    for span in spans:
        first.setdefault(span.phrase.casefold(), span)
    return list(first.values())


def _without_times(clause: str, spans: list[TimeSpan]) -> tuple[str, list[TimeSpan]]:
    """``clause`` with the time phrases said in it left out (and the word that led to each), and those spans."""
    found: list[TimeSpan] = []
    for span in spans:
        at = clause.casefold().find(span.phrase.casefold()) if span.phrase else -1
        if at < 0:
            continue
        led = _LED.search(clause, 0, at)
        start = led.start() if led else at
        clause = f"{clause[:start]} {clause[at + len(span.phrase) :]}".strip()
        found.append(span)
    return " ".join(clause.split()), found


def _changed(clause: str, known: Callable[[str], str | None] = nobody) -> tuple[str, str] | None:
    """(employer, role), either "" when not said, of the new job ``clause`` (its times left out) tells, or
    None when it tells none: it names the job, a workplace or a role (I'm starting at the gym is none). An
    employer that is a person ``known`` resolves, or one's house (at Sarah's), is none."""
    for pattern in _CHANGES:
        found = pattern.match(clause)
        if found is None:
            continue
        tail = found["tail"]
        where = next((m for p in _WHERE_AS if (m := p.fullmatch(tail))), None) if tail else None
        if tail and where is None:
            continue
        employer = (where["at"] or "") if where else ""
        if _NO_EMPLOYER.fullmatch(employer):
            continue  # I'm starting at Mom's, at CrossFit: a visit or a class
        if someones_place(employer, known):
            employer = ""  # I'm starting at Sarah's: her house; Starting my new job at Sarah's: a job, no employer
        if pattern is _CHANGES[0] and _BARE_WORK.fullmatch(found["job"] or "") and not employer and not where:
            continue  # I start work tomorrow (at 9): back at work, as every day, no new job
        role = where["as"] if where and where["as"] and job_title(where["as"]) else ""
        if where and where["as"] and not role:
            continue  # as a favour, as a volunteer: no job of the list
        if employer or role or found["job"] or (where and where["unnamed"]):
            return employer, role
    return None


def _facts(said: Said, roster: Roster, employer: str, role: str, coming: list[TimeSpan]) -> list[FactDraft]:
    who = said.speaker
    out: list[FactDraft] = []
    if employer:
        out.append(_fact(said, roster, "works at", employer, f"{who} moved to a new job at {employer}"))
        said.entities.append(EntityDraft(employer, EntityType.SPECIFIC))
    if role:
        out.append(_fact(said, roster, "works as", role, f"{who} works as {role}"))
    if coming:
        span = coming[0]
        what = "starts a new job" + (f" at {employer}" if employer else "") + (f" as {role}" if role else "")
        phrase = span.phrase
        when = f"on {phrase}" if _A_DAY.match(phrase) else phrase[:1].lower() + phrase[1:]  # Next week, …
        # the plan rules read "I'm starting at a new company on Monday" too (or, after "I quit my job, …", the
        # whole line as one plan): this plan of the day is the one kept
        said.facts[:] = [f for f in said.facts if f.predicate != "plans" or f.time != span.start]
        out.append(plan_fact_en(said, roster, who, dated(f"{who} {what} {when}", [span], "en"), [span], 0.6, what))
    known = {(f.predicate, f.object) for f in said.facts}
    return [fact for fact in out if (fact.predicate, fact.object) not in known]


# a day said by its name or date, which "on" leads to (on Monday, on Oct 2), not a distance (next week, tomorrow)
_A_DAY = lazy(
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|the\s+\d",
    re.IGNORECASE,
)


def _fact(said: Said, roster: Roster, predicate: str, obj: str, description: str) -> FactDraft:
    return job_fact(said, roster, predicate, obj, description, place=predicate == "works at", keyword="work")
