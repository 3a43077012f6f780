"""Events as keys of the turns they came from, not as units that spend the answer's budget.

An event drawn from turns 3–8 of a chat matches a question better than any one of its turns, but
returning it hands back six turns where one or two answer. So an event whose source turns are
candidates lends them its score and steps aside (LongMemEval: fact-augmented keys for turns): each source
turn's score becomes at least the event's, scaled by the turn's own share of the match (its score over the
best of the event's turns), so the turn that says it rises to the event's place and the event's other
turns follow by their own merit. An event without a candidate turn (a stored memory, a long-past chat
whose chunks are not among the candidates) stays as it is. Nothing here has a weight.

    >>> from huiyi.model import MemoryItem, MemoryKind, Scope
    >>> scope = Scope.of_space("bot", "g1")
    >>> turn = lambda i, text: MemoryItem(id=f"c{i}", scope=scope, kind=MemoryKind.CHUNK, text=text, sources=[f"m{i}"])
    >>> event = MemoryItem(id="e", scope=scope, kind=MemoryKind.EVENT, text="trip", sources=["m1", "m2"])
    >>> items = {1: turn(1, "we went"), 2: turn(2, "to the sea"), 3: turn(3, "other"), 9: event}
    >>> window = [(9, (0.9, {})), (3, (0.5, {})), (2, (0.4, {})), (1, (0.2, {}))]
    >>> ranked, lent = lend(window, items)
    >>> [(key, round(score, 2)) for key, (score, _) in ranked], {key: round(v, 2) for key, v in lent.items()}
    ([(2, 0.9), (3, 0.5), (1, 0.45)], {2: 0.5, 1: 0.25})
"""

from __future__ import annotations

from collections.abc import Mapping

from huiyi.model import MemoryItem, MemoryKind
from huiyi.store.base import RankRow

__all__ = ["lend"]

Window = list[tuple[int, tuple[float, dict[str, float]]]]


def lend(
    window: Window,
    items: Mapping[int, MemoryItem | RankRow | None],
    speaker: Mapping[int, float] | None = None,
    demoted: Mapping[int, float] | None = None,
) -> tuple[Window, dict[int, float]]:
    """The window with each event's score lent to its candidate turns and the lending events left out;
    and what each turn gained, by key.

    ``speaker``: the speaker bonus each candidate got (the query names someone who took part). An
    event earns it for the named person's part; a turn that got none (someone else's line in the same
    stretch of chat) borrows the event's score without it, or a bystander's 我就说！ would outrank the
    named person's own account (issue #13).

    ``demoted``: what a turn lost for what it says (the line of a closed fact, 我喜欢喝咖啡 after 我不喜欢咖啡了):
    it loses that from what it borrows too, or the event it belongs to would undo the loss."""
    if not any(item is not None and item.kind is MemoryKind.EVENT for item in items.values()):
        return sorted(window, key=lambda pair: (-pair[1][0], pair[0])), {}  # no event: nothing lends
    speaker = speaker or {}
    demoted = demoted or {}
    turn_of: dict[str, int] = {}  # a chunk's own message (its anchor) → its key
    own: dict[int, float] = {}
    for key, (score, _) in window:
        item = items.get(key)
        if item is not None and item.kind is MemoryKind.CHUNK and item.sources:
            turn_of.setdefault(item.sources[0], key)
            own[key] = score
    lifted: dict[int, float] = {}
    lenders: set[int] = set()
    for key, (score, _) in window:
        item = items.get(key)
        if item is None or item.kind is not MemoryKind.EVENT:  # a fact is short and answers itself: it stays
            continue
        turns = [turn_of[source] for source in item.sources if source in turn_of]
        if not turns:
            continue
        lenders.add(key)
        best = max(own[turn] for turn in turns)
        for turn in turns:
            share = own[turn] / best if best > 0 else 1.0
            earned = score if speaker.get(turn) else score - speaker.get(key, 0.0)
            lifted[turn] = max(lifted.get(turn, 0.0), earned * share + demoted.get(turn, 0.0))
    gained: dict[int, float] = {}
    out: Window = []
    for key, (score, parts) in window:
        if key in lenders:
            continue
        if lifted.get(key, score) > score:  # a demoted turn may score below 0
            gained[key] = lifted[key] - score
            score = lifted[key]
        out.append((key, (score, parts)))
    out.sort(key=lambda pair: (-pair[1][0], pair[0]))
    return out, gained
