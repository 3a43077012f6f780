"""Budget: a rendered prompt context held to a number of characters (``context.max_chars``).

A context over its budget is rendered again with less in it, each step only while it is still over:

1. every over-long text (a working-memory message, a recalled memory, an overview event) keeps its head
   and tail around a marked cut (template ``cut``): the longest are cut only as far as needed, none to
   less than a tenth of the budget;
2. the oldest working-memory turns go, all but the latest ``LATEST_TURNS`` and the turn being answered
   (``ContextParts.answering``: in a busy group others may speak after it); a line (template ``earlier``)
   says how many;
3. recalled memories go, lowest-ranked first, all but the top one;
4. overview events go, oldest first;
5. the texts still there are cut harder, to no less than ``MIN_CUT`` characters each.

Core blocks are never cut or dropped (seed 002 §3.6: always in context), nor are the latest turns and
the top recalled memory. A context whose core blocks alone pass the budget comes back over it, with a
warning in the log. Texts are cut before they are rendered, so a cut never falls inside a speaker's
prefix or a template's words; it falls between characters, never inside a character's combining marks
or an emoji's joined sequence — unless that run passes ``LONGEST_CLUSTER`` characters (a flood of marks
a hostile text can hold), which is cut where it falls.

Each step finds how far to go by bisection. A trial whose kept turns pass the budget by their characters
that are not whitespace alone is decided without a render, and a turn's line is rendered once for each
length its text is cut to: fitting a pasted book costs a few renders of the memories, not 20–40 of it all.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from huiyi.errors import InvalidInput
from huiyi.model import MemoryItem, Message
from huiyi.recall.lookalikes import told_apart
from huiyi.recall.render import ContextParts, Dropped, RenderedContext, Templates, _by_time, _Renderer, render

__all__ = ["LATEST_TURNS", "LONGEST_CLUSTER", "MIN_CUT", "check_budget", "cut_text", "render_within"]

log = logging.getLogger(__name__)

LATEST_TURNS = 4  # never dropped: the person's latest message and the three turns before it
MIN_CUT = 60  # a cut text keeps at least this many characters of its head and tail
_MOST = 2**31 - 1
# Unicode's stream-safe text holds at most 30 marks in a row: a longer run is no character to keep whole
LONGEST_CLUSTER = 32
_OVER = "over the context budget (context.max_chars)"


def check_budget(max_chars: object) -> int:
    """``max_chars`` as a budget, or ``InvalidInput``: a whole number of characters, 0 for none."""
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or not 0 <= max_chars <= _MOST:
        raise InvalidInput(f"max_chars is a whole number of characters from 0 (no bound) to {_MOST}, not {max_chars!r}")
    return max_chars


def _joined(text: str, at: int) -> bool:
    """Would a cut before ``text[at]`` part a character from its marks or an emoji sequence?"""
    after, before = text[at], text[at - 1]
    return (
        unicodedata.combining(after) > 0
        or unicodedata.category(after) in ("Mn", "Me", "Mc")
        or after in "\u200d\ufe0e\ufe0f"
        or "\U0001f3fb" <= after <= "\U0001f3ff"  # skin tones
        or before == "\u200d"
    )


def _boundary(text: str, at: int) -> int:
    start = at
    while 0 < at < len(text) and _joined(text, at):
        if start - at >= LONGEST_CLUSTER:
            return start
        at -= 1
    return at


def cut_text(text: str, keep: int, marker: Callable[[int], str]) -> str:
    """``text`` as its first two thirds and last third of ``keep`` characters around ``marker(left_out)``."""
    if len(text) <= keep:
        return text
    head = _boundary(text, keep * 2 // 3)
    tail = max(head, _boundary(text, len(text) - (keep - keep * 2 // 3)))
    return text[:head] + marker(tail - head) + text[tail:]


@dataclass(frozen=True)
class _Cuts:
    """What a trimmed render leaves out: the longest text kept, old turns, recalled memories, overview events."""

    keep: int | None = None
    earlier: int = 0
    recalled: int | None = None  # how many of the ranked recalled memories stay; None: all
    overview: int | None = None


class _Trial(_Renderer):
    """One of the fitter's renders. A turn's line is rendered once for each length its text is cut to and kept
    for the trials after: turns are most of a long context, and a fit tries 20–40 cuts of it."""

    def __init__(self, parts: ContextParts, templates: Templates, keep: int | None, fitter: _Fitter) -> None:
        super().__init__(parts, templates)
        self.keep, self.fitter = keep, fitter

    def turn(self, m: Message) -> str:
        keep = self.keep if self.keep is not None and len(m.text) > self.keep else None
        key = (id(m), keep)  # m is one of the fitter's own messages, alive as long as its cache
        if (line := self.fitter.lines.get(key)) is None:
            text = self.fitter.cut(m.text, keep)
            line = super().turn(m if text == m.text else m.model_copy(update={"text": text}))
            self.fitter.lines[key] = line
        return line


class _Fitter:
    def __init__(self, parts: ContextParts, templates: Templates, max_chars: int) -> None:
        self.parts, self.t, self.max_chars = parts, templates, max_chars
        self.lines: dict[tuple[int, int | None], str] = {}  # (a turn, the length it was cut to) -> its line
        self.solids: dict[tuple[int, int | None], int] = {}  # the same -> its text's characters not whitespace
        # a turn's line holds its text, and the context its lines, unless a user's template leaves them out
        self.bounded = (
            "turns" in templates.parts["working"].get_identifiers()
            and "text" in templates.parts["turn"].get_identifiers()
        )
        shown = parts.shown_elsewhere
        # turns another part of the prompt shows render nothing and stay, for de-duplication
        turns = [m.id for m in parts.working if m.id not in shown]
        # oldest first; in a busy group more than the latest turns may follow the one being answered
        self.turns = [t for t in turns[: max(0, len(turns) - LATEST_TURNS)] if t != parts.answering]
        self.droppable_turns = len(self.turns)
        present = {item.id for item in (*parts.facts, *parts.events)}
        order = [*parts.ranking, *(item.id for item in (*parts.facts, *parts.events))]
        self.ranked = [i for i in dict.fromkeys(order) if i in present]
        self.overview_order = [item.id for item in _by_time(list(parts.overview), parts.now)]  # oldest first

    def marker(self, left_out: int) -> str:
        return self.t.fill("cut", count=str(left_out))

    def cut(self, text: str, keep: int | None) -> str:
        return text if keep is None else cut_text(text, keep, self.marker)

    def parts_for(self, cuts: _Cuts) -> ContextParts:
        """``parts`` with what ``cuts`` leaves out gone and its memories cut; turns are cut as _Trial renders them."""
        parts, keep, gone = self.parts, cuts.keep, self.gone(cuts)

        def items(found: Sequence[MemoryItem]) -> list[MemoryItem]:
            kept = [item for item in found if item.id not in gone]
            return [
                item if keep is None else item.model_copy(update={"text": self.cut(item.text, keep)}) for item in kept
            ]

        return replace(
            parts,
            working=[m for m in parts.working if m.id not in gone],
            facts=items(parts.facts),
            events=items(parts.events),
            overview=items(parts.overview),
            earlier_turns=parts.earlier_turns + cuts.earlier,
        )

    def gone(self, cuts: _Cuts) -> set[str]:
        """The ids of the turns and memories ``cuts`` leaves out."""
        gone = set(self.turns[: cuts.earlier])
        if cuts.recalled is not None:
            gone.update(self.ranked[cuts.recalled :])
        if cuts.overview is not None:
            gone.update(self.overview_order[: len(self.overview_order) - cuts.overview])
        return gone

    def render(self, cuts: _Cuts) -> RenderedContext:
        return _Trial(self.parts_for(cuts), self.t, cuts.keep, self).render()

    def fits(self, cuts: _Cuts) -> bool:
        return not self.turns_pass(cuts) and len(self.render(cuts).text) <= self.max_chars

    def turns_pass(self, cuts: _Cuts) -> bool:
        """Whether the turns ``cuts`` keeps pass the budget by their texts' characters that are not whitespace
        alone (rendering a turn on one line drops and adds only whitespace and " / "): most trials of a long
        context are decided so, without rendering it."""
        if not self.bounded:
            return False
        gone, shown = self.gone(cuts), self.parts.shown_elsewhere  # as parts_for leaves them out
        kept = (m for m in self.parts.working if m.id not in gone and m.id not in shown)
        return sum(self.solid(m, cuts.keep) for m in kept) > self.max_chars

    def solid(self, m: Message, keep: int | None) -> int:
        keep = keep if keep is not None and len(m.text) > keep else None
        if (count := self.solids.get((id(m), keep))) is None:
            count = self.solids[id(m), keep] = len("".join(self.cut(m.text, keep).split()))
        return count

    def least(self, low: int, high: int, make: Callable[[int], _Cuts]) -> int:
        """The smallest n in [low, high] whose cuts fit (high when none does); fewer is assumed to fit less."""
        while low < high:
            middle = (low + high) // 2
            if self.fits(make(middle)):
                high = middle
            else:
                low = middle + 1
        return high

    def most(self, low: int, high: int, make: Callable[[int], _Cuts]) -> int:
        """The largest n in [low, high] whose cuts fit (low when none does)."""
        while low < high:
            middle = (low + high + 1) // 2
            if self.fits(make(middle)):
                low = middle
            else:
                high = middle - 1
        return low

    def longest(self) -> int:
        texts = [m.text for m in self.parts.working] + [
            item.text for item in (*self.parts.facts, *self.parts.events, *self.parts.overview)
        ]
        return max(map(len, texts), default=0)

    def fit(self) -> RenderedContext:
        cuts = _Cuts()
        floor = max(MIN_CUT, self.max_chars // 10)
        longest = self.longest()
        if longest > floor:  # 1. over-long texts, cut no further than needed
            cuts = replace(cuts, keep=self.most(floor, longest, lambda keep: _Cuts(keep=keep)))
        steps: list[Callable[[_Cuts], _Cuts]] = [
            lambda c: replace(c, earlier=self.least(0, self.droppable_turns, lambda n: replace(c, earlier=n))),
            lambda c: replace(
                c, recalled=self.most(min(1, len(self.ranked)), len(self.ranked), lambda n: replace(c, recalled=n))
            ),
            lambda c: replace(c, overview=self.most(0, len(self.overview_order), lambda n: replace(c, overview=n))),
        ]
        if self.longest() > MIN_CUT:  # 5. what is left, cut harder
            steps.append(lambda c: replace(c, keep=self.most(MIN_CUT, c.keep or longest, lambda k: replace(c, keep=k))))
        for step in steps:
            if self.fits(cuts):
                break
            cuts = step(cuts)
        rendered = self.render(cuts)
        if len(rendered.text) > self.max_chars:
            log.warning(
                "the prompt context has %d characters, over context.max_chars (%d): its core blocks and latest "
                "turns alone pass it",
                len(rendered.text),
                self.max_chars,
            )
        return self.with_reasons(rendered, cuts)

    def with_reasons(self, rendered: RenderedContext, cuts: _Cuts) -> RenderedContext:
        """``rendered`` with each memory and turn the budget left out in its ``dropped``."""
        left: list[Dropped] = [Dropped(i, "working", _OVER) for i in self.turns[: cuts.earlier]]
        if cuts.recalled is not None:
            facts = {item.id for item in self.parts.facts}
            left += [Dropped(i, "fragments" if i in facts else "events", _OVER) for i in self.ranked[cuts.recalled :]]
        if cuts.overview is not None:
            gone = self.overview_order[: len(self.overview_order) - cuts.overview]
            left += [Dropped(i, "overview", _OVER) for i in gone]
        return replace(rendered, dropped=[*rendered.dropped, *left])


def render_within(parts: ContextParts, templates: Templates, max_chars: int) -> RenderedContext:
    """The prompt context of ``parts`` in at most ``max_chars`` characters where it can be (0: no bound),
    trimmed in the order of this module's docstring; members whose names print alike are told apart first."""
    parts = told_apart(parts)
    if not max_chars:
        return render(parts, templates)
    fitter = _Fitter(parts, templates, max_chars)
    if not fitter.turns_pass(_Cuts()):  # else over the budget without rendering a pasted book whole
        rendered = render(parts, templates)
        if len(rendered.text) <= max_chars:
            return rendered
    return fitter.fit()
