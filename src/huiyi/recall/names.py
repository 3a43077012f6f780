"""Name questions: "上午有人推荐的那家火锅叫什么名字来着" asks for the line that gives the name.

Meaning and words score every line about the hotpot alike (火锅我可能不太行, 鸳鸯锅呗); the answer is the
one that names it: a name in quotes or title marks (“巴渝老灶”, 《繁花》), or one given with 叫 / 名叫 /
名字是 (我家的猫叫团子). When the line asked asks for a name, candidate lines that give one gain
``name_weight``. When the question says what it asks the name of (那家**火锅**), a line that names
something else beside it (换到“老街烧烤”，火锅那家我已经退了) gains nothing: the name must stand next to it.

    >>> asks("那家火锅叫什么名字来着"), asks("她的猫叫啥"), asks("what's the name of that bakery?")
    (True, True, True)
    >>> asks("你叫我什么"), asks("那家火锅好吃吗"), asks("你最近在忙的是什么")
    (False, False, False)
    >>> gives("武林路有家“巴渝老灶”火锅"), gives("我家的猫叫团子，三岁了"), gives("火锅我可能不太行")
    (True, True, False)
    >>> about("上午有人推荐的那家火锅叫什么名字来着"), about("她家那只猫叫啥"), about("叫什么名字")
    ('火锅', '猫', None)
    >>> gives("武林路有家“巴渝老灶”火锅", "火锅"), gives("换到“老街烧烤”，火锅那家我已经退了", "火锅")
    (True, False)

Asked the name of someone the asker has (我老公, 她妹妹), a line that names another of them (我男朋友叫陈一鸣)
gains nothing; one that says who is that one does (王磊是我老公, 我老公王磊):

    >>> gives("我男朋友叫陈一鸣，是个程序员", "老公"), gives("王磊是我老公，他在银行上班", "老公")
    (False, True)
    >>> gives("我跟我老公王磊去吃了火锅", "老公"), gives("我妹妹叫小雨", "妹妹"), gives("我家的猫叫团子", "老公")
    (True, True, True)
    >>> gives("我老公今天去上班了", "老公"), gives("他们都说是我老公的错", "老公")
    (False, False)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from huiyi.patterns import lazy
from huiyi.recall.rerank import Window
from huiyi.store.base import RankRow
from huiyi.text.kin import KIN, KIN_WORDS

__all__ = ["about", "asks", "gains", "gives"]

_ASKS = lazy(
    r"叫(?:什么|啥)(?:名字|名儿|名)?(?:来着|啊|呀|呢|？|\?|$)|名字(?:是|叫)?(?:什么|啥)|叫个?(?:什么|啥)名"
    r"|\bwhat(?:'s| is| was)(?: the| its| his| her| their)? name\b|\bcalled what\b",
    re.IGNORECASE,
)
_GIVES = lazy(
    r"[“「『《\"][^”」』》\"\n]{1,20}[”」』》\"]|(?:叫|名叫|叫做|名字是|名字叫)[\u4e00-\u9fffA-Za-z]{1,8}"
    r"|\b(?:called|named)\s+[A-Z][\w'-]+",
)

# what precedes the thing named: 那家 / 她的 / 我们 ... (the thing is what follows the last of them)
_BEFORE_THING = lazy(r"[的那这哪他她它你我们家只个位条本部首间座款]")
_NEAR = 4  # characters between a name and the thing it names, in one clause (“巴渝老灶”火锅, 火锅店名字叫…)
_CLAUSE_END = lazy(r"[，。！？；,.!?;\n]")


def asks(line: str) -> bool:
    """Whether the line asked asks what something or someone is called."""
    return _ASKS.search(line.strip().rsplit("\n", 1)[-1]) is not None


def about(line: str) -> str | None:
    """What a Chinese name question asks the name of (那家火锅叫什么 → 火锅), or None when it does not say."""
    last = line.strip().rsplit("\n", 1)[-1]
    match = _ASKS.search(last)
    if match is None:
        return None
    before = re.sub(r"[^\u4e00-\u9fff]+$", "", last[: match.start()])
    thing = _BEFORE_THING.split(before)[-1][-4:]
    return thing if re.fullmatch(r"[\u4e00-\u9fff]+", thing) else None


def gives(text: str, thing: str | None = None) -> bool:
    """Whether a memory's text gives a name: quoted, in title marks, or after 叫 / named; when ``thing``
    is said in the text, a name beside it."""
    names = [match.span() for match in _GIVES.finditer(text)]
    if thing in KIN_WORDS:
        return _gives_kin(text, thing, names)
    if not names or not thing or thing not in text:
        return bool(names)
    places = [found.span() for found in re.finditer(re.escape(thing), text)]
    return any(_beside(text, name, place) for name in names for place in places)


def _gives_kin(text: str, kin: str, names: list[tuple[int, int]]) -> bool:
    """Whether the text names ``kin`` (王磊是我老公, 我老公王磊, 我老公叫王磊), or gives a name beside none of
    the other people one has (我家的猫叫团子: perhaps said of them)."""
    from huiyi.flows.extract.rules.objects import person_named  # the rules' patterns load at a fold, not here

    said = rf"(?P<a>[\u4e00-\u9fff]{{2,4}})是(?:我|你|他|她)(?:们)?的?{kin}|{kin}(?P<b>[\u4e00-\u9fff]{{2,3}})"
    for found in re.finditer(said, text):
        if found.group("a") and any(person_named(found.group("a")[-size:]) for size in (2, 3, 4)):
            return True
        if found.group("b") and any(person_named(found.group("b")[:size]) for size in (2, 3)):
            return True
    others = [found.span() for found in KIN.finditer(text) if found.group(0) != kin]
    mine = [found.span() for found in re.finditer(re.escape(kin), text)]
    return any(
        any(_beside(text, name, place) for place in mine) or not any(_beside(text, name, place) for place in others)
        for name in names
    )


def _beside(text: str, name: tuple[int, int], thing: tuple[int, int]) -> bool:
    """Whether a name and a thing stand in one clause, at most ``_NEAR`` characters apart."""
    between = text[min(name[1], thing[1]) : max(name[0], thing[0])]
    return len(between) <= _NEAR and not _CLAUSE_END.search(between)


def gains(
    window: Window, rows: Mapping[int, RankRow | None], weight: float, thing: str | None = None
) -> dict[int, float]:
    """What the lines in the window that give a name (of ``thing``, when the question says) gain."""
    return {key: weight for key, _ in window if (row := rows.get(key)) is not None and gives(row.text, thing)}
