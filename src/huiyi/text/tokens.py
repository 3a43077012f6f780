"""Words and characters of Chinese and English text, for keyword indexes and queries.

Chinese is cut with rjieba (jieba's cuts, much faster); everything else becomes lower-cased words.
CJK characters are also kept one by one, since character-level BM25 beat word-level BM25 on
Chinese chat memory (eval README).

    >>> words("木木昨天去了南京大学图书馆!")
    ['木木', '昨天', '去', '了', '南京大学', '图书馆']
    >>> words("I'm going to the Museum")
    ["i'm", 'going', 'to', 'the', 'museum']
    >>> words("agent0的猫叫团子")
    ['agent0', '的', '猫叫', '团子']
    >>> chars("去图书馆 ok")
    ['去', '图', '书', '馆']

The dictionary is rjieba's own and never learns: a cut depends on the text and on the names it is given
(a scope's people, a fold's roster), each kept one word, never on what else the process has seen.

    >>> words("阿杰说杭州那家游戏公司离他家很远", names=["杭州那家游戏公司"])
    ['阿杰', '说', '杭州那家游戏公司', '离', '他家', '很', '远']
    >>> words("阿杰说杭州那家游戏公司离他家很远")
    ['阿杰', '说', '杭州', '那', '家', '游戏', '公司', '离', '他家', '很', '远']
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType

from huiyi.patterns import lazy
from huiyi.text.language import CJK, CJK_RUN

# CJK runs (group 1), or runs of other letters and digits (CJK excluded, so "agent0的猫" splits at 的).
# Each CJK class costs ~1.5 ms to compile (re walks its 28 000 code points), paid at every start: few here
_SEGMENT = lazy(rf"([{CJK}]+)|[^\W_{CJK}]+(?:['’][^\W_{CJK}]+)*", re.UNICODE)

ZH_STOPWORDS = frozenset(
    "的 了 是 在 我 你 他 她 它 们 我们 你们 他们 她们 这 那 这个 那个 就 都 也 还 和 与 跟 吗 呢 吧 啊 呀 哦 嗯"
    " 哈 嘛 么 什么 怎么 为什么 有 没有 没 不 很 会 要 能 想 说 去 来 到 被 把 让 给 对 又 再 一个 一下 一些 就是"
    " 自己 可以 因为 所以 但是 然后 如果 还是 或者 已经 这样 那样 这么 那么 哪 哪里 谁 吗 啦 咯 喔"
    " 时候 来着 着 过 记得 还记得 知道 觉得 一直 其实 真的 现在".split()
)
EN_STOPWORDS = frozenset(
    "a an the and or but if of to in on at by for with about from as is am are was were be been being do does did"
    " doing have has had having i me my mine we us our you your he him his she her it its they them their this that"
    " these those what which who whom whose when where why how there here so than then too very can could would"
    " should will shall may might must not no yes just also any some all each into over up down out off again"
    " i'm you're it's that's don't didn't".split()
)
STOPWORDS = ZH_STOPWORDS | EN_STOPWORDS

# rjieba's dictionary is one shared Rust object: one cut at a time
_dictionary_lock = threading.RLock()
# the names of the scope being worked on (a fold's roster), for the cuts made inside :func:`naming`
_scope_names: ContextVar[frozenset[str]] = ContextVar("huiyi_scope_names", default=frozenset())


def _rjieba() -> ModuleType:
    """rjieba, imported at the first cut: it loads its dictionary on import (~140 ms, issue 15)."""
    import rjieba

    return rjieba


def warm_in_background() -> None:
    """Load the segmenter's dictionary in a daemon thread, so that a first recall need not wait for it.

    The import holds the GIL (~100 ms), so this pays off when a process opens its memory before its
    first message, as a bot does; a cut that comes sooner waits on the lock, as it would anyway.
    """
    if "rjieba" not in sys.modules:
        threading.Thread(target=cut, args=("预热",), name="huiyi-warm-tokens", daemon=True).start()


def cut(text: str, names: Iterable[str] = ()) -> list[str]:
    """rjieba's cut of ``text``, each of ``names`` (and of :func:`naming`'s) one word; safe from any thread."""
    return _cut_named(text, _names_pattern(_names(names)))


def tag(text: str, names: Iterable[str] = ()) -> list[tuple[str, str]]:
    """rjieba's words of ``text`` with their part-of-speech flags, each name one word (:func:`_name_flag`)."""
    pattern = _names_pattern(_names(names))
    if pattern is None:
        return _tag(text)
    out: list[tuple[str, str]] = []
    for piece, named in _pieces(text, pattern):
        out.extend([(piece, _name_flag(piece))] if named else _tag(piece))
    return out


def first_tag(text: str, word: str) -> str | None:
    """The tagger's flag of ``word`` when it is the first word the tagger cuts from ``text``, else None: a
    name a pattern matched counts only if the tagger cuts it whole, as a name.

    >>> first_tag("陈屿今天来看我了", "陈屿"), first_tag("陈屿今天来看我了", "陈")
    ('nr', None)
    """
    cut = [(piece, flag) for piece, flag in tag(text) if piece.strip()]
    return cut[0][1] if cut and cut[0][0] == word else None


@functools.lru_cache(maxsize=4096)
def _name_flag(name: str) -> str:
    """A name's flag: the dictionary's for a word it holds (咪咪 o, 吉他 ns), else ``nr`` (a person's name)."""
    with _dictionary_lock:
        rjieba = _rjieba()
        own = rjieba.tag(name) if rjieba.has_word(name) else []
    return str(own[0][1]) if len(own) == 1 else "nr"


@contextmanager
def naming(names: Iterable[str]) -> Iterator[None]:
    """Within the block (this thread or task only), every cut keeps ``names`` whole, as if given them."""
    token = _scope_names.set(frozenset(names))
    try:
        yield
    finally:
        _scope_names.reset(token)


def _names(names: Iterable[str]) -> frozenset[str]:
    scoped = _scope_names.get()
    return scoped.union(names) if names else scoped  # the scope's own set, its hash kept, when none given


@functools.lru_cache(maxsize=256)
def _names_pattern(names: frozenset[str]) -> re.Pattern[str] | None:
    """The longest of ``names`` at each place, compiled once per set of names. Only Chinese names of two
    characters or more: one character is a word already, and kept whole it would cut 熊猫 and 猫叫."""
    kept = {n for n in (name.strip() for name in names) if len(n) > 1 and has_cjk(n)}
    if not kept:
        return None
    return re.compile("|".join(re.escape(n) for n in sorted(kept, key=lambda n: (-len(n), n))))


def _pieces(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[str, bool]]:
    """``text`` in order as (piece, whether it is a name): the names, and what lies between them."""
    at = 0
    for match in pattern.finditer(text):
        if match.start() > at:
            yield text[at : match.start()], False
        yield match.group(), True
        at = match.end()
    if at < len(text):
        yield text[at:], False


def _cut_named(text: str, pattern: re.Pattern[str] | None) -> list[str]:
    if pattern is None:
        return _cut(text)
    out: list[str] = []
    for piece, named in _pieces(text, pattern):
        out.extend([piece] if named else _cut(piece))
    return out


def _cut(text: str) -> list[str]:
    with _dictionary_lock:
        return list(_rjieba().cut(text))


def _tag(text: str) -> list[tuple[str, str]]:
    with _dictionary_lock:
        return [(str(word), str(flag)) for word, flag in _rjieba().tag(text)]


def has_cjk(text: str) -> bool:
    return CJK_RUN.search(text) is not None


def all_cjk(text: str) -> bool:
    """Whether ``text`` is CJK characters only (and not empty)."""
    return CJK_RUN.fullmatch(text) is not None


def words(text: str, names: Iterable[str] = ()) -> list[str]:
    """Words in reading order: rjieba cuts for Chinese runs (``names`` whole), lower-cased words otherwise."""
    pattern = _names_pattern(_names(names))
    out: list[str] = []
    for match in _SEGMENT.finditer(text):
        segment = match.group()
        if match.group(1) is not None:  # a CJK run
            out.extend(w for w in _cut_named(segment, pattern) if w.strip())
        else:
            out.append(segment.lower().replace("’", "'"))
    return out


def chars(text: str) -> list[str]:
    """The CJK characters of ``text``, one by one."""
    return [char for run in CJK_RUN.findall(text) for char in run]


def content_words(text: str, drop: Iterable[str] = (), names: Iterable[str] = ()) -> list[str]:
    """Words (``names`` whole) without stopwords, single Latin letters or the names in ``drop``; first
    occurrence kept."""
    dropped = {d.lower() for d in drop}
    seen: set[str] = set()
    out: list[str] = []
    for word in words(text, names):
        if word in STOPWORDS or word in dropped or word in seen:
            continue
        if len(word) == 1 and not has_cjk(word) and not word.isdigit():
            continue
        seen.add(word)
        out.append(word)
    return out
