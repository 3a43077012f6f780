"""A plan called off or moved, said in English: My dentist appointment got cancelled, I had to cancel my trip
to Osaka, The camping trip was postponed, Emma's wedding got moved to April 19th, The wedding is now on April
19th. The English side of :mod:`~huiyi.flows.extract.rules.cancels`.

The plan's words (dentist, appointment; a wedding's also married) close the open plan facts of its owner that
hold one of them, said before (``valid_to`` = when it was called off): the speaker's (my, our, the, I, we;
Monday's meeting is a day's), or a person's named with it (Emma's wedding); one named with no owner at a
clause's start (Dinner with Jake got cancelled) is anyone's in a chat of two, as "the" is. A new time still
to come named in the clause (moved to Friday, is now on April 19th) becomes a plan of its own, ``Mia's dentist
appointment moved to Friday (2024-11-22)``.
The speaker saying they will not go (I'm not going to the party anymore, I can't make it to Jake's dinner)
calls off their own plan of it, never the party's owner's. A question, a negation or a doubt (didn't get
cancelled, might be postponed, if it's cancelled) calls
nothing off, nor does someone else's plan (his flight got cancelled); moving a thing with no time still to
come (I moved the couch to the bedroom) is no plan moved.
"""

from __future__ import annotations

import re

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.rules.condense import dated
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.objects import person_named
from huiyi.flows.extract.rules.plans import to_come
from huiyi.flows.extract.rules.plans_en import plan_fact_en
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.patterns import lazy
from huiyi.text.times import TimeSpan

__all__ = ["english_cancels"]

_SENTENCE = lazy(r"[^.!?;\n]+[.!?;\n]*")
_OWNER = r"(?P<det>my|our|the|(?-i:(?P<name>[A-Z][a-z-]+))'s)"
_WHAT = r"(?P<what>[\w-]+(?:\s+[\w-]+){0,3}?)"
_OFF = r"cancell?ed|called\s+off|scrapped"
_MOVED = r"moved|pushed(?:\s+back)?|postponed|rescheduled|bumped|delayed"
# the trip has to move to…, needs to be pushed back to…, will be moved to…: moved, as said
_MUST_MOVE = (
    r"(?:(?:has|have|had|needs?)\s+to|will)(?:\s+be)?\s+"
    r"(?:moved|move|pushed(?:\s+back)?|push(?:\s+back)?|postponed)(?=\s+(?:to|till|until)\b)"
)
_PASSIVE_TAIL = (
    rf"{_WHAT}(?:(?=\s+(?:(?:has|have|had|needs?)\s+to|will)\s)|\s+(?:got|was|were|is|are|(?:has|have|had)\s+been)"
    r"|'s(?:\s+been)?|'ve\s+been)\s+"
    r"(?:just\s+|now\s+been\s+|been\s+)?"
    rf"(?:(?P<off>{_OFF})|(?P<moved>{_MOVED}|{_MUST_MOVE})|(?P<now>now)\b)"
)
# The camping trip got cancelled, Emma's wedding was moved to…, The wedding is now on April 19th
_PASSIVE = lazy(rf"\b{_OWNER}\s+{_PASSIVE_TAIL}", re.IGNORECASE)
# no owner, at a clause's start: Dinner with Jake got cancelled, ugh, practice got moved to Friday
_BARE = lazy(rf"(?:^|(?<=[,:]\s)){_PASSIVE_TAIL}", re.IGNORECASE)
# I cancelled my trip, We had to call off the party, I moved my dentist appointment to Friday
_ACTIVE = lazy(
    r"\b(?:I|we)(?:'ve|\s+have|\s+had)?\s+(?:just\s+|finally\s+)?(?:(?:had|have|'ve\s+got|need)\s+to\s+)?"
    r"(?:(?P<off>cancell?(?:ed)?|call(?:ed)?\s+off|scrap(?:ped)?)|(?P<moved>move[d]?|push(?:ed)?(?:\s+back)?"
    rf"|postpone[d]?|reschedule[d]?|bump(?:ed)?|delay(?:ed)?))\s+{_OWNER}\s+{_WHAT}(?=\s+(?:to|till|until)\b|\s*[,.!;]|\s*$)",
    re.IGNORECASE,
)
# I'm not going to the party anymore, I can't make it to Jake's dinner: the speaker's plan is off (their no
# is the point here, so only what comes before it is read for a doubt)
_OUT = lazy(
    r"\b(?:I|we)(?:'m|'re|\s+am|\s+are)?\s+(?P<off>not\s+going|no\s+longer\s+going|can't\s+(?:go|make\s+it)"
    rf"|cannot\s+(?:go|make\s+it)|won't\s+(?:be\s+going|make\s+it))\s+to\s+{_OWNER}\s+{_WHAT}"
    r"(?=\s+(?:anymore|any\s+more|after\s+all|tomorrow|tonight|on|this|next)\b|\s*[,.!;]|\s*$)",
    re.IGNORECASE,
)
# didn't get cancelled, might be postponed, if it's cancelled, almost called off: nothing called off
_DOUBT = lazy(
    r"n't\b|\b(?:not|never|if|unless|might|may|maybe|could|would|should|hope|hoping|afraid|worried|almost|nearly"
    r"|whether|thinking|think|considering)\b",
    re.IGNORECASE,
)
# what a clause's start is when it is no plan: It got cancelled, Jake said dinner got…, Everything was moved
_NO_PLAN = frozenset(
    "it that this these those everything something nothing all everyone someone he she they said says told think"
    " heard guess apparently i we you his her their your its and but so the my our a an".split()
)
_SOMEONE = lazy(r"\b(?:he|she|they|his|her|their|you|your)\b", re.IGNORECASE)
_NOT_WORDS = frozenset("the my our this that his her their your a an to of for with and at on in".split())
_ALSO = {"wedding": ("married",), "flight": ("flying", "fly"), "birthday": ("birthday",)}  # a plan said otherwise


def english_cancels(said: Said, roster: Roster, private: bool) -> tuple[list[FactDraft], list[CloseDraft]]:
    """The plans an English message calls off (their closes) and the new plans it names for them; the
    plan facts the plan rules read of the same new time give way to them. ``private``: a chat of two, where
    "the wedding" is whoever's wedding was told of (a group's is its speaker's)."""
    if said.lang != "en" or said.speaker == roster.agent_name:
        return [], []
    text = said.own.replace("’", "'")
    facts: list[FactDraft] = []
    closes: list[CloseDraft] = []
    for match in _SENTENCE.finditer(text, joke_end(text)):  # I cancelled it, jk: nothing
        sentence = match.group().strip()
        if not sentence or sentence.endswith("?"):
            continue
        found = _PASSIVE.search(sentence) or _ACTIVE.search(sentence) or _BARE.search(sentence)
        out = None if found is not None else _OUT.search(sentence)
        found = found or out
        doubted = sentence[: found.start() if out else found.end()] if found is not None else ""
        if found is None or _DOUBT.search(doubted) or _SOMEONE.search(sentence[: found.start()]):
            continue
        det = (found.groupdict().get("det") or "").lower()
        what = found["what"]
        if not det:  # Dinner with Jake got cancelled: the clause's start is the plan, said as anyone's
            if _NO_PLAN & {word.lower() for word in what.split()}:
                continue
            what = what[:1].lower() + what[1:]
        # I'm not going to Jake's party: the speaker's going is off, not Jake's party
        who = said.speaker if out else _owner(found, said, roster)
        anyone = private and det in ("the", "") and not out
        after = sentence[found.end() :]
        coming = [span for span in to_come(said.spans, said.message.time) if span.phrase.lower() in after.lower()]
        # I moved the couch to the bedroom: no time, no plan moved; postponed alone calls it off
        put_off = (found.groupdict().get("moved") or "").lower().startswith(("postpone", "delay"))
        if found["off"] is None and not coming and not put_off:
            continue
        if who is None or not (words := _words(what)):
            continue
        closer = "" if anyone else who  # "": any subject's (closes.to_close)
        closes.extend(CloseDraft(closer, "plans", word, said.message.time, [said.message.id]) for word in words)
        if coming and found["off"] is None:
            # I moved my dentist appointment to Friday: the plan rules read the same date as a plan of its own
            said.facts[:] = [f for f in said.facts if f.predicate != "plans" or f.time != coming[0].start]
            whose = f"{who} says the" if det in ("the", "") else f"{who}'s"  # whose, it does not say
            facts.append(_moved(said, roster, who, f"{whose} {what}", found, after, coming))
    return facts, closes


def _owner(found: re.Match[str], said: Said, roster: Roster) -> str | None:
    """Whose plan: a person's named with it (Emma's wedding), else the speaker's: Monday's meeting, Tomorrow's
    dinner are a day's, one of the message's time phrases."""
    name = found.groupdict().get("name")
    if not name or any(name.lower() in span.phrase.lower().split() for span in said.spans):
        return said.speaker
    known = roster.resolve(name)
    return known or (name if person_named(name) else None)


def _words(what: str) -> list[str]:
    """The plan's words a fact of it holds: dentist appointment → dentist, appointment."""
    words = [w for w in re.findall(r"[A-Za-z][\w-]{2,}", what) if w.lower() not in _NOT_WORDS]
    return list(dict.fromkeys([*words, *(also for w in words for also in _ALSO.get(w.lower(), ()))]))


def _moved(
    said: Said, roster: Roster, who: str, what: str, found: re.Match[str], after: str, spans: list[TimeSpan]
) -> FactDraft:
    """The plan at its new time: ``Mia's dentist appointment moved to Friday (2024-11-22)``, ``Mia says the
    wedding is now on April 19th`` (``what``: the plan as the fact names it)."""
    verb = "is now" if found.groupdict().get("now") else "moved"
    when = re.split(r"[,;]", after, maxsplit=1)[0].strip().rstrip(".!")
    shown = dated(f"{what} {verb} {when}".strip(), spans, "en")
    return plan_fact_en(said, roster, who, shown, spans, 0.6, f"{found['what']} {verb} {when}".strip())
