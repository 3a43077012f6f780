"""What the speaker is into lately, said in English: I've been watching Severance lately, Currently reading Dune,
I'm really into bouldering these days. The English side of :mod:`~huiyi.flows.extract.rules.interests`, a
preference of now (``currently watching``: Mumu is currently watching Severance); many may be held at once.

A work watched, read or played is read only by its title, a capital or a quote opening it (I'm watching TV, I'm
reading a book are what one does this minute); what one is into may be anything. Said with no subject, it needs
a word of now (Currently reading Dune, Been watching Severance lately); with I it is the present going on (not I
watched Severance, I want to watch it). The object ends the clause but for a word of now (I'm reading Dune for
class, I'm watching Severance tonight are none). A question (Have you watched Severance?), someone else's (My
sister is reading Dune) and a negation match no pattern.

    >>> [bool(EN_INTEREST.pattern.match(c)) for c in ("I've been watching Severance lately", "Currently reading Dune")]
    [True, True]
    >>> [bool(EN_INTEREST.pattern.match(c)) for c in ("I'm reading a book", "Reading Dune", "I'm watching it tonight")]
    [False, False, False]
    >>> [bool(EN_INTO.pattern.match(c)) for c in ("I'm really into bouldering these days", "I'm not into it")]
    [True, False]
"""

from __future__ import annotations

from huiyi.flows.extract.rules.patterns import EN_RULES, FactRule, en_rule
from huiyi.model import FactKind
from huiyi.text.kin import EN_CALLED

__all__ = ["EN_FACT_RULES", "EN_INTEREST", "EN_INTO"]

_NOW = r"(?:lately|recently|currently|these\s+days|right\s+now|at\s+the\s+moment|rn|atm|nowadays|again|now)"
_SO = r"(?:(?:really|totally|so|super|kinda|also|still|just|finally|currently|lately|recently|slowly)\s+)*"
# what is going on now, said with I (I'm watching, I've been reading) or, with a word of now, without
_DOING = (
    rf"(?:(?:{_NOW},?\s+)?I(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+{_SO}|(?:{_NOW}\s+)+(?:been\s+)?{_SO}|been\s+{_SO}"
    rf"(?=\S+(?:\s+\S+){{0,8}}\s+{_NOW}))"
)
_VERB = r"(?P<x>(?:re-?|binge-?)?(?:watching|reading|playing|listening\s+to)|bingeing|binging|rewatching|rereading)"
# a title: a quote, or a capital opening it (Severance, The Bear, Lord of the Rings, Dune 2); not a screen or an
# app one watches anything on (TV, Netflix)
# …nor one of the family minded or listened to (I'm watching Grandma, mom's out; I'm listening to Dad)
_TITLE = (
    rf"(?!(?:TV|Netflix|YouTube|TikTok|Hulu|HBO|Twitch|Disney|Prime|Instagram|Reddit|Twitter|Spotify|{EN_CALLED})\b)"
    r"(?P<o>\"[^\"]{1,60}\"|“[^”]{1,60}”"
    r"|(?-i:(?:The\s+)?[A-Z0-9][\w'’:&!.-]*(?:\s+(?:(?:of|the|and|a|an|in|on|to|for|with|at|&)\s+)*[A-Z0-9][\w'’:&!.-]*){0,6}))"
)
# a remark after a comma is the speaker's of it (Been watching The Bear lately, so good)
_END = rf"(?:\s+{_NOW})*(?:\s+(?:lol|haha\w*|tbh|honestly))?[\s.!~]*(?:,.*)?$"

EN_INTEREST = FactRule(
    en_rule(rf"{_DOING}{_VERB}\s+{_TITLE}{_END}"),
    "currently {x}",
    FactKind.PREFERENCE,
    "likes",
    "{s} is currently {x} {o}",
    confidence=0.7,
)
# I'm really into bouldering these days, obsessed with Severance: what one is into may be anything
# how far one is in something, or a thought, is nothing one is into (I'm into the finals, into my second year at uni,
# into week three of the program, I'm into the idea)
_A_STAGE = (
    r"(?:(?:the|my|our)\s+)?(?:(?:first|second|third|fourth|fifth|final|last|next|semi-?)\s*)?(?:rounds?|finals?"
    r"|semis?|quarters?|weeks?|months?|years?|days?|half|stage|level|chapter|season|semester|term|idea)\b"
)
EN_INTO = FactRule(
    en_rule(
        rf"(?:(?:{_NOW},?\s+)?I(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+{_SO}|(?:{_NOW}\s+)+{_SO})(?P<x>into|obsessed\s+with|hooked\s+on)"
        rf"\s+(?P<o>(?!(?:it|this|that|you|him|her|them)\b|{_A_STAGE})[\w'’\"“”&-]+(?:\s+(?!{_NOW}\b)[\w'’\"“”&-]+){{0,4}}?){_END}"
    ),
    "currently {x}",
    FactKind.PREFERENCE,
    "likes",
    "{s} is currently {x} {o}",
    confidence=0.7,
)
# the first-person rules with the interests after them (none of them reads "I'm watching" or "I'm into")
EN_FACT_RULES: tuple[FactRule, ...] = (*EN_RULES, EN_INTEREST, EN_INTO)
