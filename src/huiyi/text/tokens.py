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
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterable
from types import ModuleType

from huiyi.text.language import CJK, CJK_RUN

# CJK runs (group 1), or runs of other letters and digits (CJK excluded, so "agent0的猫" splits at 的).
# Each CJK class costs ~1.5 ms to compile (re walks its 28 000 code points), paid at every start: few here
_SEGMENT = re.compile(rf"([{CJK}]+)|[^\W_{CJK}]+(?:['’][^\W_{CJK}]+)*", re.UNICODE)

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

# rjieba's dictionary is one shared Rust object: a cut while another thread adds a word fails with
# "Already borrowed", so every use of it goes through this lock (cuts take microseconds)
_dictionary_lock = threading.RLock()
_known_words: set[str] = set()


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


def cut(text: str) -> list[str]:
    """rjieba's cut of ``text``, safe to call from any thread."""
    with _dictionary_lock:
        return list(_rjieba().cut(text))


def tag(text: str) -> list[tuple[str, str]]:
    """rjieba's words of ``text`` with their part-of-speech flags, safe to call from any thread."""
    with _dictionary_lock:
        return [(str(word), str(flag)) for word, flag in _rjieba().tag(text)]


def has_cjk(text: str) -> bool:
    return CJK_RUN.search(text) is not None


def all_cjk(text: str) -> bool:
    """Whether ``text`` is CJK characters only (and not empty)."""
    return CJK_RUN.fullmatch(text) is not None


def add_words(names: Iterable[str]) -> None:
    """Teach the segmenter names and aliases so that 苏霓 or 霓霓 stay one word."""
    # only Chinese names need it: English ones never load the dictionary (~90 ms holding the GIL)
    fresh = [n for n in (name.strip() for name in names) if len(n) > 1 and n not in _known_words and has_cjk(n)]
    if not fresh:
        return
    with _dictionary_lock:
        rjieba = _rjieba()
        for name in fresh:
            # one character is a word already; weighted as a name it would cut 熊猫 and 猫叫 around it
            if name not in _known_words:
                rjieba.add_word(name, 100000, "nr")
                _known_words.add(name)


def words(text: str) -> list[str]:
    """Words in reading order: rjieba cuts for Chinese runs, lower-cased words otherwise."""
    out: list[str] = []
    for match in _SEGMENT.finditer(text):
        segment = match.group()
        if match.group(1) is not None:  # a CJK run
            out.extend(w for w in cut(segment) if w.strip())
        else:
            out.append(segment.lower().replace("’", "'"))
    return out


def chars(text: str) -> list[str]:
    """The CJK characters of ``text``, one by one."""
    return [char for run in CJK_RUN.findall(text) for char in run]


def content_words(text: str, drop: Iterable[str] = ()) -> list[str]:
    """Words without stopwords, single Latin letters or the names in ``drop``; first occurrence kept."""
    dropped = {d.lower() for d in drop}
    seen: set[str] = set()
    out: list[str] = []
    for word in words(text):
        if word in STOPWORDS or word in dropped or word in seen:
            continue
        if len(word) == 1 and not has_cjk(word) and not word.isdigit():
            continue
        seen.add(word)
        out.append(word)
    return out
