"""Plans said in English with a time still to come: I'm flying to Osaka next Monday, I have a dentist
appointment tomorrow, My sister Emma is getting married next Saturday (Emma's plan; that she is the speaker's
sister is :mod:`~huiyi.flows.extract.rules.relations`'). The English side of :mod:`~huiyi.flows.extract.rules.plans`.

The subject is the speaker (I, I'm, I'll…) or someone named at the clause's start (Emma, my sister Emma); the
fact is theirs, dated by the first phrase still to come, its text the clause with "I" made the speaker's name
and each relative phrase followed by its date: ``Emma is getting married next Saturday (2024-11-16)``.
Questions, negations (I'm not going tomorrow), suppositions and someone's words (if…, she said…) are no plan;
one said unsure (I might fly to Osaka next Monday) is tentative. Nor is a state (I'm busy next week: only doing
counts, as 是 does not in the Chinese rule), a suggestion (Let's…), or a time said in a clause with a subject of
its own (I'm a guard and our opener is next week).
"""

from __future__ import annotations

import re

from huiyi.flows.extract import FactDraft
from huiyi.flows.extract.rules.condense import absolute, dated
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.objects import person_named
from huiyi.flows.extract.rules.parties_en import parties_named
from huiyi.flows.extract.rules.patterns import TENTATIVE, en_rule
from huiyi.flows.extract.rules.plans import to_come
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.flows.extract.rules.sold_out_en import without_sold_out
from huiyi.model import EntityType, FactKind
from huiyi.text.kin import EN_KIN
from huiyi.text.tense_en import MOVED_TO, given_up
from huiyi.text.times import TimeSpan
from huiyi.text.times_en import A_WEEKEND

__all__ = ["english_plans_in", "plan_fact_en", "told_of_speaker"]

_CLAUSE = re.compile(r"[^.!?;\n]+[.!?;\n]*")
_MAX_CHARS = 100  # a longer clause is a story, not a plan
_SUBJECT = en_rule(
    # Jake and I are going…
    r"(?:(?P<with>(?-i:[A-Z][a-z-]+))\s+and\s+I(?:\s+(?P<we>are|will|have)\b|(?P<we_short>'re|'ll|'ve))"
    r"|(?P<i>I)(?:\s+(?P<be>am|will|have)\b|(?P<short>'m|'ll|'ve)|(?=\s+[a-z]))"
    rf"|my\s+(?:{EN_KIN}),?\s+(?P<kin>(?-i:[A-Z][a-z-]+))"
    r"|(?!let's)(?P<name>(?-i:[A-Z][a-z-]+))(?=\s+(?:is|will|has)\b|'s\s|'ll\s))"  # Let's…: a suggestion
)
_VERBS = {"am": "is", "m": "is", "will": "will", "ll": "will", "have": "has", "ve": "has"}
_WE_VERBS = {"are": "are", "re": "are", "will": "will", "ll": "will", "have": "have", "ve": "have"}
# a verb said in the past (I booked a table for tomorrow) is said of the speaker as it is
_PAST = frozenset(
    "went had got made did was were saw took bought told said left came ran met found thought felt gave kept sent"
    " spent paid won lost wrote ate drank flew drove rode swam began booked set put let cut read heard".split()
)
_NOT = re.compile(
    r"n't\b|\b(?:not|no|never|if|unless|wish|hope|hoped|hoping|said|says|told|asked|supposed|was\s+going|were)\b",
    re.IGNORECASE,
)
_OWN_SUBJECT = re.compile(
    r",?\s+(?:and|but|so|because|while|though)\s+"
    # I went to the gym and tomorrow I have…: a time before the subject still starts a clause of its own
    r"(?=(?:(?i:today|tomorrow|tonight|then|later|(?:next|this)\s+\w+),?\s+)?"
    # …so let's hang: a suggestion of its own, no more of the plan
    r"(?:I|(?i:i|we|you|he|she|they|it|our|my|your|his|her|their|let's))\b)"
    r"(?!I\s+(?:are|were)\b|I're\b)"  # Jake and I are going…: one subject of two
)
# what a plan's "is" is followed by: something being done (flying, getting married, off to…, so excited to fly);
# I'm busy, I'm a guard says how one is, as 是 does in the Chinese rule
_ACTING = re.compile(
    r"\s*(?:is|'s|am)\s+(?!\w+ing\b|(?:off|away|out|back|gonna|about|got)\b|(?:\w+\s+)?\w+\s+to\s+[a-z])",
    re.IGNORECASE,
)
_MODALS = frozenset("might may can could would should must shall".split())
# verbs whose present ends in -ed, not said in the past: I need to… is "Mia needs to…", not "Mia need to…"
_PRESENT_IN_ED = frozenset("need feed bleed breed speed succeed proceed exceed heed shed shred wed embed".split())
_UNSURE = re.compile(r"\b(?:might|may|maybe|probably|perhaps|possibly)\b", re.IGNORECASE)


def english_plans_in(said: Said, roster: Roster, private: bool = False) -> list[FactDraft]:
    """The plans an English message states, one fact each (see the module docstring); in a ``private`` chat
    "you" is the other party, named (I'm going to see you tomorrow: Mia is going to see Ava tomorrow)."""
    message = said.message
    coming = to_come(said.spans, message.time)
    if said.lang != "en" or not coming or said.speaker == roster.agent_name:
        return []
    text = said.own.replace("’", "'").replace("‘", "'")
    begun = {span.phrase for span in said.spans if span.start <= message.time}  # this month, said on the 10th
    out: list[FactDraft] = []
    sentences = [match.group().strip() for match in _CLAUSE.finditer(text, joke_end(text))]
    # a clause with a subject of its own is another statement: …, but I'm hoping…, and our opener is next week
    clauses = [
        clause
        for sentence in sentences
        if not sentence.endswith("?")
        for clause in _OWN_SUBJECT.split(without_sold_out(sentence))
    ]
    # the first span of each phrase: a clause is matched by the phrases said, not by every span (3,000 times
    # "Friday" read 3,000 spans for each clause, and cut each from its plan: quadratic)
    firsts: dict[str, TimeSpan] = {}
    for span in coming:
        firsts.setdefault(span.phrase.casefold(), span)
    for clause in clauses:
        folded = clause.casefold()
        spans = [span for phrase, span in firsts.items() if phrase in folded]
        if not spans or len(clause) > _MAX_CHARS or _NOT.search(clause):
            continue
        spans.sort(key=lambda span: given_up(clause, span.phrase))  # from Monday to Friday: Friday's plan
        lead = next((span.phrase for span in spans if clause.casefold().startswith(span.phrase.casefold())), "")
        found = _SUBJECT.match(clause[len(lead) :].lstrip(" ,").rstrip(".!;\n "))  # Tomorrow, I fly…
        if found is None:
            continue
        who, rest = _whose(found, said.speaker, roster)
        if who is None or not rest.strip() or not _acts(rest) or (spans[0].phrase in begun and _done(rest)):
            continue
        ours = parties_named(rest, said.speaker, None)  # our cabin: the speaker's
        if ours is None:
            continue  # I'm booking a table for us: with whom, nobody can tell
        rest = ours
        if other := roster.other_party(said.speaker, private):  # in a group nobody can tell who "you" is
            rest = _agreed(_YOU.sub(lambda you: _named_you(you, other), rest), other)
        shown = dated(" ".join([f"{who}{rest}".rstrip(".!;\n ,"), lead[:1].lower() + lead[1:]]).strip(), spans, "en")
        out.append(plan_fact_en(said, roster, who, shown, spans, TENTATIVE if _UNSURE.search(clause) else 0.6))
    return out


# "my" before what someone has, not in a title ("My Little Pony") nor "oh my god" (helper's review)
SPEAKERS_MY = re.compile(r"(?<!oh )(?<![\w\"“'])my(?=\s+(?:[a-z]+\s+)?[a-z])(?![^\"”]*[\"”])")
# "me" of the speaker (keeps me calm, reminds me), not in a quote; and a clause of "I" after a noun (the friends I
# have, a movie I really enjoy), which would read as the agent's
SPEAKERS_ME = re.compile(r"(?<![\w\"“'])me\b(?![\s-]+time\b)(?![^\"”]*[\"”])")  # not "me time"
# "your" before what the other party has (loves your turtles); a bare "you" may be anyone's (loves when you try)
OTHERS_YOUR = re.compile(r"(?<![\w\"“'])your(?=\s+[a-z])(?![^\"”]*[\"”])")
# with the word that opens it (movies where I can laugh: movies; how I feel after a run: nothing is left); not an
# I of a title (the song I Will Survive)
I_CLAUSE = re.compile(
    r"(?:^|\s+)(?:(?:when|whenever|where|how|what|that|which|who|whom|if|because|'cause|as|while|since|once"
    r"|after|before|until)\s+)?I(?:'m|'ve|'d|'ll)?\s+(?=[a-z]).*$"
)

# an I told of after "me" or a verb of saying or knowing (tell me I'm pretty, people say I inspire them): what is
# said of the speaker, so it is said of their name; cut as a clause of I it left "Mia loves when people tell Mia"
_TOLD_I = re.compile(
    r"\b(?P<told>me|say|says|said|saying|tell|tells|told|telling|think|thinks|thought|thinking|know|knows|knew"
    r"|knowing|believe|believes|believing|feel|feels|felt|feeling|hear|hears|heard|hearing|realize|realizes"
    r"|realized|realizing|notice|notices|noticed|noticing)\s+(?P<that>that\s+)?"
    r"I(?:(?P<short>'m|'ve|'d|'ll)(?=\s+[a-z])|\s+(?P<how>(?:(?:\w+ly|always|never|just|still|also|even|often"
    # a verb may end the object (knowing I helped): left as a clause of I, it was cut to "the feeling Mia gets knowing"
    r"|sometimes)\s+)*)(?P<verb>[a-z][\w']*)(?=\s+[a-z]|\W*$))"
)
_SHORT_VERBS = {"'m": "is", "'ve": "has", "'d": "would", "'ll": "will"}
_NOT_VERBS = {"don't": "doesn't", "haven't": "hasn't"}
# a participle after I'd makes it I had (people said I'd changed, I'd better), not would; not read, set, put, let, cut
_PARTICIPLE = re.compile(
    r"\s+(?:(?:\w+ly|always|never|just|already|ever|even|still|also)\s+)*(?:\w+(?<!e)ed|been|gone|done|seen|known"
    r"|grown|given|taken|forgotten|gotten|become|better|eaten|written|chosen|broken|fallen|driven|spoken|had|got|made"
    r"|told|said|left|met|found|thought|felt|kept|sent|spent|paid|won|lost|heard|bought|brought|taught)\b"
)


def told_of_speaker(value: str, name: str) -> str:
    """``value`` with an I told of said of ``name``, its verb agreeing; a "that" after "me" keeps the two names
    apart (tell me I'm pretty: tell me that Mia is pretty).

    >>> told_of_speaker("when people tell me I'm pretty", "Mia")
    'when people tell me that Mia is pretty'
    >>> told_of_speaker("hearing people say I really inspire them", "Mia")
    'hearing people say Mia really inspires them'
    >>> told_of_speaker("when they say I don't look my age", "Mia")
    "when they say Mia doesn't look my age"
    >>> told_of_speaker("when people said I'd changed a lot", "Mia"), told_of_speaker("saying I'd make it", "Mia")
    ('when people said Mia had changed a lot', 'saying Mia would make it')
    """

    def said_of(told: re.Match[str]) -> str:
        verb = told["verb"] or ""
        if told["short"] == "'d" and _PARTICIPLE.match(told.string, told.end()):
            verb = "had"
        elif told["short"]:
            verb = _SHORT_VERBS[told["short"]]
        elif verb in _NOT_VERBS:
            verb = _NOT_VERBS[verb]
        elif not verb.endswith("n't"):
            verb = _third_person(" " + verb).strip()
        that = told["that"] or ("that " if told["told"] == "me" else "")
        return f"{told['told']} {that}{name} {told['how'] or ''}{verb}"

    return _TOLD_I.sub(said_of, value)


# "you", "your", "yours" said to the other party: in the agent's prompt "see you" reads as the agent seeing
# itself; not "you know", "you guys", nor a title ("You" the show), nor a thanks or a goodbye after a plan
# (", see you later", ", love you", "thank you for asking"): "see Ava later" would read as a second plan
_YOU = re.compile(
    r"(?<![\w\"“'])(?<![Tt]hank )(?<![,!.] see )(?<![,!.] love )(?<![,!.] miss )"
    r"(?:you(?!\s+(?:know|guys|all|both|two|see)\b|')|your(?=\s+[a-z])|yours)\b(?![^\"”]*[\"”])"
)


# "a place where you can see the whole city", "the app you need a code for": "you" anyone, the subject of what
# can be done there, not the agent; the you a plan is with or for (see you, with you, call you), and the you
# of once/if/so/that… in a chat (once you have time, so you can try it, the spot that you recommended) is
_GENERIC_BEFORE = re.compile(r"\b(?:where|wherever)\s+$", re.I)
_GENERIC_AFTER = re.compile(r"^\s+(?:can|can't|cannot|need|needs|have\s+to|get\s+to|gotta)\b", re.I)
# …whether you can come, I hope you can make it, so you can try it: said to the agent
_ADDRESSED_BEFORE = re.compile(
    r"\b(?:and|or|whether|if|so|because|once|when|whenever|unless|until|since|sure|hope|think|know|bet)\s+$", re.I
)
# …the park where you and I met, the cafe you can see from your window: the agent's own
_ADDRESSED_AFTER = re.compile(r"^\s+and\s+(?:I|me)\b|^[^,.;!?]*\byour\b", re.I)


def _named_you(you: re.Match[str], other: str) -> str:
    """``you`` as the other party (Ava, Ava's), or as said where it is anyone (where you can see…)."""
    before = you.string[: you.start()]
    after = you.string[you.end() :]
    generic = _GENERIC_BEFORE.search(before) or (_GENERIC_AFTER.match(after) and not _ADDRESSED_BEFORE.search(before))
    if you.group() == "you" and generic and not _ADDRESSED_AFTER.match(after):
        return you.group()
    return other if you.group() == "you" else f"{other}'s"


_THIRD_PERSON_VERB = {"have": "has", "are": "is", "were": "was", "do": "does", "don't": "doesn't", "haven't": "hasn't"}


def _agreed(text: str, other: str) -> str:
    """``text`` with the verb after the other party's name, put for "you", agreeing with it (once Ava has
    time, not "once Ava have time"); not after "and" (Liz and Ava are going).

    >>> _agreed("is going to call once Ava have time, if Ava are free", "Ava")
    'is going to call once Ava has time, if Ava is free'
    >>> _agreed("and Ava are going to the movies", "Ava")
    'and Ava are going to the movies'
    """
    verbs = "|".join(map(re.escape, _THIRD_PERSON_VERB))
    agree = re.compile(rf"(?<!\band )\b{re.escape(other)} ({verbs})\b")
    return agree.sub(lambda m: f"{other} {_THIRD_PERSON_VERB[m.group(1)]}", text)


# a verb told done (finished, went, has finished): of a time already under way it is no plan (I finished the
# course this month), though of one to come it may be (I booked a table for tomorrow)
_TOLD_DONE = re.compile(
    r"\s*(?:(?:has|have)\s+(?:(?:already|just)\s+)?(?:\w+ed|been|done|gone|seen|had|made)\b"
    r"|(?:(?:already|just)\s+)?(?P<verb>[a-z]+)\b)",
    re.IGNORECASE,
)


def _done(rest: str) -> bool:
    """Whether the clause after its subject tells what it did (finished the course, has been to Paris)."""
    told = _TOLD_DONE.match(rest)
    if told is None:
        return False
    return _said_past((told["verb"] or "ed").lower())


def _said_past(verb: str) -> bool:
    """Whether ``verb`` is said in the past (went, finished), not in the present (need, feed)."""
    return verb in _PAST or (verb.endswith("ed") and verb not in _PRESENT_IN_ED)


def _acts(rest: str) -> bool:
    """Whether the clause after its subject does something ("is flying", "will fly", "has a recital"), not
    only says how the subject is ("is busy", "is a guard")."""
    return _ACTING.match(rest) is None


_PRONOUNS = frozenset("You He She They It We".split())


def _whose(found: re.Match[str], speaker: str, roster: Roster) -> tuple[str | None, str]:
    """(whose plan, the clause after its subject) — "I'm flying" reads "Mia is flying"."""
    rest = found.string[found.end() :]
    if found["with"]:  # Jake and I are going…: the speaker's plan, with Jake
        verb = _WE_VERBS[(found["we"] or found["we_short"]).lstrip("'")]
        if found["with"] in _PRONOUNS:  # You and I…: "you" as below; He and I…: whom? (it read "Liz and You")
            return (speaker, f" and you {verb}{rest}") if found["with"] == "You" else (None, "")
        return speaker, f" and {roster.resolve(found['with']) or found['with']} {verb}{rest}"
    if found["i"]:
        verb = found["be"] or found["short"]
        # the speaker's: in the agent's prompt "my dog" is its own (helper)
        rest = SPEAKERS_MY.sub(f"{speaker}'s", rest)
        return speaker, (" " + _VERBS[verb.lstrip("'")] + rest if verb else _third_person(rest))
    name = found["kin"] or found["name"]
    known = roster.resolve(name)
    if known is None and not person_named(name):
        return None, ""
    return known or name, rest


def _third_person(rest: str) -> str:
    """ " fly to Osaka" → " flies to Osaka": the speaker's first verb said of them.

    >>> _third_person(" need to call"), _third_person(" booked a table"), _third_person(" fixed it")
    (' needs to call', ' booked a table', ' fixed it')
    """
    verb, _, after = rest.strip().partition(" ")
    irregular = {"have": "has", "do": "does", "go": "goes", "am": "is"}
    if verb in _MODALS or _said_past(verb):
        pass
    elif verb in irregular:
        verb = irregular[verb]
    elif re.search(r"[^aeiou]y$", verb):
        verb = verb[:-1] + "ies"
    elif verb.endswith(("s", "sh", "ch", "x", "o")):
        verb += "es"
    else:
        verb += "s"
    return f" {verb} {after}".rstrip()


def _unless_had(phrase: re.Match[str]) -> str:
    """A time phrase cut from a plan's object, but for a weekend had (a 3-day weekend, a long weekend): it is the
    thing planned ("has got a 3-day" was left)."""
    return phrase.group() if A_WEEKEND.search(phrase.string, 0, phrase.start()) else ""


# a word that only led to a time cut from a plan's object: finish the report by Friday was "finish the report by";
# on, at, in, over… may end a phrasal verb before a word of time that takes none (sign in tomorrow, come over
# tonight), so they go only before one that takes them (on Friday); by goes but after stop, drop… (stop by)
_LED_TO = re.compile(
    r"(?:\s+(?P<joined>and|or|&))?(?:\s+(?P<prep>until|till|before|after|for|since|from|by|on|at|in|over|through"
    r"|during|around))?\s*$",
    re.IGNORECASE,
)
_ALWAYS_LEADS = frozenset("until till before after for since from".split())
_TAKES_NONE = re.compile(r"(?:today|tonight|tomorrow|yesterday|this|next|last|coming)\b", re.IGNORECASE)
# no day of the week is led to by in, at or over: those are a particle's (moving in Saturday, come over Friday)
_A_WEEKDAY = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.IGNORECASE)
_DEICTIC = re.compile(r"(?:today|tonight|tomorrow|yesterday)\b", re.IGNORECASE)  # on next Friday is said
_DROPS_BY = re.compile(r"\b(?:stop|drop|swing|pop|come|came|pass)\w*\s+by\s*$", re.IGNORECASE)
_BE_AROUND = re.compile(r"\b(?:be|am|is|are|'m|'re|'s)\s+around\s*$", re.IGNORECASE)  # I'll be around Friday
_LED = re.compile(r"(?:at|in|on|by|for|until|till|before|after|during|over|since|from|through)\b", re.IGNORECASE)
_ENDS = re.compile(r"[\s,.;!?]*(?:$|(?:and|or|&)\b)", re.IGNORECASE)
# Friday's standup: the day is whose the thing is, so the thing stays as "the standup", not "'s standup"
_OWNED = re.compile(r"'s(?=\s+\w)", re.IGNORECASE)
# a day joined to the time (Saturday and Sunday, from Monday to Friday, Mon-Fri) is of the time too, even when
# it was not read as one still to come (Sunday said on a Sunday)
_JOINED_DAY = re.compile(
    r"\s*,?(?:\s+(?:and|or|&|through|thru|to|till|until)\s+|\s*[-–]\s*)(?:on\s+)?(?:(?:next|this|coming)\s+)?"
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|tonight|the\s+weekend"
    # or a date (from Nov 20 to Nov 22 stored "is off to")
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|the\s+\d{1,2}(?:st|nd|rd|th))\b"
    r"(?!,?\s+(?:i|we|you|he|she|they)\b)",  # …and Sunday I'll rest: that day is the next clause's
    re.IGNORECASE,
)
# an aside after a plan's time (I have work Monday though, I'm off Monday lol) is not what is planned
_ASIDE_END = re.compile(
    r"(?:[\s,]+(?:though|tho|anyway|anyways|lol|lmao|haha\w*|hehe\w*|honestly|tbh|btw|i\s+guess))+[\s,.!~]*$",
    re.IGNORECASE,
)


def _cut_time(what: str, phrase: str) -> str:
    """``what`` without ``phrase`` (see :func:`_unless_had`), nor the preposition that led to it, nor an and/or
    that joined it to the end (the gym tomorrow and on Friday). A word the phrase takes none after stays (the
    particle of sign in tomorrow, check in at 5), and so does a phrase kept.

    >>> _cut_time("finish the report by Friday", "Friday"), _cut_time("sign in tomorrow", "tomorrow")
    ('finish the report', 'sign in')
    >>> _cut_time("go to the gym and on Friday", "Friday"), _cut_time("stop by tomorrow", "tomorrow")
    ('go to the gym', 'stop by')
    >>> _cut_time("present at Friday's standup", "Friday"), _cut_time("work from Monday to Friday", "Monday")
    ('present at the standup', 'work')
    >>> _cut_time("go to the beach Saturday and Sunday I rest", "Saturday")  # that Sunday is the next clause's
    'go to the beach and Sunday I rest'
    >>> _cut_time("move my meeting to Friday", "Friday"), _cut_time("go to the gym on Friday", "Friday")
    ('move my meeting', 'go to the gym')
    """
    out, done = "", 0
    for found in re.finditer(re.escape(phrase), what, flags=re.IGNORECASE):
        before, kept = what[done : found.start()], _unless_had(found)
        if not kept and (owned := _OWNED.match(what, found.end())):
            out, done = out + before + "the", owned.end()
            continue
        end = found.end()
        if not kept and (joined_day := _JOINED_DAY.match(what, end)):
            end = joined_day.end()
        if not kept and (moved := MOVED_TO.search(before)):
            out, done = out + before[: moved.start("to")], end
            continue
        if not kept and (led := _LED_TO.search(before)):
            prep = (led["prep"] or "").casefold()
            takes_none = (_TAKES_NONE.match(phrase) and (prep != "on" or _DEICTIC.match(phrase))) or (
                prep in ("in", "at", "over") and _A_WEEKDAY.match(phrase)
            )
            leads = prep in _ALWAYS_LEADS or (prep == "by" and not _DROPS_BY.search(before))
            takes_none = takes_none or (prep == "around" and _BE_AROUND.search(before))
            leads = (leads or bool(prep and prep != "by" and not takes_none)) and not _LED.match(phrase)
            cut = led.start("prep") if leads else len(before)
            joined = led["joined"] and (leads or not prep) and _ENDS.match(what, end)
            before = before[: led.start() if joined else cut]
        out, done = out + before + kept, end
    return " ".join((out + what[done:]).split())


def plan_fact_en(
    said: Said, roster: Roster, who: str, shown: str, spans: list[TimeSpan], confidence: float, what: str = ""
) -> FactDraft:
    """``who``'s plan: its object what they will do (``what``, or ``shown`` after ``who`` without its times),
    its time the first phrase's, its text ``shown``."""
    span = spans[0]
    if not what:
        what = re.sub(r"\s*\([^()]*\)", "", shown[len(who) :])  # the dates written out
        # in the order said: the first of a range (from Monday to Friday) takes the rest with it
        for phrase in sorted((s.phrase for s in spans), key=lambda phrase: what.casefold().find(phrase.casefold())):
            what = _cut_time(what, phrase)
        what = _ASIDE_END.sub("", what)
    return FactDraft(
        subject=who,
        predicate="plans",
        object=" ".join(what.split()),
        description=shown,
        sources=[said.message.id],
        kind=FactKind.ATTRIBUTE,
        keyword="plan",
        subject_type=roster.entity_type(who) or (EntityType.OBJECT if who == said.speaker else EntityType.SPECIFIC),
        object_type=None,
        time=span.start,
        confidence=confidence,
        about=absolute(span),
    )
