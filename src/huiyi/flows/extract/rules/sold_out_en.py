"""What is told sold out or full is nobody's plan, in English: "I tried but flights are all booked for Christmas"
books nothing, and "I wanted to book the inn for Christmas, but it's fully booked" undoes the wish before the but.
The plan and booking rules read a sentence without such clauses (:func:`without_sold_out`); the speaker's own
(I'm all booked for Christmas, my flights are all booked) and a thing named so (the sold out show) stay.
"""

from __future__ import annotations

import bisect
import re

__all__ = ["without_sold_out"]

# a thing told sold out or full (flights are all booked for Christmas, the inn is fully booked, tickets sold out on
# Friday): what is booked is nobody's plan, however its time reads; not a thing named so (the sold out show)
_SOLD_OUT = re.compile(
    r"(?<!\bthe\s)(?<!\ba\s)(?<!\ban\s)(?<!\bmy\s)(?<!\bour\s)(?<!\byour\s)(?<!\btheir\s)(?<!\bthat\s)"
    r"(?<!\bthis\s)\b(?:(?:all|fully|completely|totally|entirely)\s+booked(?:\s+up)?|booked\s+(?:up|solid|out)"
    r"|(?:sold|sell(?:s|ing)?)\s+out|full\s+up|(?:is|are|was|were|'s|'re)\s+(?:(?:all|already|completely|totally)\s+)?full)"
    r"\b",
    re.IGNORECASE,
)
# …unless the speaker is what is booked (I'm all booked for Christmas: their days full, or their bookings made; my
# flights are all booked): that reads as before
_SPEAKER_BOOKED = re.compile(
    r"(?:\b(?:I'm|I\s+am|I\s+was|we're|we\s+are|we\s+were|(?:I|we)(?:'ve|\s+have)\s+been)"
    r"|\b(?:my|our)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?\s+(?:is|are|was|were|'s|'re)(?=\s+all\s+booked\b))"
    r"\s+(?:(?:already|now|just|pretty\s+much|almost|nearly|so|all)\s+)*$",
    re.IGNORECASE,
)
# where what is sold out is told in a clause of its own: I booked mine for Christmas before they sold out, I got the
# last room, everything else is full; after a but (I wanted to book the inn for Christmas, but it's fully booked) it
# undoes the clause before, unless what it tells was had already (I booked flights for Christmas, but hotels are full)
_TURN = re.compile(
    r"(?:,?\s+(?:(?:just|right|long)\s+)?(?:and|so|because|cause|'cause|cuz|as|since|while|before|after|when|until"
    r"|till|(?P<but>but|yet|only|though|although))|\s*,)\s+(?:(?:then|now|apparently|sadly|unfortunately)\s+)?(?=\S)",
    re.IGNORECASE,
)
_HAD = re.compile(r"\b(?:booked|reserved|got|grabbed|snagged|bought|secured|scored)\b", re.IGNORECASE)
_SPEAKER_REACH = 80  # characters read back from what is sold out for whose it is


def without_sold_out(sentence: str) -> str:
    """``sentence`` without the clauses that tell something sold out (I booked flights for Christmas before they sold
    out: I booked flights for Christmas; the gym is full on Monday, so I'm going Tuesday: so I'm going Tuesday), nor
    the one a but undoes (I'm off to Rome on Monday, and I wanted to book the inn for Christmas but it's full: I'm off
    to Rome on Monday). Nothing in it sold out but the speaker (I'm all booked for Christmas), it is left whole.

    >>> without_sold_out("I booked flights for Christmas before they sold out")
    'I booked flights for Christmas'
    >>> without_sold_out("I heard flights are all booked for Christmas"), without_sold_out("I tried but it's full")
    ('', '')
    >>> without_sold_out("I'm all booked for Christmas"), without_sold_out("I'm going to the sold out show Friday")
    ("I'm all booked for Christmas", "I'm going to the sold out show Friday")
    """
    turns = list(_TURN.finditer(sentence))  # once: a text of many without a stop was read again for each
    starts = [turn.start() for turn in turns]
    kept: list[str] = []
    at = 0  # where the text still to read starts
    for sold in _SOLD_OUT.finditer(sentence):
        if sold.start() < at or _SPEAKER_BOOKED.search(sentence, max(0, sold.start() - _SPEAKER_REACH), sold.start()):
            continue
        before = turns[bisect.bisect_left(starts, at) : bisect.bisect_left(starts, sold.start())]
        cut = before[-1].start() if before else at
        if before and before[-1]["but"]:  # what went before the but is undone, from the turn before it
            undone = before.pop()
            had = _HAD.search(sentence, before[-1].end() if before else at, undone.start())
            cut = undone.start() if had else (before[-1].start() if before else at)
        kept.append(sentence[at:cut])
        after = bisect.bisect_left(starts, sold.end())
        at = starts[after] if after < len(starts) else len(sentence)
    return "".join([*kept, sentence[at:]])
