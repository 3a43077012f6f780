"""Where an English fact's object and clause end: the pronouns that name no thing, the cut after an object
(a reason, a condition, a second verb), the split of "…, and I …" and of "I live in Boston and work at…", and the
"my" that makes a thing the speaker's."""

from __future__ import annotations

import re

from huiyi.patterns import lazy

__all__ = ["EN_AND_I", "EN_AND_VERB", "EN_OBJECT_CUT", "EN_PRONOUNS", "MY_THING"]

EN_PRONOUNS = frozenset(
    "it this that these those them em him her you yours everything anything something nothing one ones".split()
)
# (?<!\s): a match starts where its run of spaces does. Tried from every space of a long run, the
# search was quadratic (20 000 spaces in an English line: 21 s); the matches are the same.
# what follows an object: a reason, a condition, an intensifier (a too at its end only), or a second verb (and work…)
EN_OBJECT_CUT = lazy(
    r"(?:(?<!\s)\s+(?:but|because|since|though|although|when|if|while|so\s+much|a\s+lot|very\s+much"
    r"|too(?=\s*(?:much\b|[^\w\s]|$))|and\s+(?:work|study|teach|live|have|am)s?)"
    # cats, my boyfriend isn't; St. Mary's hospital, night shifts are killing me: a clause of its own
    r"|,\s*(?:my|his|her|their|our|he|she|they|we|it|(?:[\w'-]+\s+){1,3}(?:is|are|was|were)"
    # cilantro, someone put it in my tacos; January 20th, so you can remember; Boston, at Emma's place for now
    r"|someone|somebody|anyone|everyone|nobody|so|i|you|at|for|which|who|'?cause|cuz|because|as|then|plus|also))\b.*$",
    re.IGNORECASE,
)
# "I live in Boston and work at …": a second verb of the same I, a clause of its own ("I work at …")
EN_AND_VERB = lazy(r",?(?<!\s)\s+and\s+(?=(?:work|study|teach|live|have|am)\b)", re.IGNORECASE)
# not "Mia and I are roommates": one subject of two people (rules.relations)
EN_AND_I = lazy(
    r",?(?<!\s)\s+(?:and|but|so|and\s+now|plus)\s+(?=(?:I|I'm|I've|my)\b)(?!I\s+are\b)"
    r"|,\s+(?=I'm\b|I\s+am\b)",  # …, I'm a paramedic
    re.IGNORECASE,
)

# "my" before what people have, made the speaker's; not in a title ("My Way") nor an exclamation (oh my god):
# those stay as said (helper's review)
MY_THING = lazy(r"my\s+(?:[a-z]+\s+)?[a-z]")
