"""I'm a lawyer: an English "I'm a …" whose noun is a job is the speaker's job, a fact of the kind "I work as a
teacher" says (``works as``), so a new one ends the old (closes.ONE_AT_A_TIME), as 我在律所当律师 ends
我在学校当老师. Other things one is (a vegetarian, a mess, a night owl) stay who one is.

>>> job_title("a lawyer"), job_title("an ER nurse"), job_title("a vegetarian"), job_title("a night owl")
(True, True, False, False)
>>> job_title("a teacher at Lincoln High"), job_title("lawyer"), job_title("a big fan of lawyers")
(True, False, False)
"""

from __future__ import annotations

import re

from huiyi.flows.extract.rules.patterns import FactRule
from huiyi.model import FactKind

__all__ = ["EN_JOBS", "job_rule", "job_title"]

# the last word of a job said as "a …": a small list, not every "-er" (a runner, a gamer and a mother are none)
EN_JOBS = frozenset(
    """
    accountant actor actress analyst architect artist attorney baker banker barber barista bartender carpenter
    cashier chef cleaner clerk coach consultant cook counselor dentist designer developer doctor driver economist
    editor electrician engineer farmer firefighter journalist judge lawyer lecturer librarian manager mechanic
    midwife musician nurse paralegal paramedic pharmacist photographer physician physiotherapist pilot plumber
    policeman policewoman professor programmer psychologist realtor receptionist reporter researcher salesman
    saleswoman scientist secretary surgeon tailor teacher technician therapist translator tutor veterinarian vet
    waiter waitress writer
    """.split()
)
# "a teacher at Lincoln High": the job is said before where
_WHERE = re.compile(r"\s+(?:at|for|in|with)\s+.*$", re.IGNORECASE)


def job_title(obj: str) -> bool:
    """Whether ``obj`` (an "I'm …" object, article and all) is a job: "a"/"an" and a noun of ``EN_JOBS`` last."""
    words = _WHERE.sub("", obj).split()
    return len(words) >= 2 and words[0].lower() in ("a", "an") and words[-1].lower() in EN_JOBS


def job_rule(rule: FactRule, obj: str) -> FactRule:
    """``rule`` as a job's (``works as``, keyword work) when it read who one is (identity) and ``obj`` is a job;
    its text stays as said (Mia is a lawyer)."""
    if rule.keyword != "identity" or not job_title(obj):
        return rule
    return FactRule(rule.pattern, "works as", FactKind.ATTRIBUTE, "work", rule.description, confidence=rule.confidence)
