"""A chunk's turns cut into sentences, each with the name of who said it (issue #17).

A turn's own-line vector (``chunk.own_sentences``) embeds the turn with its speaker's name before each
sentence: "Melanie: I just signed up for a pottery class.\nMelanie: It's like therapy." weighs who said it
as a question that names her does ("What does Melanie do to destress?"), where in one long line her name
is a word among forty; her line then leads the other person's on the same topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# a sentence ends where whitespace follows its mark: "3.5 km", "e.g.x" and unspaced Chinese stay whole
_END = re.compile(r"(?<=[.!?。！？…])\s+")

__all__ = ["spoken_sentences", "spoken_text"]


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


def spoken_text(text: str, speakers: Sequence[str]) -> str:
    """``text`` with its speaker's name before each sentence, one per line; ``text`` as it is where that
    would more than double it (many short sentences, a long name: what is embedded stays bounded by the
    message's own length, however it is written).

    >>> spoken_text("Mel: I paint. Mostly sunsets!", ["Mel"])
    'Mel: I paint.\\nMel: Mostly sunsets!'
    >>> spoken_text("Mel: " + "a. " * 50, ["Mel"]) == "Mel: " + "a. " * 50
    True
    """
    spoken = "\n".join(spoken_sentences(text, speakers))
    return spoken if len(spoken) <= 2 * len(text) else text
