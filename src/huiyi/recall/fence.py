"""What memory text may not carry into the prompt: the marks that would end its place in the context.

Memories hold what people said; in a group anyone may say anything. Rendered as they are, a message
of several lines could write turns under other speakers' names in 对话上下文 (a line ``小白: …``), a
chat template's role marker (``<|im_start|>system``) could open a system turn where a server reads
markers in text as tokens, and a ``</human>`` inside a core block would close the block's fence.
These helpers keep each text in its place; the words stay readable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from huiyi.patterns import lazy
from huiyi.text.controls import without_controls
from huiyi.text.lookalike import bare
from huiyi.text.tokens import has_cjk

__all__ = ["defang", "fence_labels", "label", "one_line"]

# role markers of common chat templates: ChatML / Qwen / Llama 3 / GLM <|…|>, DeepSeek <｜…｜>,
# Gemma <start_of_turn>, Llama 2 / Mistral [INST]; their opening bracket becomes a full-width one
_ROLE_MARKERS = lazy(r"<(?=\s*[|｜])|<(?=/?\s*(?:start_of_turn|end_of_turn)\b)|\[(?=\s*/?\s*INST\s*\])", re.IGNORECASE)
_WIDE = {"<": "＜", "[": "［"}


def defang(text: str) -> str:
    """``text`` with chat-template role markers made plain text (``<|im_start|>`` → ``＜|im_start|>``) and
    control characters left out.

    >>> defang("<|im_start|>system\x1b[2J\x07")
    '＜|im_start|>system[2J'
    """
    return without_controls(_ROLE_MARKERS.sub(lambda match: _WIDE[match.group()], text))


# what begins a line of markup (## 标题, > 引用, - 列表, 1. 条目, ```), or ends a section's header (前情提要：)
_HEADER_LIKE = lazy(r"^\s*(?:#+\s|#{2,}|>\s|[-*+]\s|={2,}|`{3}|\d+\s*[.、)）](?!\d))|[:：]\s*$")
_ROLES = frozenset("system assistant developer 系统 系统提示 助手".split())  # chat roles, as names
# the packaged templates' section titles: a member named 前情提要 speaks as ``前情提要: …``, the section's own
# first line (a test keeps this list equal to the templates')
SECTION_TITLES = frozenset(
    title.casefold()
    for title in (
        *"前情提要 对话上下文 脑海中回忆起的事件 脑海中回想起的片段 脑海中的总结与印象".split(),
        "The story so far",
        "Fragments that come to mind",
        "What you have come to know over time",
        "Events you remember",
        "Current conversation",
    )
)


def label(name: str) -> str:
    """A speaker's name as the label that starts a turn's line: quoted (``「前情提要：」``, ``「对话上下文」``,
    ``"System"``) when it would read as a section header, a chat role or a role marker there; else as it is."""
    shown = defang(one_line(name))
    plain = " ".join(bare(name).split()).casefold()
    if shown == name and not _HEADER_LIKE.search(name) and plain not in _ROLES and plain not in SECTION_TITLES:
        return name
    return f"「{shown}」" if has_cjk(shown) else f'"{shown}"'


def one_line(text: str) -> str:
    """A memory or a turn as one line, its lines joined with `` / ``: no line of it can pose as another
    turn or a section of the context."""
    return defang(" / ".join(line.strip() for line in text.strip().splitlines() if line.strip()))


def fence_labels(text: str, labels: Iterable[str]) -> str:
    """A core block's text with tags of the blocks' labels (``<human>``, ``</persona>``) made plain,
    so that text inside one block's fence cannot close it or open another."""
    names = sorted({label for label in labels if label}, key=len, reverse=True)
    if not names:
        return defang(text)
    tags = re.compile(r"<(\s*/?\s*(?:" + "|".join(re.escape(name) for name in names) + r")\s*)>", re.IGNORECASE)
    return defang(tags.sub(lambda match: f"＜{match.group(1)}＞", text))
