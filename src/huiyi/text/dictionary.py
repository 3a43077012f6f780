"""jieba's built-in dictionary read as a word list, and the shape of a word worth associating.

The association lexicon (:mod:`huiyi.text.lexicon`) needs word frequencies, part-of-speech tags and
the dictionary words inside a glued phrase; rjieba embeds jieba's ``dict.txt`` but can only be probed
word by word, so these helpers ask a private segmenter that no taught name has skewed. Associates
are 2–4 CJK characters long (:func:`is_associate_form`): single characters are too ambiguous to
search for, and longer entries are idioms that chat hardly ever contains.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from huiyi.text.tokens import STOPWORDS, all_cjk

if TYPE_CHECKING:
    import rjieba

Association = tuple[str, int]  # (associate, level): higher levels are more probable

JIEBA_TOTAL_FREQ = 60101967  # sum of frequencies in jieba's dict.txt, which rjieba embeds

# rjieba part-of-speech tags of words worth associating: nouns, verbs, adjectives, idioms, set
# phrases, time and place words, state words. Person names (nr) and function words are left out.
CONTENT_POS = frozenset("n nz ns nt ng v vn vd a an ad ag i l t s z b".split())


def is_associate_form(word: str) -> bool:
    """2–4 CJK characters: the shape of a word worth adding to a keyword query."""
    return 2 <= len(word) <= 4 and all_cjk(word)


_pristine_lock = threading.Lock()
_pristine: rjieba.Jieba | None = None


def _dictionary() -> rjieba.Jieba:
    """A segmenter with the stock dictionary only, so names taught to the shared one don't skew counts."""
    global _pristine
    with _pristine_lock:
        if _pristine is None:
            import rjieba  # at first use: its import loads a dictionary (issue 15)

            _pristine = rjieba.Jieba()
        return _pristine


def word_frequency(word: str) -> int:
    """The word's count in jieba's dictionary (about 60M tokens of text); 0 if it is not listed."""
    jieba = _dictionary()
    if not jieba.has_word(word):
        return 0
    # suggest_freq returns the stored count + 1 for a word the dictionary keeps whole
    return max(1, int(jieba.suggest_freq(word)) - 1)


def dictionary_pieces(word: str) -> list[str]:
    """Dictionary words of 2–4 characters inside ``word``, without overlaps, in reading order.

    rjieba glues phrases into one token (花园里, 朵玫瑰, 今天下午), and such tokens have no associates
    of their own; their pieces (花园; 玫瑰; 今天, 下午) do. Longer pieces win, then more frequent ones.
    """
    spans = [
        (str(piece), int(start), int(end))
        for piece, start, end in _dictionary().tokenize(word, "search", False)
        if piece != word and is_associate_form(str(piece)) and str(piece) not in STOPWORDS
    ]
    spans.sort(key=lambda span: (-len(span[0]), -word_frequency(span[0]), span[1]))
    used: set[int] = set()
    chosen: list[tuple[int, str]] = []
    for piece, start, end in spans:
        if used.isdisjoint(range(start, end)):
            used.update(range(start, end))
            chosen.append((start, piece))
    return [piece for _, piece in sorted(chosen)]


def word_tag(word: str) -> str:
    """The dictionary's part-of-speech tag for a single word, or '' if it would be cut."""
    tagged = _dictionary().tag(word, False)
    return str(tagged[0][1]) if len(tagged) == 1 else ""
