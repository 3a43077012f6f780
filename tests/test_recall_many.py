"""A question asking for several things takes less from the neighbour bonus (recall.many).

Asked "which cities has John been to", a lone mention of Chicago in one session answers as much as the
best line of a long talk about travel in another; the lines around that best one must not push it out.
"""

from __future__ import annotations

from datetime import datetime

from huiyi.config.recall import RecallRecipe
from huiyi.model import MemoryKind
from huiyi.recall.rerank import rerank
from huiyi.store.base import RankRow

LINES = {
    5: "John: I love exploring new places, every trip teaches me something",
    6: "Tim: Same here, travelling is the best way to learn",
    7: "John: Yeah, seeing how people live elsewhere is so cool",
    40: "John: I was in Chicago last week, the locals were really friendly!",
}


def rows() -> dict[int, RankRow | None]:
    when = datetime(2023, 5, 8, 13, 56)
    return {
        seq: RankRow(
            f"m{seq}", "space:s", MemoryKind.CHUNK, when, (text.split(":")[0],), (f"D{seq}",), "s", seq, text, 0.5, None
        )
        for seq, text in LINES.items()
    }


# the talk about travel: its middle line and the lone mention fused alike, the lines around it lower
WINDOW = [(6, (0.70, {})), (40, (0.70, {})), (5, (0.45, {})), (7, (0.45, {}))]


def order(query: str, recipe: RecallRecipe) -> list[int]:
    ranked, _ = rerank(list(WINDOW), rows(), query, recipe, None)
    return [key for key, _ in ranked]


def test_a_lone_mention_outranks_the_lines_around_the_best_one_when_several_things_are_asked() -> None:
    recipe = RecallRecipe(speaker_weight=0.0)
    assert order("Which cities has John been to?", recipe)[:2] == [6, 40]
    assert order("他都去过哪些城市", recipe)[:2] == [6, 40]


def test_one_thing_asked_keeps_the_whole_neighbour_bonus() -> None:
    recipe = RecallRecipe(speaker_weight=0.0)
    assert order("Which city did John like best?", recipe).index(40) == 3  # the stretch of talk leads
    assert (
        order("Which cities has John been to?", recipe.model_copy(update={"many_neighbour_share": 1.0})).index(40) == 3
    )
