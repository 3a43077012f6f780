"""A person is no workplace and no title, in English: "I'm starting at Sarah's" goes to her house, "I've been
watching Lily" minds her, "I'm playing Tom" plays against him. Nothing of the words tells a person from a shop
or a show but the name: one the chat knows (a speaker, the agent, a member or anyone its roster holds) is a
person whatever is said of them; an unknown one is a person when it is a common given name
(:func:`~huiyi.text.given_names.given_name`) said bare, with nothing of a title or a business around it
("watching Succession", "starting at McKinsey's London office" and quotes are titles and businesses).

    >>> [someones_place(p, nobody) for p in ("Sarah's", "Wendy's", "Google", "McKinsey's London office")]
    [True, False, False, False]
    >>> someones_place("Mumu", {"Mumu": "Mumu"}.get), someones_place("Mumu's", {"Mumu": "Mumu"}.get)
    (True, True)
    >>> [minded(title, "watching", nobody) for title in ("Lily", "Succession", "Dexter", "Lily's")]
    [True, False, False, False]
    >>> minded("Emma", "reading", nobody), minded("Emma", "reading", {"Emma": "Emma"}.get)
    (False, True)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from huiyi.flows.extract.rules.interests_en import EN_INTEREST
from huiyi.flows.extract.rules.patterns import FactRule
from huiyi.text.given_names import given_name

__all__ = ["minded", "nobody", "person_as_thing", "someones_place"]

# shops named after a given name's owner: a job there is a job
_SHOPS = frozenset(("wendy's", "denny's", "claire's", "macy's", "moe's", "ollie's", "nathan's", "carl's"))
# firms called by a given name, whom one works for (Chase is the bank, Sarah one's boss)
_FIRMS = frozenset(("chase", "avis", "ross", "lincoln", "harley"))
# works and artists called by a given name, more often meant than someone so called (playing Mario, watching
# Dexter, listening to Adele)
_WORKS = frozenset(
    "mario luigi zelda celeste dexter carrie matilda annie elvis adele selena madonna frasier hannibal".split()
)
# what one does to a person (minds, plays against, hears out); one reads a book, not a child, so Emma read is Austen
_DONE_TO_PEOPLE = frozenset(("watching", "playing", "listening to"))


def nobody(name: str) -> str | None:
    """Who ``name`` is in a chat that knows no one: nobody; only a given name tells a person."""
    return None


def someones_place(place: str, known: Callable[[str], str | None]) -> bool:
    """Whether ``place``, said as where one starts or works, is a person or a person's home rather than an
    employer: someone ``known`` resolves (the roster's ``resolve``), bare or with 's, or a given name's 's
    that names no shop (Sarah's; Wendy's is the chain)."""
    place = place.strip().replace("’", "'")
    stem = place.removesuffix("'s")
    if known(place) or known(stem):
        return True
    return stem != place and " " not in stem and given_name(stem) and place.casefold() not in _SHOPS


def minded(title: str, verb: str, known: Callable[[str], str | None]) -> bool:
    """Whether ``title``, said after ``verb`` (watching, playing, reading…) as what one is into, is someone:
    whom the chat knows, or a bare given name one watches, plays or listens to (Lily, Tom), not a work named
    so (Dexter, Mario)."""
    title = title.strip()
    if known(title) or known(title.removesuffix("'s")):
        return True
    if " ".join(verb.casefold().split()) not in _DONE_TO_PEOPLE:
        return False
    return given_name(title) and title.casefold() not in _WORKS


def person_as_thing(rule: FactRule, found: re.Match[str], known: Callable[[str], str | None]) -> bool:
    """Whether the fact ``rule`` read in ``found`` would make a person an employer (I work at Sarah's, I work
    for Kai, I work for Sarah) or a title (I've been watching Lily)."""
    if rule.predicate == "works at":
        boss = found.string[: found.start("o")].endswith(" for ") and given_name(obj := found["o"].strip())
        return someones_place(found["o"], known) or (boss and obj.casefold() not in _FIRMS)  # I work for Sarah
    return rule is EN_INTEREST and minded(found["o"], found["x"], known)
