"""A message cut into the clauses the fact rules read, each marked unsure when it states nothing for
certain: a question, a guess (阿杰是程序员吧) or a boast laughter takes back (我是亿万富翁哈哈哈)."""

from __future__ import annotations

import re

from huiyi.flows.extract.rules.en_clauses import EN_AND_I, EN_AND_VERB
from huiyi.flows.extract.rules.interests import ongoing
from huiyi.flows.extract.rules.jobs import job_title, zh_job_title
from huiyi.flows.extract.rules.jokes import before_laugh, laughed_part_off, laughs_off, laughter_only
from huiyi.flows.extract.rules.objects import ends_in_bar
from huiyi.flows.extract.rules.patterns import (
    EN_SPEAKER_FIRST,
    QUESTION_END,
    ZH_NAMING,
)
from huiyi.flows.extract.rules.pet_patterns import ZH_PET, ZH_PET_HAS
from huiyi.text.language import EN_ABBREVIATION_DOT

__all__ = ["clauses_of", "pet_named_after"]

# a full stop ends an English clause, but not an abbreviation's (St. Mary's, Dr. Lee, J.P. Morgan)
_EN_STOPS = rf"(?:(?!{EN_ABBREVIATION_DOT})\.|[!?;\n！？。；])"

# an emoji ends a clause as a stop would (我女朋友叫小雨❤️), a laughing one aside: it takes back what it closes
# the thing counted (一只🐱) is no stop either: it left 我养了一只, and 咪咪 was 木木的只
_EMOJI_STOP = (
    "(?<![一二两三四五六七八九十几0-9][只个条头匹])(?![😂🤣😆😝😜🤪🙃])[\U0001f300-\U0001faff\u2600-\u27bf\u200d\ufe0f]"
)

_ZH_STOPS = r"[，,。！？!?；;~～\n]"

_GUESS = re.compile(r"吧\s*$")


def clauses_of(text: str, english: bool) -> list[tuple[str, bool]]:
    """(clause, unsure) pairs: unsure for a question or a clause laughter closes (我是亿万富翁哈哈哈,
    我是亿万富翁，哈哈哈), read for what follows but no fact. English keeps commas inside a clause but
    splits ``…, and I …``; Chinese splits on commas too."""
    stops = f"(?:{_EN_STOPS if english else _ZH_STOPS}|{_EMOJI_STOP})"
    out: list[tuple[str, bool]] = []
    for match in re.finditer(rf"([^\n]*?)({stops}+|$)", text):
        clause, end = match.group(1).strip(), match.group(2)
        if clause:
            # a question, or a guess: 阿杰是程序员吧 says what one supposes, not what is
            unsure = (
                "?" in end
                or "？" in end
                or (
                    not english
                    # 我在追《繁花》呢: a 呢 of a work one is in the middle of asks nothing
                    and bool(
                        (QUESTION_END.search(clause) and not ongoing(clause))
                        or (_GUESS.search(clause) and not ends_in_bar(clause))
                    )
                )
            )
            parts = [verb for part in EN_AND_I.split(clause) for verb in _and_verb(part)] if english else [clause]
            out.extend((part.strip(), unsure) for part in parts if part.strip())
        if not match.group(0):
            break
    closed = [laughter_only(clause) for clause, _ in out[1:]]  # 我是亿万富翁，哈哈哈: by the clause after
    read: list[tuple[str, bool]] = []
    for at, (clause, unsure) in enumerate(laughed_part_off(out) if english else out):
        if laughs_off(clause) or (at < len(closed) and closed[at]):
            if not _a_job(clause):
                unsure = True
            else:  # I'm a doctor hahaha: the job without the laugh, which would stay in its object
                clause = before_laugh(clause)
        read.append((clause, unsure))
    return read


# I'm a nurse lol, 我是老师哈哈哈: an everyday job is nothing to boast of, so a laugh after it is a tone, not a
# joke (I'm a billionaire lol, 我是秦始皇哈哈哈 are laughed off)
_EN_I_AM = re.compile(r"^I(?:'m|\s+am)\s+(?P<o>an?\s+[^,;!?]+)$", re.IGNORECASE)
_ZH_I_AM = re.compile(r"^我(?:现在|目前)?是(?P<o>[^，,。！？]+)$")


def _a_job(clause: str) -> bool:
    """Whether ``clause``, its laughter left out, says the speaker's job and no more."""
    said = before_laugh(clause)
    if found := _EN_I_AM.match(said):
        return job_title(found["o"])
    return (found := _ZH_I_AM.match(said)) is not None and zh_job_title(found["o"])


def pet_named_after(clauses: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """我养了一只狗，叫豆豆: the clause that names a pet is read with the clause that told of it."""
    out: list[tuple[str, bool]] = []
    for clause, unsure in clauses:
        if out and not unsure and not out[-1][1] and ZH_NAMING.match(clause) and _nameless_pet(out[-1][0]):
            out[-1] = (f"{out[-1][0]}，{clause}", False)
        else:
            out.append((clause, unsure))
    return out


def _nameless_pet(clause: str) -> bool:
    found = [m for pattern in (ZH_PET, ZH_PET_HAS) if (m := pattern.search(clause))]
    return any(m.end() == len(clause) and not m.group("name") for m in found)


def _and_verb(part: str) -> list[str]:
    """A speaker's clause with a second verb after "and" as two: "I live in Boston and work at …" reads as
    "I live in Boston" and "I work at …". Someone else's clause (My sister lives…) is left whole."""
    if not EN_SPEAKER_FIRST.match(part):
        return [part]
    first, *rest = EN_AND_VERB.split(part)
    return [first, *(f"I {verb}" for verb in rest)]
