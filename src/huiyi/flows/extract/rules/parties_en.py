"""Whom an English fact's "our", "us", "we" and "you" are, said in the third person as a fact is: read in the
agent's prompt, "Liz loves our garden" is the agent's garden too and "Liz loves talking to you" talk with
whoever it now speaks to. "our" is the speaker's (our garden: Liz's garden), or the speaker's and the other
party's when it is what the two share (our little chats: Liz and Ava's little chats); "you" the other party
when something is done with or to it (talking to you: to Ava); "us" and "we" nobody can be told, so a fact of
them is none. Nothing inside a double quote is read (the song "Our House")."""

from __future__ import annotations

from collections.abc import Callable

from huiyi.patterns import lazy

__all__ = ["addressed", "parties_named"]

_NOT_QUOTED = r"(?![^\"”]*[\"”])"
# what the speaker and the one they talk to share, whose "our" is both of theirs
_SHARED = (
    r"\s+(?:little\s+|long\s+|late-night\s+|daily\s+)?"
    r"(?:chats?|talks?|conversations?|friendship|relationship|bond|connection|time\s+together)\b"
)
_OUR_SHARED = lazy(rf"(?<![\w\"“'])our(?={_SHARED}){_NOT_QUOTED}")
_OUR = lazy(rf"(?<![\w\"“'])our(?=\s+\w)(?!{_SHARED}){_NOT_QUOTED}")
# lower case: the US is a country
_WE = lazy(rf"(?<![\w\"“'])(?:we|us|ours|ourselves|our(?!{_SHARED}))\b{_NOT_QUOTED}")
# a "you" something is done with or to (talking to you, hearing you laugh); not one that does something (when you
# try…: anyone's, as a liking keeps it), nor "you know", "you guys", nor after everything/something
_YOU_DONE_TO = lazy(
    r"\b(?P<before>(?:with|to|for|about|at|from|of|without|near|around|than|on|by|beside|behind|see|hear"
    r"|meet|call|text|visit|hug|help|show|tell|miss|love|have|\w+ing(?<!thing)))\s+(?:you|u)\b"
    # the name it is said to, closing the fact (talking to you Kai), goes with it: not "talking to Kai Kai"
    r"(?:,?\s+[A-Z][\w'-]*(?=[\s!.?]*$))?"
    rf"(?!\s+(?:know|guys|all|both|two)\b)(?!'){_NOT_QUOTED}"
)
# "you Kai", "you, Kai": the name says whom "you" is said to
_YOU_NAMED = lazy(r"(?:you|u),?\s+(?P<name>[A-Z][\w'-]*)")


def addressed(value: str, resolve: Callable[[str], str | None], other: str | None) -> str | None:
    """Whom an object of "you" and a name after it names: the person the name is, else the ``other`` party of
    a private chat, called by another name; ``None`` for any other object.

    >>> known = {"Bob": "Bob"}.get
    >>> addressed("you Bob", known, None), addressed("you, Leo", known, "Ava"), addressed("you Leo", known, None)
    ('Bob', 'Ava', None)
    """
    found = _YOU_NAMED.fullmatch(value)
    return (resolve(found["name"]) or other) if found else None


def parties_named(value: str, speaker: str, other: str | None) -> str | None:
    """``value`` with its "our" and "you" said as whose they are (``speaker``'s, ``other``'s, the party of a
    private chat), or ``None`` when it says "us" or "we", whom nobody can tell. With no ``other`` (a group) a
    "you" and a shared "our" stay as said, as a plan's "you" does.

    >>> parties_named("our chats and our garden", "Liz", "Ava")
    "Liz and Ava's chats and Liz's garden"
    >>> parties_named("talking to you", "Liz", "Ava"), parties_named("when you try it", "Liz", "Ava")
    ('talking to Ava', 'when you try it')
    >>> parties_named("how we laugh", "Liz", "Ava"), parties_named('the song "Our House"', "Liz", "Ava")
    (None, 'the song "Our House"')
    """
    if other:
        value = _OUR_SHARED.sub(f"{speaker} and {other}'s", value)
        value = _YOU_DONE_TO.sub(lambda found: f"{found['before']} {other}", value)
    value = _OUR.sub(f"{speaker}'s", value)
    return None if _WE.search(value) else value
