"""Extraction without an LLM: events, keywords, times, entity mentions and plain first-person facts.

When no LLM endpoint is configured, a fold still becomes memories:

* **Events** come from the fold's own turns. Consecutive messages are grouped into a few segments; a
  new segment starts after a silence of ``gap_minutes``, when a segment is full (``max_turns``
  messages or ``max_chars`` characters), or on a change of topic (a message with two or more content
  words sharing none with a segment of ``min_topic_turns`` (3) or more messages). A segment reads as a
  memory with each speaker named: ``木木说：昨天晚上八点（2023-05-09 20:00）去看了电影。祈煜说：……``.
  Repeated laughter and punctuation are condensed, pure fillers (嗯嗯, 哈哈, ok) are left out of the text
  when the segment says anything else, and long turns are cut with an ellipsis. Every event keeps the
  ids of all its messages.
* **Times**: relative phrases (昨天晚上八点, 下周三, 三天前, last Saturday) are resolved with
  :func:`~huiyi.text.times.find_time_phrases` against the time *of the message that says them*, and
  written after the phrase in the event text. The event's time is the first phrase that does not
  contain its own message's time (今天, 最近 say nothing new), else the time of the first message.
* **Keywords**: TF-IDF over rjieba words with the IDF table ``data/idf_zh.txt`` (the commonest 50k words
  of jieba's ``idf.txt``, MIT; see that file's header). Only nouns, verbs, adjectives, idioms and
  proper nouns of two or more characters count (nouns weigh 1.5, verbs 0.7); stopwords, time words,
  numerals and every name of the people present (speakers, aliases, the agent) are left out. English
  words have no IDF table and are ranked by count, proper nouns first.
* **Entities**: the people of the fold's alias dictionary who speak or are named (by any alias), and
  proper nouns: rjieba's part-of-speech tags ``ns`` (place), ``nt`` (organisation), ``nz`` (other
  proper noun), ``nr`` (person; only when it looks like a name, since jieba tags words such as 过敏 as
  ``nr``), titles in 《》, English capitalised words inside a sentence, and names read by the fact
  patterns (我叫…, a pet's name).
* **Place**: ``在…`` followed by a place-like noun (南京大学图书馆, 家里, 星巴克), else the first ``ns``
  word; in English, ``in``/``at`` + a capitalised name.
* **Facts** from plain first-person patterns, attributed to the speaker of the message (never 我 / I):

  ==========================================  ==========================  =================================
  Chinese                                     English                     fact
  ==========================================  ==========================  =================================
  我喜欢… / 我爱… / 我最喜欢…                    I like / love / enjoy …     preference 喜欢 / 爱 (likes/loves)
  我讨厌… / 我不喜欢… / 我受不了…                 I hate / don't like …       preference 讨厌 / 不喜欢
  我最喜欢的X是Y                                my favo(u)rite X is Y       preference 最喜欢的X
  我是…（a noun: 我是一名护士, 我是南京人）           I'm a/an … , I'm from …     attribute 是 / relation 来自
  我叫… / 我的名字是…                            my name is … , call me …     attribute 名字 (+ alias)
  我住在… / 我家在…                              I live in/at …              relation 住在
  我在…工作/上班/实习                             I work at/for/in …, as a …  relation 工作于 / attribute 是
  我的生日是… / 我生日在…                          my birthday is …            attribute 生日
  我今年…岁 / 我…岁了                            I'm N (years old)           attribute 年龄
  我养了一只…（叫…）                              I have a dog (named …)      relation 养了 (+ the pet's name)
  我对…过敏                                     I'm allergic to …           attribute 过敏
  ==========================================  ==========================  =================================

  Questions (？, 吗), hypotheticals and reported speech (如果我是…, 他说我喜欢…) are skipped; in a private
  chat 你 / you is the other party (我喜欢你 → 木木喜欢祈煜), in a group it is skipped.
* **Importance** (0–1) from simple signals: 0.3 to start; +0.2 when a first-person fact was read from
  the segment; +0.15 for emotion words (开心, 难过, 想你, happy, miss…); +0.1 for a plan (打算, 明天, going
  to, or a time phrase pointing to the future); +0.05 for an exclamation; +0.05 when a place or another
  named thing is mentioned; capped at 0.9 (rules are never sure). A segment of fillers only gets 0.1.
  Facts get a confidence of 0.7–0.8 by pattern (identity, the loosest, 0.7).

Everything is deterministic: the same fold gives the same drafts.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path

import rjieba

from huiyi.flows.extract import EntityDraft, EventDraft, Extraction, FactDraft, Fold
from huiyi.model import EntityType, FactKind, Message
from huiyi.text.times import TimeSpan, find_time_phrases
from huiyi.text.tokens import EN_STOPWORDS, ZH_STOPWORDS, add_words, has_cjk

__all__ = ["Roster", "RuleExtractor", "conversation_language", "idf", "keywords"]

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_CJK_CHAR = re.compile(f"[{_CJK}]")
_ID_LIKE = re.compile(r"[\w.-]*\d[\w.-]*|[\w-]*_[\w-]*")


# ---------------------------------------------------------------------------------------- names


def _name_like(value: str) -> bool:
    """``苏霓``, ``Alice`` — not ``u42`` or ``qq_10086``."""
    return bool(value) and (has_cjk(value) or not _ID_LIKE.fullmatch(value))


@dataclass
class Roster:
    """Who is in a fold and by which names: the agent and the people of ``fold.aliases``.

    Each person has one display name (their id if it reads as a name, else their first alias that
    does); every id, name and alias resolves to it.
    """

    agent: str
    display: dict[str, str] = field(default_factory=dict)  # speaker id -> display name
    names: dict[str, list[str]] = field(default_factory=dict)  # display name -> every name, display first
    _lookup: dict[str, str] = field(default_factory=dict)  # any name (case-folded) -> display name

    @classmethod
    def of(cls, fold: Fold) -> Roster:
        roster = cls(agent=fold.agent)
        roster._add(fold.agent, [fold.agent, *fold.aliases.get(fold.agent, [])])
        people = [p for p in fold.aliases if p != fold.agent]
        people += [m.speaker for m in fold.messages if m.speaker not in fold.aliases and m.speaker != fold.agent]
        if fold.person and fold.person not in people and fold.person != fold.agent:
            people.append(fold.person)
        for person in dict.fromkeys(people):
            roster._add(person, fold.aliases.get(person, []))
        return roster

    def _add(self, person: str, aliases: Sequence[str]) -> None:
        names = [n.strip() for n in [person, *aliases] if n and n.strip()]
        names = list(dict.fromkeys(names))
        shown = next((n for n in names if _name_like(n)), person)
        ordered = [shown, *(n for n in names if n != shown)]
        self.display[person] = shown
        self.names[shown] = ordered
        for name in ordered:
            self._lookup.setdefault(name.casefold(), shown)

    @property
    def agent_name(self) -> str:
        return self.display[self.agent]

    def name_of(self, speaker: str) -> str:
        return self.display.get(speaker, speaker)

    def resolve(self, name: str) -> str | None:
        """The display name ``name`` refers to, or ``None`` for someone not in the fold."""
        return self._lookup.get(name.strip().casefold())

    def all_names(self) -> list[str]:
        return [name for names in self.names.values() for name in names]

    def entity_type(self, display: str) -> EntityType | None:
        if display == self.agent_name:
            return EntityType.SUBJECT
        return EntityType.OBJECT if display in self.names else None

    def aliases_of(self, display: str) -> list[str]:
        """Other names worth matching: every name but the display one and id-like strings."""
        return [n for n in self.names.get(display, [])[1:] if _name_like(n)]

    def other_party(self, speaker: str, private: bool) -> str | None:
        """Who 你 / you means: in a private chat the other side, in a group nobody can tell."""
        if not private:
            return None
        shown = self.name_of(speaker)
        people = [n for n in self.names if n != self.agent_name]
        if shown == self.agent_name:
            return people[0] if len(people) == 1 else None
        return self.agent_name


def conversation_language(messages: Iterable[Message], default: str = "zh") -> str:
    """``zh`` when the text holds at least as many CJK characters as Latin words, ``en`` when it holds
    Latin words and no CJK, ``default`` when it holds neither."""
    cjk = latin = 0
    for message in messages:
        cjk += len(_CJK_CHAR.findall(message.text))
        latin += len(_LATIN_WORD.findall(message.text))
    if cjk == 0 and latin == 0:
        return default
    return "zh" if cjk >= latin else "en"


# ---------------------------------------------------------------------------------------- IDF

_IDF_LOCK = threading.Lock()
_IDF_CACHE: dict[str, tuple[dict[str, float], float]] = {}


def _load_idf(path: str | Path | None) -> tuple[dict[str, float], float]:
    key = str(path) if path else ""
    with _IDF_LOCK:
        if key not in _IDF_CACHE:
            if path:
                text = Path(path).read_text(encoding="utf-8")
            else:
                text = resources.files("huiyi").joinpath("data/idf_zh.txt").read_text(encoding="utf-8")
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
    table, default = _load_idf(path)
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
    " 是不是 知不知道 不要 不会 不能 东东 人家 大家 大家好 别人 朋友们 什么样 这种 那种 其他 一直 已经".split()
)
_EN_KEYWORD_STOP = frozenset(
    "like love hate enjoy really yeah yes okay ok oh lol haha think know want wanna gonna going got get go went come"
    " came say said tell told thing things today yesterday tomorrow tonight morning evening night week month year"
    " something anything everything nothing much many more most well good great nice cool sure maybe actually"
    " just still also even back way lot little bit time times day days make made let thanks thank please sorry"
    " hey hi hello bye see look looks looking feel feeling felt right kind sort pretty quite name live lives living"
    " old years meet nice".split()
)
_EN_PROPER_STOP = frozenset(
    "i i'm i've i'll i'd oh ok okay yes no hey hi hello thanks lol haha well so and but the a an my we you"
    " monday tuesday wednesday thursday friday saturday sunday january february march april may june july august"
    " september october november december".split()
)
_TITLE = re.compile(r"《([^《》]{1,30})》")


@dataclass(frozen=True)
class _Word:
    text: str
    flag: str
    position: int


def _tag(text: str) -> list[_Word]:
    """rjieba's (word, flag) pairs for Chinese text; Latin words as ``eng``. Positions are offsets."""
    out: list[_Word] = []
    if has_cjk(text):
        position = 0
        for word, flag in rjieba.tag(text):
            out.append(_Word(word, flag, position))
            position += len(word)
    else:
        out = [_Word(m.group(), "eng", m.start()) for m in _LATIN_WORD.finditer(text)]
    return out


def keywords(
    texts: Sequence[str],
    *,
    drop: Iterable[str] = (),
    limit: int = 6,
    idf_path: str | Path | None = None,
    skip_spans: Sequence[Sequence[tuple[int, int]]] = (),
    extra: Iterable[str] = (),
) -> list[str]:
    """The ``limit`` best keywords of ``texts`` by TF-IDF, best first; ties keep reading order.

    ``drop`` holds names (or any words) never to return; ``skip_spans[i]`` holds character ranges of
    ``texts[i]`` (time phrases) whose words are not keywords. ``extra`` holds terms known to matter
    (entities read by the fact patterns: 猫, 咪咪); each counts twice and may be one character long.

        >>> keywords(["木木说她昨天在南京大学图书馆借了一本《百年孤独》，图书馆真安静"], drop=["木木"])
        ['百年孤独', '图书馆', '南京大学', '安静']
    """
    dropped = {d.casefold() for d in drop if d}
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
        skips = skip_spans[index] if index < len(skip_spans) else ()
        for title in _TITLE.finditer(text):
            name = title.group(1).strip()
            if name and name.casefold() not in dropped:
                add(name.casefold(), name, 2.0, boost=2)
        for word in _tag(text):
            end = word.position + len(word.text)
            if any(start < end and word.position < stop for start, stop in skips):
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
                proper = surface[0].isupper() and key not in _EN_PROPER_STOP and word.position > 0
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
        scores[key] = count * word_idf * weights[key]
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


# ---------------------------------------------------------------------------------------- facts

_ZH_ADV = (
    r"(?:也|还|就|都|最|很|超|超级|特别|非常|真的|真|挺|蛮|好|比较|一直|从小就?|其实|可|老|太|更|尤其|十分|贼|巨)*"
)
_ZH_END_PARTICLES = "啦呀啊哦嘛吧喔哈耶哟噢呐咯~～"
_ZH_REPORTED = re.compile(r"说|觉得|以为|如果|假如|要是|万一|听说|据说|是不是|难道|他|她|别人|谁|假设|梦见|梦到")
_ZH_TELL = re.compile(r"(?:跟|和|对|给)?你说|告诉你")
_ZH_PRONOUNS = frozenset(
    "你 你们 他 她 它 他们 她们 它们 这 那 这个 那个 这些 那些 这样 那样 什么 谁 哪 自己 大家".split()
)
_ZH_NUM = r"[0-9０-９]{1,3}|[一二两三四五六七八九十]{1,3}"


@dataclass(frozen=True)
class _FactRule:
    pattern: re.Pattern[str]
    predicate: str  # may name a group: {x}
    kind: FactKind
    keyword: str
    description: str  # {s} subject, {o} object, {x} extra group
    object_type: EntityType | None = None
    confidence: float = 0.8
    noun_object: bool = False  # the object must end in a noun (我是一名护士, not 我是说)


def _zh(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_ZH_RULES: tuple[_FactRule, ...] = (
    _FactRule(
        _zh(rf"我{_ZH_ADV}最(?:喜欢|爱)的(?P<x>[{_CJK}]{{1,6}}?)(?:是|就是)(?P<o>.+)"),
        "最喜欢的{x}",
        FactKind.PREFERENCE,
        "喜好",
        "{s}最喜欢的{x}是{o}",
        confidence=0.8,
    ),
    _FactRule(
        _zh(rf"我{_ZH_ADV}(?P<p>不喜欢|不太喜欢|不怎么喜欢|不爱|讨厌|受不了)(?:的(?:是|就是))?(?P<o>.+)"),
        "{p}",
        FactKind.PREFERENCE,
        "厌恶",
        "{s}{p}{o}",
        confidence=0.75,
    ),
    _FactRule(
        _zh(rf"我{_ZH_ADV}(?P<p>喜欢|爱|迷上了|热爱)(?:上了?)?(?:的(?:是|就是))?(?P<o>.+)"),
        "{p}",
        FactKind.PREFERENCE,
        "喜好",
        "{s}{p}{o}",
        confidence=0.75,
    ),
    _FactRule(
        _zh(rf"我(?:的)?(?:名字|全名)(?:是|叫)(?P<o>[{_CJK}A-Za-z·]{{1,10}})"),
        "名字是",
        FactKind.ATTRIBUTE,
        "名字",
        "{s}说自己叫{o}",
        confidence=0.8,
    ),
    _FactRule(
        _zh(rf"我(?:就|本名|小名|大名)?叫(?:做)?(?P<o>[{_CJK}A-Za-z·]{{1,10}})"),
        "名字是",
        FactKind.ATTRIBUTE,
        "名字",
        "{s}说自己叫{o}",
        confidence=0.8,
    ),
    _FactRule(
        _zh(r"我(?:现在|目前|一直|平时)?(?:住在|住|家在|家住在?)(?P<o>(?!在).+)"),
        "住在",
        FactKind.RELATION,
        "住址",
        "{s}住在{o}",
        object_type=EntityType.SPECIFIC,
    ),
    _FactRule(
        _zh(r"我(?:现在|目前|一直)?在(?P<o>[^，。！？]{1,15}?)(?:工作|上班|实习|打工|任职|当[^，。！？]{1,8})"),
        "工作于",
        FactKind.RELATION,
        "工作",
        "{s}在{o}工作",
        object_type=EntityType.SPECIFIC,
    ),
    _FactRule(
        _zh(r"我(?:的)?生日(?:是|在)(?P<o>.+)"),
        "生日是",
        FactKind.ATTRIBUTE,
        "生日",
        "{s}的生日是{o}",
    ),
    _FactRule(
        _zh(rf"我(?:今年|已经|都)?(?P<o>(?:{_ZH_NUM})岁)(?:了)?"),
        "年龄",
        FactKind.ATTRIBUTE,
        "年龄",
        "{s}今年{o}",
    ),
    _FactRule(
        _zh(r"我对(?P<o>[^，。！？]{1,10}?)过敏"),
        "过敏",
        FactKind.ATTRIBUTE,
        "健康",
        "{s}对{o}过敏",
    ),
    _FactRule(
        _zh(r"我(?:是|算是)(?P<o>.{1,15})"),
        "是",
        FactKind.ATTRIBUTE,
        "身份",
        "{s}是{o}",
        confidence=0.7,
        noun_object=True,
    ),
)
_ZH_NAME_RULE = next(rule for rule in _ZH_RULES if rule.keyword == "名字")
# the pet rule reads three parts, so it is applied on its own
_ZH_PET = re.compile(
    rf"我(?:家)?(?:养了|养着|养)(?P<num>[一两二三四五六七八九十几\d]+)?(?P<mw>只|条|头|匹|个|缸|窝)?"
    rf"(?P<pet>(?![了着过])[{_CJK}]{{1,5}}?)(?:[，,]?(?:它|他|她)?(?:叫做?|名叫|名字叫)(?P<name>[{_CJK}A-Za-z]{{1,8}}))?"
    rf"(?=[，,。.！!？?~～\s]|$)"
)

_EN_PREFIX = r"(?:(?:oh|well|and|but|so|actually|honestly|yeah|yes|also|haha|lol|btw|um|hey|hmm|ok|okay)[,!.]?\s+)*"
_EN_ADV = r"(?:really\s+|totally\s+|absolutely\s+|just\s+|also\s+|kinda\s+|so\s+|truly\s+|do\s+|still\s+)*"
_EN_PETS = (
    r"dogs?|cats?|pupp(?:y|ies)|kittens?|hamsters?|rabbits?|bunn(?:y|ies)|birds?|parrots?|fish|goldfish|turtles?|"
    r"tortoises?|snakes?|lizards?|horses?|guinea\s+pigs?|ferrets?|chinchillas?|hedgehogs?"
)


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"^{_EN_PREFIX}{pattern}", re.IGNORECASE)


_EN_RULES: tuple[_FactRule, ...] = (
    _FactRule(
        _en(r"my\s+(?:favou?rite)\s+(?P<x>[\w ]{1,20}?)\s+is\s+(?P<o>.+)"),
        "favourite {x}",
        FactKind.PREFERENCE,
        "likes",
        "{s}'s favourite {x} is {o}",
    ),
    _FactRule(
        _en(rf"I\s+{_EN_ADV}(?P<p>don't\s+like|do\s+not\s+like|dislike|hate|can't\s+stand|cannot\s+stand)\s+(?P<o>.+)"),
        "{p}",
        FactKind.PREFERENCE,
        "dislikes",
        "{s} {p} {o}",
        confidence=0.75,
    ),
    _FactRule(
        _en(rf"I\s+{_EN_ADV}(?P<p>like|love|enjoy|adore)\s+(?P<o>.+)"),
        "{p}",
        FactKind.PREFERENCE,
        "likes",
        "{s} {p} {o}",
        confidence=0.75,
    ),
    _FactRule(
        _en(
            r"(?:my\s+name\s+is|my\s+name's|call\s+me|I'm\s+called|I\s+am\s+called)\s+(?P<o>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?))"
        ),
        "name is",
        FactKind.ATTRIBUTE,
        "name",
        "{s}'s name is {o}",
    ),
    _FactRule(
        _en(r"I\s+(?:currently\s+|now\s+|still\s+)?live\s+(?:in|at|near)\s+(?P<o>.+)"),
        "lives in",
        FactKind.RELATION,
        "home",
        "{s} lives in {o}",
        object_type=EntityType.SPECIFIC,
    ),
    _FactRule(
        _en(
            r"I\s+(?:currently\s+|now\s+|still\s+)?work\s+(?:(?:at|for|in)\s+.+?\s+)?as\s+(?P<o>an?\s+.+?)"
            r"(?:\s+(?:at|for|in)\s+(?-i:[A-Z]).*)?$"
        ),
        "works as",
        FactKind.ATTRIBUTE,
        "work",
        "{s} works as {o}",
    ),
    _FactRule(
        _en(
            r"I\s+(?:currently\s+|now\s+|still\s+)?work\s+(?:as\s+an?\s+.+?\s+)?(?:at|for|in)\s+(?P<o>.+?)(?:\s+as\s+an?\s+.*)?$"
        ),
        "works at",
        FactKind.RELATION,
        "work",
        "{s} works at {o}",
        object_type=EntityType.SPECIFIC,
    ),
    _FactRule(
        _en(r"my\s+birthday\s+(?:is|'s)\s+(?:on\s+)?(?P<o>.+)"),
        "birthday is",
        FactKind.ATTRIBUTE,
        "birthday",
        "{s}'s birthday is {o}",
    ),
    _FactRule(
        _en(r"(?:I'm|I\s+am)\s+(?P<o>\d{1,3})(?:\s+years?\s+old|\s+y/?o)?(?=\s*$|[\s,.!])"),
        "age",
        FactKind.ATTRIBUTE,
        "age",
        "{s} is {o} years old",
    ),
    _FactRule(
        _en(r"(?:I'm|I\s+am)\s+allergic\s+to\s+(?P<o>.+)"),
        "allergic to",
        FactKind.ATTRIBUTE,
        "health",
        "{s} is allergic to {o}",
    ),
    _FactRule(
        _en(r"(?:I'm|I\s+am|I\s+come)\s+from\s+(?P<o>.+)"),
        "is from",
        FactKind.RELATION,
        "origin",
        "{s} is from {o}",
        object_type=EntityType.SPECIFIC,
    ),
    _FactRule(
        _en(
            r"(?:I'm|I\s+am)\s+(?P<o>(?:an?\s+(?!little\b|bit\b|lot\b|few\b)[^,.;!?]+)"
            r"|vegetarian|vegan|single|married|divorced|engaged|retired|pregnant|left-handed)"
        ),
        "is",
        FactKind.ATTRIBUTE,
        "identity",
        "{s} is {o}",
        confidence=0.7,
    ),
)
_EN_PET = _en(
    rf"I\s+(?:have|have\s+got|'ve\s+got|got|own|adopted|just\s+adopted|just\s+got)\s+"
    rf"(?P<num>an?|one|two|three|four|\d+)\s+(?P<pet>(?:[a-z]+\s+)?(?:{_EN_PETS}))\b"
    rf"(?:[\s,]+(?:named|called)\s+(?P<name>(?-i:[A-Z][\w'-]*)))?"
)
_EN_PRONOUNS = frozenset(
    "it this that these those them him her you everything anything something nothing one ones".split()
)
_EN_OBJECT_CUT = re.compile(
    r"\s+(?:but|because|since|though|although|when|if|while|so\s+much|a\s+lot|very\s+much|too)\b.*$", re.IGNORECASE
)
_EN_AND_I = re.compile(r",?\s+(?:and|but|so|and\s+now|plus)\s+(?=(?:I|I'm|I've|my)\b)", re.IGNORECASE)
_ZH_LEAD = re.compile(r"^(?:其实|但是|不过|可是|而且|因为|所以|嗯+|哈+|对了|说实话|老实说|现在|平时|目前)?我(?!们)")
_ZH_CONTINUE = re.compile(
    r"^(?:也|还|又|就|现在|目前|平时)?(?:在|住|家在|养|今年|最|喜欢|爱|讨厌|不喜欢|对.{1,10}过敏|是)"
)
_QUESTION_END = re.compile(r"(?:吗|么|呢|嘛|不|没)\s*$")


@dataclass
class _Said:
    """One message as the rules read it."""

    message: Message
    speaker: str  # display name
    lang: str
    spans: list[TimeSpan]
    skip: list[tuple[int, int]]  # character ranges of time phrases
    words: list[str]  # content words, for topic shifts
    filler: bool
    facts: list[FactDraft] = field(default_factory=list)
    entities: list[EntityDraft] = field(default_factory=list)


def _clauses(text: str, english: bool) -> list[tuple[str, bool]]:
    """(clause, is_question) pairs. English keeps commas inside a clause but splits ``…, and I …``;
    Chinese splits on commas too."""
    stops = r"[.!?;\n！？。；]" if english else r"[，,。！？!?；;~～\n]"
    out: list[tuple[str, bool]] = []
    for match in re.finditer(rf"([^\n]*?)({stops}+|$)", text):
        clause, end = match.group(1).strip(), match.group(2)
        if clause:
            question = "?" in end or "？" in end or (not english and bool(_QUESTION_END.search(clause)))
            parts = _EN_AND_I.split(clause) if english else [clause]
            out.extend((part.strip(), question) for part in parts if part.strip())
        if not match.group(0):
            break
    return out


def _trim_zh(value: str) -> str:
    value = value.strip().rstrip(_ZH_END_PARTICLES).strip()
    return value[:-1].strip() if value.endswith("了") and len(value) > 2 else value


def _trim_en(value: str) -> str:
    value = _EN_OBJECT_CUT.sub("", value.strip())
    value = value.strip(" ,.;:!?\"'“”")
    words = value.split()
    return " ".join(words[:8])


def _is_name(obj: str) -> bool:
    tags = [(w, f) for w, f in rjieba.tag(obj) if w.strip()]
    return len(tags) == 1 and tags[0][1] == "nr" and _name_shaped(tags[0][0])


def _first_noun_ok(obj: str) -> bool:
    """For 我是…: the object starts like a noun phrase and ends in a noun (一名护士, 南京人, 学生)."""
    tags = [(w, f) for w, f in rjieba.tag(obj) if w.strip()]
    if not tags:
        return False
    first, last = tags[0][1], tags[-1][1]
    if first[0] in "dpvcuyr" or first in ("ul", "uj", "ud", "uv", "uz", "ug", "f", "t"):
        return False
    return last.startswith("n") or last == "eng"


class _FactReader:
    def __init__(self, roster: Roster, private: bool) -> None:
        self.roster = roster
        self.private = private

    def read(self, message: Message, speaker: str) -> tuple[list[FactDraft], list[EntityDraft]]:
        english = not has_cjk(message.text)
        facts: list[FactDraft] = []
        entities: list[EntityDraft] = []
        led = False  # the previous clause was about the speaker: 我是护士，在鼓楼医院上班
        for clause, question in _clauses(message.text, english):
            if english:
                if not question:
                    self._english(clause, message, speaker, facts, entities)
                continue
            if led and "我" not in clause and _ZH_CONTINUE.match(clause):
                clause = "我" + clause
            led = bool(_ZH_LEAD.match(clause))
            if not question:
                self._chinese(clause, message, speaker, facts, entities)
        return facts, entities

    # --- helpers

    def _object(self, value: str, speaker: str, english: bool) -> tuple[str, EntityType | None] | None:
        """The object with 你 / you made a name; ``None`` when it is a pronoun nobody can resolve."""
        value = _trim_en(value) if english else _trim_zh(value)
        if not value:
            return None
        other = self.roster.other_party(speaker, self.private)
        if english:
            low = value.casefold()
            if low in ("you", "u") and other:
                return other, self.roster.entity_type(other)
            if low.startswith(("your ", "ur ")) and other:
                return f"{other}'s {value.split(' ', 1)[1]}", None
            if low in _EN_PRONOUNS or low.split()[0] in ("it", "that", "this", "them", "you"):
                return None
        else:
            if value in ("你",) and other:
                return other, self.roster.entity_type(other)
            if value.startswith("你的") and other and len(value) > 2:
                return f"{other}的{value[2:]}", None
            if value in _ZH_PRONOUNS or value.startswith(("你", "他", "她", "它", "这", "那", "的", "了", "着", "过")):
                return None
        known = self.roster.resolve(value)
        if known:
            return known, self.roster.entity_type(known)
        return value, None

    def _fact(
        self,
        rule: _FactRule,
        match: re.Match[str],
        message: Message,
        speaker: str,
        english: bool,
        facts: list[FactDraft],
        entities: list[EntityDraft],
    ) -> bool:
        resolved = self._object(match.group("o"), speaker, english)
        if resolved is None:
            return False
        obj, obj_type = resolved
        age = re.search(r"\d+", obj) if rule.keyword in ("年龄", "age") else None
        if age and not 0 < int(age.group()) <= 150:
            return False  # 我今年300岁: a joke
        if rule.keyword in ("身份", "identity") and obj_type is not None:
            return obj == speaker  # 我是苏霓 said by 苏霓: nothing new; said by anyone else: not read
        if rule.noun_object and not english:
            if _is_name(obj):
                rule = _ZH_NAME_RULE  # 我是小明
            elif not _first_noun_ok(obj):
                return False
        groups = {k: (v or "").strip() for k, v in match.groupdict().items()}
        predicate_word = " ".join(groups.get("p", "").split()).lower() if english else groups.get("p", "")
        if english and predicate_word:
            predicate_word = {"do not like": "don't like", "cannot stand": "can't stand"}.get(
                predicate_word, predicate_word
            )
            verb = predicate_word.split()[0]
            shown_p = predicate_word.replace("don't", "doesn't") if verb == "don't" else _third_person(predicate_word)
        else:
            shown_p = predicate_word
        extra = groups.get("x", "")
        predicate = rule.predicate.format(p=shown_p, x=extra)
        if rule.keyword in ("名字", "name"):
            if obj == speaker:
                return True  # 我叫木木, said by 木木: nothing new
            entities.append(EntityDraft(speaker, self.roster.entity_type(speaker) or EntityType.OBJECT, [obj]))
        description = rule.description.format(s=speaker, o=obj, p=shown_p, x=extra)
        object_type = obj_type or rule.object_type
        kind = rule.kind
        if obj_type in (EntityType.SUBJECT, EntityType.OBJECT) and kind is FactKind.PREFERENCE:
            kind = FactKind.RELATION  # 我喜欢你: a feeling for a person is a relation
        facts.append(
            FactDraft(
                subject=speaker,
                predicate=predicate,
                object=obj,
                description=description,
                sources=[message.id],
                kind=kind,
                keyword=rule.keyword,
                subject_type=self.roster.entity_type(speaker) or EntityType.OBJECT,
                object_type=object_type,
                time=message.time,
                confidence=rule.confidence,
            )
        )
        if object_type is EntityType.SPECIFIC and len(obj) > 1:  # 我在家工作: 家 is no entity
            entities.append(EntityDraft(obj, EntityType.SPECIFIC))
        return True

    def _pet(
        self,
        match: re.Match[str],
        message: Message,
        speaker: str,
        english: bool,
        facts: list[FactDraft],
        entities: list[EntityDraft],
    ) -> None:
        pet = " ".join(match.group("pet").split())
        num = match.group("num") or ("a" if english else "一")
        measure = "" if english else (match.group("mw") or "只")
        name = match.group("name")
        if english:
            thing = f"{num} {pet}"
            description = f"{speaker} has {thing}" + (f" named {name}" if name else "")
            predicate, keyword = "has", "pet"
        else:
            thing = f"{num}{measure}{pet}"
            description = f"{speaker}养了{thing}" + (f"，叫{name}" if name else "")
            predicate, keyword = "养了", "宠物"
        subject_type = self.roster.entity_type(speaker) or EntityType.OBJECT
        facts.append(
            FactDraft(
                subject=speaker,
                predicate=predicate,
                object=pet,
                description=description,
                sources=[message.id],
                kind=FactKind.RELATION,
                keyword=keyword,
                subject_type=subject_type,
                object_type=EntityType.GENERIC,
                time=message.time,
                confidence=0.8,
            )
        )
        entities.append(EntityDraft(pet, EntityType.GENERIC))
        if name:
            owned = f"{speaker}'s {pet}" if english else f"{speaker}的{pet}"
            facts.append(
                FactDraft(
                    subject=name,
                    predicate="is" if english else "是",
                    object=owned,
                    description=f"{name} is {owned}" if english else f"{name}是{owned}",
                    sources=[message.id],
                    kind=FactKind.RELATION,
                    keyword=keyword,
                    subject_type=EntityType.SPECIFIC,
                    object_type=None,
                    time=message.time,
                    confidence=0.8,
                )
            )
            entities.append(EntityDraft(name, EntityType.SPECIFIC))

    # --- languages

    def _chinese(
        self, clause: str, message: Message, speaker: str, facts: list[FactDraft], entities: list[EntityDraft]
    ) -> None:
        for at in (m.start() for m in re.finditer("我", clause)):
            if clause[at + 1 : at + 2] == "们" or (at and clause[at - 1] in "自忘唯本"):
                continue
            prefix = _ZH_TELL.sub("", clause[:at])
            if _ZH_REPORTED.search(prefix):
                continue
            rest = clause[at:]
            pet = _ZH_PET.match(rest)
            if pet:
                self._pet(pet, message, speaker, False, facts, entities)
                return
            for rule in _ZH_RULES:
                match = rule.pattern.match(rest)
                if match and self._fact(rule, match, message, speaker, False, facts, entities):
                    return
            return  # only the first standalone 我 of a clause is read

    def _english(
        self, clause: str, message: Message, speaker: str, facts: list[FactDraft], entities: list[EntityDraft]
    ) -> None:
        clause = clause.replace("’", "'")
        pet = _EN_PET.match(clause)
        if pet:
            self._pet(pet, message, speaker, True, facts, entities)
            return
        for rule in _EN_RULES:  # every rule: "I work at Microsoft as an engineer" says two things
            match = rule.pattern.match(clause)
            if match:
                self._fact(rule, match, message, speaker, True, facts, entities)


def _third_person(verb_phrase: str) -> str:
    """like → likes, can't stand → can't stand."""
    first, _, rest = verb_phrase.partition(" ")
    if first in ("can't", "cannot"):
        return verb_phrase
    first = first + ("es" if first.endswith(("s", "sh", "ch")) else "s")
    return f"{first} {rest}".strip()


# ---------------------------------------------------------------------------------------- places and entities

_PLACE_SUFFIX = re.compile(
    r"(?:馆|店|园|院|场|站|厅|楼|室|街|路|城|市|省|县|区|镇|村|山|湖|河|海|岛|家|校|学|吧|寺|庙|宫|塔|桥|港|屋|房|所|司|厂"
    r"|中心|广场|大学|超市|餐厅|医院|公园|酒店|机场|车站|家里|里|上|边|旁|外|内)$"
)
_PLACE_FLAGS = frozenset({"ns", "nt", "nz", "s", "n", "nr", "nrt", "f", "ng"})
_STRONG_PLACE_FLAGS = frozenset({"ns", "nt", "s"})
_EN_PLACE = re.compile(r"\b(?:in|at|to)\s+(?:the\s+)?(?P<place>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,3})")
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石"
    "廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁"
    "岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾"
    "尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛"
    "仲虞敖巩明佘池查麻苑迟邝".replace(" ", "")
)
_EN_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n)$")


def _place_of(said: _Said) -> str:
    text = said.message.text
    if said.lang == "en" or not has_cjk(text):
        for match in _EN_PLACE.finditer(text):
            place = match.group("place")
            if place.split()[0].lower() not in _EN_PROPER_STOP:
                return place
        return ""
    words = [(w, f) for w, f in rjieba.tag(text)]
    for index, (word, flag) in enumerate(words):
        if word != "在" or flag != "p":
            continue
        run: list[tuple[str, str]] = []
        for next_word, next_flag in words[index + 1 :]:
            if next_flag not in _PLACE_FLAGS or not has_cjk(next_word):
                break
            run.append((next_word, next_flag))
        last_placey = max(
            (i for i, (w, f) in enumerate(run) if f in _STRONG_PLACE_FLAGS or _PLACE_SUFFIX.search(w)), default=-1
        )
        if last_placey >= 0:
            return "".join(w for w, _ in run[: last_placey + 1])
        if run and run[0][1] in ("nr", "nz", "nt", "ns") and len(run[0][0]) >= 2:
            return run[0][0]
    for word, flag in words:
        if flag == "ns" and len(word) >= 2:
            return word
    return ""


def _name_shaped(word: str) -> bool:
    """Whether a word jieba tagged ``nr`` looks like a person's name: 小明, 王芳, 阿强, 霓霓."""
    if not 2 <= len(word) <= 4 or not all(_CJK_CHAR.fullmatch(c) for c in word):
        return False
    return word[0] in _SURNAMES or word[0] in "小老阿" or (len(word) == 2 and word[0] == word[1])


def _mentions(said: _Said, roster: Roster) -> tuple[list[str], list[EntityDraft]]:
    """People of the roster named in a message (by any alias), and other proper nouns."""
    text = said.message.text
    folded = text.casefold()
    people: list[str] = []
    for shown, names in roster.names.items():
        for name in names:
            if not _name_like(name):
                continue
            if has_cjk(name):
                found = name in text
            else:
                found = re.search(rf"(?<![\w]){re.escape(name.casefold())}(?![\w])", folded) is not None
            if found:
                people.append(shown)
                break
    things: list[EntityDraft] = []
    for title in _TITLE.finditer(text):
        things.append(EntityDraft(title.group(1).strip(), EntityType.SPECIFIC))
    if has_cjk(text):
        for word, flag in rjieba.tag(text):
            if roster.resolve(word) or len(word) < 2 or not has_cjk(word):
                continue
            if flag in ("ns", "nt", "nz") or (flag == "nr" and _name_shaped(word)):
                things.append(EntityDraft(word, EntityType.SPECIFIC))
    else:
        for match in re.finditer(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*", text):
            phrase = match.group()
            if _EN_SENTENCE_START.search(text[: match.start()]) and " " not in phrase:
                continue  # a capital at the start of a sentence says nothing
            words = phrase.split()
            if words[0].lower() in _EN_PROPER_STOP or roster.resolve(phrase):
                continue
            things.append(EntityDraft(phrase, EntityType.SPECIFIC))
    return people, things


# ---------------------------------------------------------------------------------------- condensing

_REPEAT = re.compile(r"([哈呵嘿嘻呜啊嗯哦~～!！?？.。…])\1{2,}")
_FILLER = re.compile(
    r"^(?:[嗯哦噢喔啊呀哈呵嘿嘻呜唔额呃好对是的吧嘛啦哇耶~～!！?？.。…,，\s]|ok|okay|lol|haha+|hmm+|yeah|yep|yes|no|nope|sure"
    r"|thanks|thx|cool|nice|wow|oh|ah|uh|好的|好吧|好呀|好啊|是的|对的|对啊|没事|收到|明白|知道了|嗯嗯|哈哈)+$",
    re.IGNORECASE,
)
_END_PUNCT = "。！？!?.…~～」”\"'）)"


def _condense(text: str) -> str:
    text = " ".join(text.split())
    text = _REPEAT.sub(r"\1\1", text)
    return "".join(ch for ch in text if unicodedata.category(ch) not in ("So", "Cs", "Co"))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip("，,、 ") + "…"


def _absolute(span: TimeSpan) -> str:
    length = span.end - span.start
    if length <= timedelta(days=1) and span.start.time() == datetime.min.time() and length == timedelta(days=1):
        return span.start.strftime("%Y-%m-%d")
    if length < timedelta(days=1):
        return span.start.strftime("%Y-%m-%d %H:%M")
    last = span.end - timedelta(days=1) if span.end.time() == datetime.min.time() else span.end
    return f"{span.start:%Y-%m-%d}～{last:%Y-%m-%d}"


def _annotate(said: _Said) -> str:
    """The message text with each relative time phrase followed by its absolute time."""
    text = said.message.text
    out: list[str] = []
    cursor = 0
    for span in said.spans:
        at = text.find(span.phrase, cursor)
        if at < 0:
            continue
        end = at + len(span.phrase)
        out.append(text[cursor:end])
        cursor = end
        if said.message.time in span or re.search(r"\d{4}", span.phrase):
            continue  # 今天, 最近, 2023年5月: nothing to add
        shown = _absolute(span)
        out.append(f" ({shown})" if said.lang == "en" else f"（{shown}）")
    out.append(text[cursor:])
    return "".join(out)


# ---------------------------------------------------------------------------------------- signals

_EMOTION_ZH = re.compile(
    r"开心|高兴|快乐|幸福|难过|伤心|生气|愤怒|害怕|担心|焦虑|紧张|委屈|失望|孤独|寂寞|好累|太累|哭|想你|爱你|烦|郁闷|激动|兴奋"
    r"|感动|后悔|崩溃|压力|心情|难受|痛苦|舍不得|喜欢|讨厌"
)
_EMOTION_EN = re.compile(
    r"\b(?:happy|glad|excited|sad|upset|angry|mad|scared|afraid|worried|anxious|nervous|lonely|tired|exhausted|cry"
    r"|cried|crying|love|hate|miss|stressed|depressed|thrilled|grateful|heartbroken|proud)\b",
    re.IGNORECASE,
)
_PLAN_ZH = re.compile(r"打算|准备|计划|要去|将要|以后|将来|想要|约好|约了|会去|下次|下周|下个月|明年|明天|后天")
_PLAN_EN = re.compile(
    r"\b(?:tomorrow|next\s+(?:week|month|year|time)|going\s+to|gonna|plan(?:ning)?|will|'ll)\b", re.IGNORECASE
)


# ---------------------------------------------------------------------------------------- the extractor


class RuleExtractor:
    """The no-LLM :class:`~huiyi.flows.extract.Extractor`; see the module docstring for the rules.

    ``gap_minutes``: a silence this long starts a new event. ``max_turns`` / ``max_chars``: an event
    holds at most this many messages / characters of raw text. ``min_topic_turns``: a topic change
    splits only events at least this long. ``turn_chars``: one speaker's turn is cut to this length in
    the event text. ``max_keywords`` per event. ``idf_path``: another IDF table (``word idf`` lines).
    """

    def __init__(
        self,
        *,
        gap_minutes: float = 30.0,
        max_turns: int = 8,
        max_chars: int = 280,
        min_topic_turns: int = 3,
        turn_chars: int = 80,
        max_keywords: int = 6,
        idf_path: str | Path | None = None,
    ) -> None:
        if max_turns < 1 or max_chars < 1 or turn_chars < 8 or max_keywords < 0:
            raise ValueError("max_turns, max_chars and turn_chars must be positive, max_keywords not negative")
        self.gap = timedelta(minutes=gap_minutes)
        self.max_turns = max_turns
        self.max_chars = max_chars
        self.min_topic_turns = min_topic_turns
        self.turn_chars = turn_chars
        self.max_keywords = max_keywords
        self.idf_path = idf_path
        _load_idf(idf_path)  # fail early on a bad table

    async def extract(self, fold: Fold) -> Extraction:
        return self.extract_sync(fold)

    def extract_sync(self, fold: Fold) -> Extraction:
        """The same as :meth:`extract`, for callers without an event loop."""
        messages = sorted(fold.messages, key=lambda m: m.seq)
        if not messages:
            return Extraction()
        roster = Roster.of(fold)
        add_words(roster.all_names())
        drop = [name for name in roster.all_names() if name]
        private = fold.person is not None or len(roster.names) <= 2
        reader = _FactReader(roster, private)
        default_lang = conversation_language(messages, fold.language)
        saids = [self._read(m, roster, reader, default_lang, drop) for m in messages]
        events = [self._event(segment, roster, drop) for segment in self._segments(saids)]
        return Extraction(events=events, facts=_dedupe_facts(saids), entities=_entities(saids, roster))

    # --- reading one message

    def _read(self, message: Message, roster: Roster, reader: _FactReader, default_lang: str, drop: list[str]) -> _Said:
        text = message.text
        lang = "zh" if has_cjk(text) else ("en" if _LATIN_WORD.search(text) else default_lang)
        spans = find_time_phrases(text, message.time)
        skip: list[tuple[int, int]] = []
        cursor = 0
        for span in spans:
            at = text.find(span.phrase, cursor)
            if at >= 0:
                skip.append((at, at + len(span.phrase)))
                cursor = at + len(span.phrase)
        words = keywords([text], drop=drop, limit=50, idf_path=self.idf_path, skip_spans=[skip])
        speaker = roster.name_of(message.speaker)
        facts, entities = reader.read(message, speaker)
        filler = bool(_FILLER.match(text.strip())) or (not words and not facts and len(text.strip()) <= 4)
        # a birthday's date is not when anything happened
        dates = [f.object for f in facts if f.keyword in ("生日", "birthday")]
        spans = [span for span in spans if not any(span.phrase in d for d in dates)]
        return _Said(message, speaker, lang, spans, skip, words, filler, facts, entities)

    # --- grouping

    def _segments(self, saids: list[_Said]) -> list[list[_Said]]:
        segments: list[list[_Said]] = []
        chars = 0
        topic: set[str] = set()
        for said in saids:
            current = segments[-1] if segments else None
            start_new = current is None
            if current is not None:
                gap = said.message.time - current[-1].message.time
                words = set(said.words)
                shift = (
                    len(current) >= self.min_topic_turns
                    and len(words) >= 2
                    and not words & topic
                    and not said.filler
                    and not any(w in t or t in w for w in words for t in topic)
                )
                start_new = (
                    gap >= self.gap or len(current) >= self.max_turns or chars + _size(said) > self.max_chars or shift
                )
            if start_new:
                segments.append([said])
                chars = _size(said)
                topic = set(said.words)
            else:
                segments[-1].append(said)
                chars += _size(said)
                topic |= set(said.words)
        return segments

    # --- one event

    def _event(self, segment: list[_Said], roster: Roster, drop: list[str]) -> EventDraft:
        english = sum(1 for s in segment if s.lang == "en") > len(segment) / 2
        substantive = [s for s in segment if not s.filler] or segment
        turns: list[tuple[str, list[str]]] = []
        for said in substantive:
            piece = _condense(_annotate(said))
            if not piece:
                continue
            if turns and turns[-1][0] == said.speaker:
                turns[-1][1].append(piece)
            else:
                turns.append((said.speaker, [piece]))
        parts: list[str] = []
        for speaker, pieces in turns:
            joined = ""
            for piece in pieces:
                if joined and joined[-1] not in _END_PUNCT + "，,":
                    joined += ", " if english else "，"
                elif joined and english:
                    joined += " "
                joined += piece
            joined = _cut(joined, int(self.turn_chars * (2.5 if english else 1)))
            if joined[-1] not in _END_PUNCT:
                joined += "." if english else "。"
            parts.append(f"{speaker} said: {joined}" if english else f"{speaker}说：{joined}")
        text = (" " if english else "").join(parts) or _condense(segment[0].message.text)

        when = segment[0].message.time
        for said in segment:
            moving = [span for span in said.spans if said.message.time not in span]
            if moving:
                when = moving[0].start
                break
        people: dict[str, None] = {}
        things: list[EntityDraft] = []
        for said in segment:
            people[said.speaker] = None
            named, found = _mentions(said, roster)
            people.update(dict.fromkeys(named))
            things.extend(found)
        place = next((p for p in (_place_of(s) for s in substantive) if p), "")
        texts = [s.message.text for s in segment]
        words = keywords(
            texts,
            drop=drop,
            limit=self.max_keywords,
            idf_path=self.idf_path,
            skip_spans=[s.skip for s in segment],
            extra=[e.name for s in segment for e in s.entities],
        )
        return EventDraft(
            text=text,
            sources=[s.message.id for s in segment],
            time=when,
            place=place,
            participants=list(people),
            keywords=words,
            insight="",
            importance=_importance(segment, substantive, bool(place or things)),
        )


def _size(said: _Said) -> int:
    """A message's length in Chinese characters' worth: English letters carry less, about 2.5 to one."""
    length = len(said.message.text)
    return length if said.lang == "zh" else int(length / 2.5)


def _importance(segment: list[_Said], substantive: list[_Said], named: bool) -> float:
    if all(s.filler for s in segment):
        return 0.1
    text = " ".join(s.message.text for s in substantive)
    score = 0.3
    if any(s.facts for s in segment):
        score += 0.2
    if _EMOTION_ZH.search(text) or _EMOTION_EN.search(text):
        score += 0.15
    future = any(span.start > s.message.time for s in segment for span in s.spans)
    if future or _PLAN_ZH.search(text) or _PLAN_EN.search(text):
        score += 0.1
    if "!" in text or "！" in text:
        score += 0.05
    if named:
        score += 0.05
    return round(min(0.9, score), 2)


def _dedupe_facts(saids: list[_Said]) -> list[FactDraft]:
    seen: dict[tuple[str, str, str], FactDraft] = {}
    for said in saids:
        for fact in said.facts:
            key = (fact.subject, fact.predicate, fact.object.casefold())
            if key in seen:
                kept = seen[key]
                kept.sources = list(dict.fromkeys([*kept.sources, *fact.sources]))
            else:
                seen[key] = fact
    return list(seen.values())


def _entities(saids: list[_Said], roster: Roster) -> list[EntityDraft]:
    found: dict[str, EntityDraft] = {}

    def add(draft: EntityDraft) -> None:
        name = draft.name.strip()
        if not name:
            return
        known = roster.resolve(name)
        if known:
            kept = found.setdefault(
                known,
                EntityDraft(known, roster.entity_type(known) or EntityType.OBJECT, roster.aliases_of(known)),
            )
            for alias in draft.aliases:
                if alias != known and alias not in kept.aliases:
                    kept.aliases.append(alias)
            return
        if name not in found:  # the first reading of a name wins: a named thing stays specific
            found[name] = EntityDraft(name, draft.type, [a for a in draft.aliases if a != name])

    for said in saids:
        add(EntityDraft(said.speaker))
        people, things = _mentions(said, roster)
        for person in people:
            add(EntityDraft(person))
        for draft in [*said.entities, *things]:
            add(draft)
    # a word that is part of a longer entity name found in the same fold (南京 in 南京大学) is left out
    names = list(found)
    return [
        draft
        for name, draft in found.items()
        if draft.type is not EntityType.SPECIFIC
        or roster.resolve(name)
        or not any(name != other and name in other and found[other].type is EntityType.SPECIFIC for other in names)
    ]
