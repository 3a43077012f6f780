"""Query expansion with associated words (联想词), the seed's expansion service (seed 000 §10–§11).

A message is cut into words; its ten most telling content words (TF-IDF) are the base words; each
base word's associates come from a :class:`~huiyi.text.lexicon.Lexicon` with a level (higher = more
probable). Two strategies pick what to add:

* ``0``: round-robin: the best associate of base word 1, of base word 2, …, then the second best of
  each, … — every base word gets a say.
* ``1`` (default; the seed found it better): all associates in one pool; a word listed by several base
  words gains 2 levels per extra listing, since what several words point at is likelier the topic.
  Ties keep the order of first appearance in the pool (base words in TF-IDF order).

A base word that the lexicon does not know is looked up through its dictionary pieces (花园里 → 花园).

    >>> lex = Lexicon.from_entries({"红色": [("玫瑰", 6), ("火焰", 6)], "花园": [("玫瑰", 5), ("草地", 5)]})
    >>> expand("红色的花园", lexicon=lex).expanded
    [('玫瑰', 8), ('火焰', 6), ('草地', 5)]
    >>> expand("红色的花园", strategy=0, lexicon=lex).expanded  # 花园 is rarer, so it goes first
    [('玫瑰', 5), ('火焰', 6), ('草地', 5)]
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from huiyi.errors import InvalidInput
from huiyi.text.lexicon import (
    JIEBA_TOTAL_FREQ,
    Association,
    Lexicon,
    default_lexicon,
    dictionary_pieces,
    word_frequency,
    word_tag,
)
from huiyi.text.tokens import STOPWORDS, content_words, words

BASE_WORDS = 10  # seed 000 §11: expansion starts from at most ten keywords
RECUR_BONUS = 2  # strategy 1: levels gained per extra base word listing the same associate
# Words missing from the dictionary (new words, slang, English) get the IDF of a word seen 10 times
# in its ~60M tokens: telling, but not above every rare listed word.
UNKNOWN_FREQ = 10
# A base word with no associates (花园里, 今天下午: phrases rjieba keeps whole) is looked up through
# its dictionary pieces; the pieces themselves come first, since the player literally said them.
PIECE_LEVEL = 9
# Dictionary tags of function words that the stopword list misses (一起, 非常, 这种, 里面, 哈哈):
# numerals, measure words, adverbs, pronouns, prepositions, conjunctions, particles, interjections,
# onomatopoeia, position words, affixes.
FUNCTION_POS = frozenset("m mq q d df dg p c u ud ug uj ul uv uz r rr rz rg y e o f k h".split())


@dataclass(frozen=True)
class Expansion:
    """What :func:`expand` saw and added; timings are left out of equality so results compare.

    ``base_words`` may hold single characters (猫): they are keywords, but are not expanded.
    ``expanded`` holds (word, level) pairs, best first; under strategy 1 a level may pass 9.
    """

    tokens: list[str]
    base_words: list[str]
    expanded: list[tuple[str, int]]
    tokenize_ms: float = field(default=0.0, compare=False)
    expand_ms: float = field(default=0.0, compare=False)
    total_ms: float = field(default=0.0, compare=False)

    @property
    def words(self) -> list[str]:
        """The expanded words without their levels."""
        return [word for word, _ in self.expanded]


def idf(word: str) -> float:
    """ln(total / count) over jieba's dictionary counts: a unigram IDF needing no corpus of our own."""
    freq = word_frequency(word) or UNKNOWN_FREQ
    return math.log(JIEBA_TOTAL_FREQ / freq)


def base_words(tokens: list[str], text: str, drop: Sequence[str] = (), limit: int = BASE_WORDS) -> list[str]:
    """The ``limit`` content words of ``text`` with the highest TF-IDF; ties keep reading order.

    Content words: :func:`~huiyi.text.tokens.content_words` (no stopwords, no names in ``drop``),
    without numbers and without words the dictionary tags as function words (``FUNCTION_POS``).
    """
    counts = Counter(tokens)
    candidates = [
        w
        for w in content_words(text, drop, names=drop)
        if w not in STOPWORDS and not w.isdigit() and word_tag(w) not in FUNCTION_POS
    ]
    scored = sorted(enumerate(candidates), key=lambda item: (-counts[item[1]] * idf(item[1]), item[0]))
    return [word for _, word in scored[:limit]]


def associates_of(lexicon: Lexicon, word: str) -> list[Association]:
    """The word's associates, or else its dictionary pieces and theirs (see ``PIECE_LEVEL``)."""
    found = lexicon.associates(word)
    if found:
        return found
    pieces = dictionary_pieces(word)
    best: dict[str, int] = dict.fromkeys(pieces, PIECE_LEVEL)
    for piece in pieces:
        for other, level in lexicon.associates(piece):
            if other != word and level > best.get(other, -(2**31)):
                best[other] = level
    order = {w: i for i, w in enumerate(best)}
    return sorted(best.items(), key=lambda item: (-item[1], order[item[0]]))


def _round_robin(lists: list[list[Association]], skip: set[str]) -> list[Association]:
    """Each base word in turn adds its best associate not yet taken, until all are spent."""
    out: list[tuple[str, int]] = []
    taken = set(skip)
    cursors = [0] * len(lists)
    while True:
        added = False
        for i, lst in enumerate(lists):
            while cursors[i] < len(lst):
                word, level = lst[cursors[i]]
                cursors[i] += 1
                if word not in taken:
                    taken.add(word)
                    out.append((word, level))
                    added = True
                    break
        if not added:
            return out


def _pooled(lists: list[list[Association]], skip: set[str]) -> list[Association]:
    best: dict[str, int] = {}
    seen: Counter[str] = Counter()
    for lst in lists:
        for word, level in lst:
            if word in skip:
                continue
            seen[word] += 1
            best[word] = max(level, best.get(word, level))
    first = {word: i for i, word in enumerate(best)}
    adjusted = {word: level + RECUR_BONUS * (seen[word] - 1) for word, level in best.items()}
    return sorted(adjusted.items(), key=lambda item: (-item[1], first[item[0]]))


def expand(
    text: str,
    max_words: int = 100,
    strategy: int = 1,
    filter_levels: list[int] | None = None,
    drop: Iterable[str] = (),
    lexicon: Lexicon | None = None,
) -> Expansion:
    """Associated words for ``text``, best first, at most ``max_words``.

    ``filter_levels`` drops expansions whose (final) level is listed; ``None`` or ``[0]`` keeps all.
    ``drop`` names words (the characters' own names) that are neither expanded nor added.
    ``lexicon`` defaults to :func:`~huiyi.text.lexicon.default_lexicon`, which builds its neighbour
    table on first use when none is cached.
    """
    if strategy not in (0, 1):
        raise InvalidInput(f"strategy must be 0 (round-robin) or 1 (pooled), not {strategy!r}")
    if max_words < 0:
        raise InvalidInput(f"max_words must be >= 0, not {max_words}")
    started = time.perf_counter()
    dropped = [d for d in drop]
    tokens = words(text, dropped)  # the caller's names whole, as recall's query cuts them
    bases = base_words(tokens, text, dropped)
    tokenized = time.perf_counter()

    expanded: list[tuple[str, int]] = []
    if bases and max_words:
        lex = lexicon if lexicon is not None else default_lexicon()
        # a single character has too many senses to expand without context (带: belt, bring, zone,
        # lead); character-level BM25 already finds the words that contain it
        lists = [associates_of(lex, word) if len(word) > 1 else [] for word in bases]
        lists = [[(w, level) for w, level in lst if w not in STOPWORDS] for lst in lists]
        skip = set(bases) | {d.lower() for d in dropped} | set(dropped)
        picked = _round_robin(lists, skip) if strategy == 0 else _pooled(lists, skip)
        banned = {level for level in (filter_levels or []) if level != 0}
        expanded = [(word, level) for word, level in picked if level not in banned][:max_words]
    done = time.perf_counter()
    return Expansion(
        tokens=tokens,
        base_words=bases,
        expanded=expanded,
        tokenize_ms=(tokenized - started) * 1000.0,
        expand_ms=(done - tokenized) * 1000.0,
        total_ms=(done - started) * 1000.0,
    )
