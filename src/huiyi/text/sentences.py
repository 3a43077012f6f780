"""A chunk's turns cut into sentences, each with the name of who said it (issue #17).

A turn's own-line vector (``chunk.own_sentences``) is the length-weighted mean of its sentences' vectors,
each sentence embedded after its speaker's name: "Melanie: I just signed up for a pottery class. It's like
therapy." is matched as two things Melanie said, not one long passage where her name is a word among
forty. A question that names the person ("What does Melanie do to destress?") then finds her line over
the other person's on the same topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# a sentence ends where whitespace follows its mark: "3.5 km", "e.g.x" and unspaced Chinese stay whole
_END = re.compile(r"(?<=[.!?。！？…])\s+")

__all__ = ["spoken_sentences"]


def spoken_sentences(text: str, speakers: Sequence[str]) -> list[str]:
    """The sentences of ``text`` (lines of ``speaker: words``), each as ``speaker: sentence``; a line that
    starts with no speaker's name goes on the turn before it (a message of several lines).

    >>> spoken_sentences("Mel: I paint. Mostly sunsets!\\nCaro: Nice.\\nand more", ["Caro", "Mel"])
    ['Mel: I paint.', 'Mel: Mostly sunsets!', 'Caro: Nice.', 'Caro: and more']
    >>> spoken_sentences("A: 好累。今天加班到十点", ["A"])
    ['A: 好累。今天加班到十点']
    """
    names = sorted(speakers, key=len, reverse=True)  # "Ann Lee" before "Ann"
    out: list[str] = []
    speaker = ""
    for line in text.split("\n"):
        said = line
        for name in names:
            if line.startswith(f"{name}: "):
                speaker, said = name, line[len(name) + 2 :]
                break
        prefix = f"{speaker}: " if speaker else ""
        out.extend(prefix + part for part in _END.split(said.strip()) if part)
    return out
