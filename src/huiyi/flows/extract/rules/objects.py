"""What a fact pattern read as its object, cleaned and judged: trimmed of particles and reasons, a noun
phrase or not, a name or not."""

from __future__ import annotations

import re
from datetime import datetime

from huiyi.flows.extract.rules.en_clauses import EN_OBJECT_CUT
from huiyi.flows.extract.rules.mentions import name_shaped
from huiyi.flows.extract.rules.patterns import ZH_END_PARTICLES
from huiyi.patterns import lazy
from huiyi.text import tokens
from huiyi.text.kin import KIN_WORDS
from huiyi.text.times import find_time_phrases
from huiyi.text.tokens import has_cjk

# 我喜欢爬山但讨厌跑步: what follows a but is another clause (不但 is no but; 但丁 starts the object)
_ZH_BUT = lazy(r"(?<=[^不])(?:但是?|可是|然而|却)")


# 吧 ending a place, not a particle: 酒吧, 网吧, 贴吧, 泡吧 (我喜欢去酒吧 was 喜欢去酒); 喝酒吧 is drink, 吧
_BAR_END = lazy(r"(?:(?<!喝)酒|[网贴泡书氧陶])吧\s*$")


def ends_in_bar(value: str) -> bool:
    """Whether ``value`` ends in a place named with 吧 (酒吧, 网吧), whose 吧 is no particle."""
    return bool(_BAR_END.search(value))


def trim_zh(value: str) -> str:
    value = _ZH_BUT.split(value.strip(), maxsplit=1)[0].strip()
    while value and value[-1] in ZH_END_PARTICLES and not ends_in_bar(value):
        value = value[:-1]
    value = value.strip()
    if value.endswith("的") and len(value) > 2 and _a_deed(value[:-1]):
        value = value[:-1]  # 我超喜欢做实验的: the 的 stresses the liking, and the fact read 喜欢做实验的
    lasted = value.endswith("了")  # 十年了: how long it has lasted; 王一天, 陈奕迅的十年 are a name, a song
    value = value[:-1].strip() if lasted and len(value) > 2 else value
    how_long = _ZH_HOW_LONG.search(value)
    if how_long is None:
        return value
    # 杭州十年啦, 杭州十年: a span after a place of two characters or more is how long too; after one it
    # may end a name (张三年), and 一天 ends many (王一天, 欧阳一天)
    bare = how_long.start() >= 2 and not how_long.group().startswith("一天")
    if lasted or how_long.group("already") or bare:
        return value[: how_long.start()] or value  # 我住在杭州十年了: 杭州, not 杭州十年
    return value


# a span it has lasted, at the end of what is liked or held (住在杭州十年了, 喜欢她三年多了); not after 的
_ZH_HOW_LONG = lazy(
    r"(?<=[\u4e00-\u9fff])(?<!的)(?P<already>已经|都)?(?:[一两二三四五六七八九十几半\d]+多?|好几|好多|很多|许多)"
    r"(?:年|个多?月|天|周|个?星期|个?礼拜)多?$"
)


def _a_deed(value: str) -> bool:
    """Whether ``value`` says a deed with its verb first (做实验, 吃冰淇淋), which a 的 after it does not make a
    kind of thing (红色的, 安静的 stay), nor one whose 的 names whom or what it is done by or to: 会做饭的 (a
    person who can cook), 吃妈妈做的 (what she makes), 看恐怖的 (films that scare)."""
    tagged = [(word, flag) for word, flag in tokens.tag(value) if word.strip()]
    return (
        len(tagged) > 1
        and tagged[0][1] == "v"
        and tagged[0][0] not in _ABLE
        and (tagged[-1][1].startswith("n") or tagged[-1][1] == "vn")
    )


_ABLE = frozenset("会 能 可以 要 想 敢 肯 愿意".split())


# "I live in Chicago now": the home is Chicago; now says when, and would stay in the fact when it no longer holds;
# again and as well say it of before or of another ("I'm a teacher again lol" was "is a teacher again")
_EN_NOW_END = lazy(
    r"(?:\s+(?:right\s+now|now|nowadays|these\s+days|currently|at\s+the\s+moment|again|as\s+well))+$", re.IGNORECASE
)
# "I live in Toronto btw", "sushi tho": a chat filler after the object is said about the chat, not the home; so is
# a too before one (I love summer too tbh), which the cut at a too left
_EN_FILLER_END = lazy(
    r"(?<!\s)(?:\s+(?:btw|by\s+the\s+way|lol|lmao|tbh|ngl|imo|haha+|fyi|actually|anyway|anyways|honestly|though|tho|ok|okay"
    r"|too))+$",
    re.IGNORECASE,
)


EN_NOT_THERE = lazy(r",\s*not\s+.*$", re.IGNORECASE)
EN_FOR_NOW = lazy(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening|week))$", re.IGNORECASE)


# words an object cut at its length may end on, which then says nothing (loves how it's both … and a)
_EN_DANGLING = frozenset(
    "a an the and or but of to with for from in on at by as like my your his her our their both".split()
)
EN_OBJECT_WORDS = 12  # an object longer than this is cut, at a word that ends a phrase


# pottery - the creativity and skill is awesome, the sunset- it reminds me…, pottery—the skill: a clause of its own;
# not a minus (it's -5 outside, 5 -10 minute walks), nor a hyphen that waits for its word (pre- and post-workout)
_EN_DASH = lazy(r"\s*[-–—]+\s+(?!\s|(?:and|or|to|&)\s+[\w']+-\w)|\s+[-–—]+(?![-–—\d])|—")


# "I'm a huge fan of it": of what was said before, as "I love it" is (that band, those shows say what)
EN_FAN_OF_PRONOUN = lazy(r"(?:an?\s+)?(?:\w+\s+)?fans?\s+of\s+(?:(?:it|them)\b|(?:that|this)\s*(?:[,.;!?]|$))")


# "I love pizza too Mel": a name of address after an ending too, which then ends the object as a too at the end does
_EN_TOO_NAMED = lazy(r"(?<=\stoo)\s+[A-Z][\w'-]*(?=[^\w]*$)")


def trim_en(value: str) -> str:
    value = EN_OBJECT_CUT.sub("", _EN_TOO_NAMED.sub("", _EN_DASH.split(value.strip(), maxsplit=1)[0]))
    value = _EN_NOW_END.sub("", _EN_FILLER_END.sub("", _unquoted_ends(value)))
    words = value.split()
    if len(words) == 1 and words[0].casefold() in _EN_DANGLING:
        return ""  # "Yeah, I love to.": what is loved was said before
    if len(words) <= EN_OBJECT_WORDS:
        return " ".join(words)
    words = words[:EN_OBJECT_WORDS]
    while len(words) > 1 and words[-1].casefold().strip(",;:") in _EN_DANGLING:
        words.pop()
    return " ".join(words).rstrip(",;:")


_EN_EDGE = " ,.;:!?"
# the quotes an object may open or close; a ' opens before a word and closes after one (not Grey's)
_EN_OPENED = {'"': lazy(r'"'), "“": lazy("“"), "'": lazy(r"(?<!\S)'(?=\S)")}
_EN_CLOSED = {'"': lazy(r'"'), "”": lazy("”"), "'": lazy(r"(?<=\S)'(?!\w)")}
_EN_PAIRS = {'"': '"', "“": "”", "'": "'"}


def _unquoted_ends(value: str) -> str:
    """``value`` without the punctuation at its ends, nor a quote there that pairs with none inside it: the song
    "Bohemian Rhapsody" keeps both of its quotes (it lost the closing one), "Frozen" and "Moana" all four, and
    a title quoted whole ("The Little Prince") neither.

    >>> _unquoted_ends('the song "Bohemian Rhapsody".')
    'the song "Bohemian Rhapsody"'
    >>> _unquoted_ends('"Let It Be" by the Beatles'), _unquoted_ends("“The Little Prince”!")
    ('"Let It Be" by the Beatles', 'The Little Prince')
    >>> _unquoted_ends("the movie 'The Notebook'"), _unquoted_ends("my parents'"), _unquoted_ends("'Grey's Anatomy'")
    ("the movie 'The Notebook'", 'my parents', "Grey's Anatomy")
    """
    while True:
        trimmed = value.strip(_EN_EDGE)
        opening, closing = trimmed[:1], trimmed[-1:]
        if len(trimmed) > 1 and _EN_PAIRS.get(opening) == closing and not _EN_CLOSED[closing].search(trimmed[1:-1]):
            trimmed = trimmed[1:-1]  # a title quoted whole, an apostrophe inside it no quote ('Grey's Anatomy')
        if closing in _EN_CLOSED and trimmed.endswith(closing) and not _opens(trimmed[:-1], closing):
            trimmed = trimmed[:-1]
        if opening in _EN_OPENED and trimmed.startswith(opening) and not _closes(trimmed[1:], opening):
            trimmed = trimmed[1:]
        if trimmed == value:
            return value
        value = trimmed


def _opens(value: str, closing: str) -> bool:
    """Whether ``value`` has a quote open that ``closing`` closes."""
    opening = next(mark for mark, pair in _EN_PAIRS.items() if pair == closing)
    if opening == closing == '"':
        return value.count('"') % 2 == 1
    return len(_EN_OPENED[opening].findall(value)) > len(_EN_CLOSED[closing].findall(value))


def _closes(value: str, opening: str) -> bool:
    """Whether ``value`` closes a quote that ``opening`` opens."""
    closing = _EN_PAIRS[opening]
    if opening == closing == '"':
        return value.count('"') % 2 == 1
    return len(_EN_CLOSED[closing].findall(value)) > len(_EN_OPENED[opening].findall(value))


def is_name(obj: str) -> bool:
    tags = [(w, f) for w, f in tokens.tag(obj) if w.strip()]
    return len(tags) == 1 and tags[0][1] == "nr" and name_shaped(tags[0][0])


def one_proper_noun(obj: str) -> bool:
    """One word the tagger calls a name or proper noun (小苏, 老王): no description of anyone."""
    tags = [(w, f) for w, f in tokens.tag(obj) if w.strip()]
    return len(tags) == 1 and tags[0][1] in ("nr", "nrt", "nrfg", "ns", "nz", "j")


def first_noun_ok(obj: str) -> bool:
    """For 我是…: the object starts like a noun phrase and ends in a noun (一名护士, 南京人, 学生)."""
    tags = [(w, f) for w, f in tokens.tag(obj) if w.strip()]
    if not tags:
        return False
    first, last = tags[0][1], tags[-1][1]
    if first[0] in "dpvcuyr" or first in ("ul", "uj", "ud", "uv", "uz", "ug", "f", "t"):
        return False
    return last.startswith("n") or last == "eng"


def a_place_said(obj: str) -> bool:
    """Whether ``obj`` says a place (湖南长沙, 农村, 大山里), not a doing (拆迁, 开饭店) nor weather (下大雪).

    >>> [a_place_said(o) for o in ("湖南长沙", "东北那边", "拆迁", "开饭店", "下大雪", "变化")]
    [True, True, False, False, False, False]
    """
    tags = [(w, f) for w, f in tokens.tag(obj) if w.strip()]
    return bool(tags) and tags[0][0] != "下" and not any(f.startswith("v") for _, f in tags)


_EN_NAME = lazy(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?")
_EN_NOT_NAMES = frozenset("she he they we it this that my our his her their everyone someone nobody".split())


def person_named(obj: str, called: bool = False) -> bool:
    """Whether ``obj`` is someone's name (小雨, 林晚晴, 莉莉, Mia), not a description of someone (男朋友,
    小雨家, 他说小雨) nor a pronoun (She); ``called``: said after 叫, where a word of time names someone too."""
    if not has_cjk(obj):  # nor a day (Monday is my boss: the day is when, not who)
        return bool(_EN_NAME.fullmatch(obj)) and obj.split()[0].casefold() not in _EN_NOT_NAMES and not _a_time(obj)
    if len(obj) < 2 or obj in KIN_WORDS:
        return False  # 我儿子叫爸爸了 (he said it), 我哥叫爽: no name
    tags = [(w, f) for w, f in tokens.tag(obj) if w.strip()]
    if len(tags) > 1 and tags[0][1] == "t" and _a_time(tags[0][0]) and not _time_then_given(obj, tags[0][0]):
        return False  # 我爸叫周末回家, 我妈叫明天过来: 叫 tells them to (周, 明 are surnames)
    if not called and len(tags) == 1 and tags[0][1] == "t" and _a_time(obj):
        return False  # 明天是我爸, 周末是我妈: who comes then (明, 周 are surnames); 我女儿叫夏天 names her
    if len(tags) == 1 and (tags[0][1] in ("nr", "nrt", "nrfg") or (tags[0][1] == "j" and name_shaped(obj))):
        return True
    return name_shaped(obj) and obj[0] not in "小老阿"  # a surname first: 林晚晴 is cut 林 / 晚晴


def _time_then_given(obj: str, time: str) -> bool:
    """Whether a time and one more character are a surname and given name (周一鸣, 夏天宇), not a time and
    a coming (明天来, 周日去)."""
    return len(obj) == len(time) + 1 and obj[-1] not in "来去回走到见"


def _a_time(word: str) -> bool:
    """Whether ``word`` is read whole as a time (明天, 周末; 明明 and 冬冬 are names)."""
    return any(span.phrase == word for span in find_time_phrases(word, datetime(2024, 1, 1)))


# 你 inside what is liked (听你说话, 和你在一起), not 你们 (who they are is unknown) nor 迷你's, nor one of a
# title (《想见你》, a cut 《你的名字) or a show's or a game's name (你好星期六, 你画我猜)
_INNER_YOU = lazy(r"(?<=.)(?<!迷)你(?!们|画我猜|好(?!好))")
_TITLE = lazy(r"《[^》]*》?")
_KIND = lazy(r"[那这]种")  # 那种一口下去你就停不下来的辣条: the 你 after it is anyone's


def yours_named(value: str, other: str | None) -> str:
    """``value`` with a 你 inside it made ``other``, whom it was said to: 我喜欢听你说话 is a liking of
    hearing 祈煜 talk, where the prompt's 你 would read as the one the model talks to. A leading 你 is the
    caller's to judge; with no ``other`` the value is kept.

    >>> yours_named("听你说好吃的", "木木"), yours_named("和你们聊天", "木木"), yours_named("看《想见你》", "木木")
    ('听木木说好吃的', '和你们聊天', '看《想见你》')
    """
    if not other:
        return value
    kept = [(m.start(), m.end()) for m in _TITLE.finditer(value)]  # a title, or all after 那种
    kept += [(m.start(), len(value)) for m in _KIND.finditer(value)]
    return _INNER_YOU.sub(lambda m: m.group() if any(a < m.start() < b for a, b in kept) else other, value)
