"""Keywords by TF-IDF: rjieba words weighted by part of speech and by the shipped IDF table.

The rule extractor picks a memory's keywords with it; summaries pick a day's topics.
"""

from __future__ import annotations

import bisect
import itertools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from huiyi.patterns import lazy
from huiyi.prompts import packaged
from huiyi.text import tokens
from huiyi.text.language import LATIN_WORD
from huiyi.text.tokens import EN_STOPWORDS, ZH_STOPWORDS, has_cjk

__all__ = ["EN_PROPER_STOP", "PLACEHOLDER", "TITLE", "idf", "keywords", "load_idf"]

# what chat apps put for what is not text ([图片], [动画表情], [CQ:face,id=1]): never a keyword or a topic
PLACEHOLDER = lazy(
    r"\[(?:CQ:[^\]]*|[^\[\]\s]{0,8}(?:图片|表情|贴纸|语音|视频|文件|链接|红包|位置|名片|转账|闪照|戳一戳|拍一拍|消息)"
    r"(?:[:：][^\[\]]{0,20})?|image|photo|sticker|emoji|voice|video|file)\]",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------------------- IDF

_IDF_LOCK = threading.Lock()
_IDF_CACHE: dict[str, tuple[dict[str, float], float]] = {}


def load_idf(path: str | Path | None) -> tuple[dict[str, float], float]:
    key = str(path) if path else ""
    with _IDF_LOCK:
        if key not in _IDF_CACHE:
            if path:
                text = Path(path).read_text(encoding="utf-8")
            else:
                text = packaged("data", "idf_zh.txt").read_text(encoding="utf-8")
            table: dict[str, float] = {}
            values: list[float] = []
            default: float | None = None
            for line in text.splitlines():
                if line.startswith("#"):
                    head, _, value = line[1:].strip().partition(" ")
                    if head == "default":
                        default = float(value)
                    continue
                word, _, value = line.rpartition(" ")
                if word:
                    table[word] = float(value)
                    values.append(float(value))
            if default is None:
                default = sorted(values)[len(values) // 2] if values else 10.0
            _IDF_CACHE[key] = (table, default)
        return _IDF_CACHE[key]


def idf(word: str, path: str | Path | None = None) -> float:
    """The IDF of ``word`` in the shipped table (or the table at ``path``); unlisted words get the
    table's default."""
    table, default = load_idf(path)
    return table.get(word, default)


# ---------------------------------------------------------------------------------------- keywords

# part-of-speech weights: what makes a memory's keyword (seed 000's keywords are mostly nouns)
_NOUN_FLAGS = frozenset({"n", "nr", "ns", "nt", "nz", "ng", "nrt", "nrfg", "l", "i", "j", "s", "vn", "an", "book"})
_VERB_FLAGS = frozenset({"v", "vd", "vg", "vi", "vq"})
_ADJ_FLAGS = frozenset({"a", "ad", "ag"})
_FLAG_WEIGHT = {**dict.fromkeys(_NOUN_FLAGS, 1.5), **dict.fromkeys(_VERB_FLAGS, 0.7), **dict.fromkeys(_ADJ_FLAGS, 1.0)}
_ZH_KEYWORD_STOP = frozenset(
    "觉得 知道 感觉 看看 出来 起来 东西 事情 时候 有点 一点 今天 明天 昨天 后天 前天 现在 刚才 可能 应该 需要 希望 开始"
    " 不是 没有 一起 喜欢 讨厌 哈哈 哈哈哈 嘿嘿 呜呜 好吧 好的 谢谢 晚安 早安 早上好 晚上好 你好 不错 厉害 真是 还有"
    " 一样 这样 那样 怎么样 为什么 地方 问题 样子 看到 听到 打算 准备 计划 以后 之前 以前 之后 最近 一会儿 有没有"
    " 是不是 知不知道 不要 不会 不能 东东 人家 大家 大家好 别人 朋友们 什么样 这种 那种 其他 一直 已经"
    " 就行 就好".split()
)
_EN_KEYWORD_STOP = frozenset(
    "like love hate enjoy really yeah yes okay ok oh lol haha think know want wanna gonna going got get go went come"
    " came say said tell told thing things today yesterday tomorrow tonight morning evening night week month year"
    " something anything everything nothing much many more most well good great nice cool sure maybe actually"
    " just still also even back way lot little bit time times day days make made let thanks thank please sorry"
    " hey hi hello bye see look looks looking feel feeling felt right kind sort pretty quite name live lives living"
    " old years meet nice".split()
)
EN_PROPER_STOP = frozenset(
    "i i'm i've i'll i'd oh ok okay yes no hey hi hello thanks lol haha well so and but the a an my we you"
    " monday tuesday wednesday thursday friday saturday sunday january february march april may june july august"
    " september october november december".split()
)
TITLE = lazy(r"《([^《》]{1,30})》")


@dataclass(frozen=True)
class _Word:
    text: str
    flag: str
    position: int


def _tag(text: str, names: frozenset[str]) -> list[_Word]:
    """rjieba's (word, flag) pairs for Chinese text, ``names`` whole; Latin words as ``eng``. Positions are
    offsets."""
    out: list[_Word] = []
    if has_cjk(text):
        position = 0
        for word, flag in tokens.tag(text, names):
            out.append(_Word(word, flag, position))
            position += len(word)
    else:
        out = [_Word(m.group(), "eng", m.start()) for m in LATIN_WORD.finditer(text)]
    return out


class _Skips:
    """Character ranges to skip. Whether one overlaps a word is a bisection: checking every range for
    every word was quadratic in a message of thousands of time phrases (6 666: 5 s).

        >>> skips = _Skips([(10, 12), (0, 3), (2, 8)])
        >>> [skips.overlap(a, b) for a, b in [(8, 10), (7, 9), (12, 14), (11, 20), (3, 4)]]
        [False, True, False, True, True]
    """

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self.starts = [start for start, _ in ordered]
        self.reach = list(itertools.accumulate((stop for _, stop in ordered), max))  # furthest stop so far

    def overlap(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self.starts, end)  # the ranges that start before the word ends
        return before > 0 and self.reach[before - 1] > start


def keywords(
    texts: Sequence[str],
    *,
    drop: Iterable[str] = (),
    names: Iterable[str] = (),
    limit: int = 6,
    idf_path: str | Path | None = None,
    skip_spans: Sequence[Sequence[tuple[int, int]]] = (),
    extra: Iterable[str] = (),
    weigh: Callable[[str], float] | None = None,
) -> list[str]:
    """The ``limit`` best keywords of ``texts`` by TF-IDF, best first; ties keep reading order.

    ``drop`` holds names (or any words) never to return; ``names`` and ``drop`` are cut whole (a scope's
    entities: 科目二, not 科目); ``skip_spans[i]`` holds character ranges of ``texts[i]`` (time phrases)
    whose words are not keywords. ``extra`` holds terms known to matter
    (entities read by the fact patterns: 猫, 咪咪); each counts twice and may be one character long.
    ``weigh`` multiplies a word's score (a day's topics weigh down the words of the person's other days).

        >>> keywords(["木木说她昨天在南京大学图书馆借了一本《百年孤独》，图书馆真安静"], drop=["木木"])
        ['百年孤独', '图书馆', '南京大学', '安静']
    """
    drop = [d for d in drop if d]
    dropped = {d.casefold() for d in drop}
    whole = frozenset([*drop, *names])  # 陈大川 dropped whole, not 陈 and 大川 left behind
    scores: dict[str, float] = {}
    order: dict[str, int] = {}
    counts: dict[str, int] = {}
    shown: dict[str, str] = {}
    weights: dict[str, float] = {}
    rank = 0

    def add(key: str, surface: str, weight: float, boost: int = 1) -> None:
        nonlocal rank
        counts[key] = counts.get(key, 0) + boost
        weights[key] = max(weights.get(key, 0.0), weight)
        if key not in order:
            order[key] = rank
            shown[key] = surface
            rank += 1

    for term in extra:
        term = term.strip()
        if term and term.casefold() not in dropped:
            add(term.casefold(), term, 1.5, boost=2)
    for index, text in enumerate(texts):
        skipped = _Skips(
            [
                *(skip_spans[index] if index < len(skip_spans) else ()),
                *(m.span() for m in PLACEHOLDER.finditer(text)),
            ]
        )
        for title in TITLE.finditer(text):
            name = title.group(1).strip()
            if name and name.casefold() not in dropped:
                add(name.casefold(), name, 2.0, boost=2)
        for word in _tag(text, whole):
            end = word.position + len(word.text)
            if skipped.overlap(word.position, end):
                continue
            surface = word.text.strip()
            key = surface.casefold()
            if not surface or key in dropped:
                continue
            if word.flag == "eng" or not has_cjk(surface):
                if (
                    len(surface) < 3
                    or key in EN_STOPWORDS
                    or key in _EN_KEYWORD_STOP
                    or key.rstrip("s") in _EN_KEYWORD_STOP
                    or not surface.isalpha()
                ):
                    continue
                proper = surface[0].isupper() and key not in EN_PROPER_STOP and word.position > 0
                add(key, surface if proper else key, 1.5 if proper else 1.0)
                continue
            if len(surface) < 2 or surface in ZH_STOPWORDS or surface in _ZH_KEYWORD_STOP or surface[0] in "我你他她它":
                continue  # 我养, 你们好: fragments glued to a pronoun
            weight = _FLAG_WEIGHT.get(word.flag)
            if weight is None or any(surface in d or d in surface for d in dropped if has_cjk(d) and len(d) > 1):
                continue
            add(key, surface, weight)
    for key, count in counts.items():
        word_idf = idf(shown[key], idf_path) if has_cjk(shown[key]) else 8.0
        scores[key] = count * word_idf * weights[key] * (weigh(shown[key]) if weigh else 1.0)
    best = sorted(scores, key=lambda k: (-round(scores[k], 6), order[k]))
    # a word inside a longer chosen keyword (图书馆 in 南京大学图书馆) adds nothing
    chosen: list[str] = []
    for key in best:
        if any(key in other for other in chosen):
            continue
        chosen.append(key)
        if len(chosen) >= limit:
            break
    return [shown[k] for k in chosen]
