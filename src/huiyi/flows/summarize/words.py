"""Words of the extractive summaries (zh and en), and the small text helpers they share.

Moods are read from a small lexicon (seed 003's 心情); each mood has a reply strategy (seed 003's 回复策略).

    >>> clip("木木说：我明天要考驾照，好紧张。", 80)
    '木木说：我明天要考驾照，好紧张'
    >>> first_person("祈煜说：别紧张", ["祈煜"], "zh")
    '我说：别紧张'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from huiyi.flows.extract.rules.condense import END_PUNCT

__all__ = [
    "WEEKDAYS",
    "WORDS",
    "clip",
    "first_person",
    "join",
    "moods",
    "strategy_for",
    "top_moods",
    "who_of",
]

WORDS = {
    "zh": {
        "sep": "、",
        "list": "；",
        "end": "。",
        "others": "{names}等{n}人",
        "daily": "{day}：{who}聊到{topics}。",
        "daily_plain": "{day}：{who}聊了天。",
        "noted": "记下：{facts}。",
        "global": "{span}（{days}）：{who}常聊{topics}。",
        "global_plain": "{span}（{days}）：{who}聊了天。",
        "moments": "要事：{items}。",
        "span": "{first}～{last}",
        "days": "{n}天",
        "one_day": "1天",
        "portrait": "{day}，{name}的画像：{parts}。",
        "overall": "{span}，{name}的性格与喜好：{parts}。",
        "mood": "心情{moods}",
        "recent_mood": "近来心情{moods}",
        "cares": "在意{topics}",
        "often": "常聊{topics}",
        "strategy": "回复策略：{strategy}。",
        "diary_head": "{day}，{weekday}。",
        "diary_private": "今天我和{who}聊了{topics}。",
        "diary_group": "今天在群「{space}」里，我和{who}聊了{topics}。",
        "diary_listen": "今天群「{space}」里，{who}聊了{topics}，我在一旁听着。",
        "diary_topics_none": "天",
        "remember": "我记住了：{facts}。",
        "diary_mood": "{name}今天有点{mood}，我要多关心{name}。",
        "profile": "{name}（群{space}）：{parts}。",
        "self": "自述：{items}",
        "heard": "群友说：{items}",
        "heard_item": "{by}说{text}",
        "someone": "有人",
        "talks": "常聊{topics}",
        "activity": "{first}起发言{n}条",
        "global_profile": "{name}的自述（来自群聊）：{items}。",
        "parts": "；",
        "I": "我",
    },
    "en": {
        "sep": ", ",
        "list": "; ",
        "end": ".",
        "others": "{names} and {n} others",
        "daily": "{day}: {who} talked about {topics}.",
        "daily_plain": "{day}: {who} chatted.",
        "noted": "Noted: {facts}.",
        "global": "{span} ({days}): {who} often talked about {topics}.",
        "global_plain": "{span} ({days}): {who} chatted.",
        "moments": "Key moments: {items}.",
        "span": "{first} to {last}",
        "days": "{n} days",
        "one_day": "1 day",
        "portrait": "{day}, portrait of {name}: {parts}.",
        "overall": "{span}, {name}'s personality and tastes: {parts}.",
        "mood": "mood: {moods}",
        "recent_mood": "recent mood: {moods}",
        "cares": "cares about {topics}",
        "often": "often talks about {topics}",
        "strategy": "Reply strategy: {strategy}.",
        "diary_head": "{weekday}, {day}.",
        "diary_private": "Today I talked with {who} about {topics}.",
        "diary_group": "Today in the group {space}, I talked with {who} about {topics}.",
        "diary_listen": "Today in the group {space}, {who} talked about {topics} while I listened.",
        "diary_topics_none": "this and that",
        "remember": "I'll remember: {facts}.",
        "diary_mood": "{name} seemed {mood} today; I should look after {name}.",
        "profile": "{name} (group {space}): {parts}.",
        "self": "in their own words: {items}",
        "heard": "others said: {items}",
        "heard_item": "{by}: {text}",
        "someone": "someone",
        "talks": "often talks about {topics}",
        "activity": "{n} messages since {first}",
        "global_profile": "{name}, in their own words (from group chats): {items}.",
        "parts": "; ",
        "I": "I",
    },
}
WEEKDAYS = {
    "zh": "星期一 星期二 星期三 星期四 星期五 星期六 星期日".split(),
    "en": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(),
}

# moods (seed 003's 心情) read from a small lexicon, in a fixed order that also breaks ties
_MOODS: dict[str, list[tuple[str, str]]] = {
    "zh": [
        ("开心", "开心|高兴|快乐|幸福|太好了|兴奋|激动|期待|哈哈哈"),
        # a death told the usual way (豆豆今天走了): 走了 after a time word, ending its clause, not 走了两万步
        (
            "难过",
            "难过|伤心|哭|失落|委屈|心碎|失望|去世|过世|离世|不在了|舍不得|心里好空|家里好空"
            r"|(?:今天|昨天|昨晚|前天|今早|早上|晚上|凌晨|下午)走了(?=[，。！…,.!\s]|$)",
        ),
        ("紧张", "紧张|焦虑|担心|害怕|忐忑|压力"),
        ("疲惫", "好累|太累|累死|疲惫|困死|熬夜"),
        ("烦躁", "生气|烦死|好烦|郁闷|气死|无语|崩溃"),
        ("孤单", "孤单|孤独|寂寞|想你"),
    ],
    "en": [
        ("happy", r"\b(?:happy|glad|excited|thrilled|can't wait|yay)\b"),
        ("sad", r"\b(?:sad|upset|cried|crying|heartbroken|disappointed|passed\s+away)\b"),
        ("nervous", r"\b(?:nervous|anxious|worried|scared|afraid|stressed)\b"),
        ("tired", r"\b(?:tired|exhausted|sleepy|worn out)\b"),
        ("annoyed", r"\b(?:angry|annoyed|mad|frustrated|pissed)\b"),
        ("lonely", r"\b(?:lonely|alone|miss you)\b"),
    ],
}
_STRATEGY = {
    "zh": {
        "开心": "分享喜悦，顺着兴致多聊",
        "难过": "多倾听、多安慰，少讲道理",
        "紧张": "帮忙放松，多打气",
        "疲惫": "少打扰，提醒早点休息",
        "烦躁": "先共情，别急着给建议",
        "孤单": "多陪伴，主动找话题",
    },
    "en": {
        "happy": "share the joy and follow the mood",
        "sad": "listen and comfort; no lectures",
        "nervous": "help relax and cheer on",
        "tired": "keep it short and suggest rest",
        "annoyed": "empathise first; advice can wait",
        "lonely": "keep company and start topics",
    },
}
_TITLES = re.compile(r"《[^《》]*》")
_TRAILING = "。．.！!？?；;，,、：: \n"


def clip(text: str, limit: int) -> str:
    """One line, at most ``limit`` characters (ellipsis when cut), without closing punctuation, so
    items join with ；."""
    text = " ".join(text.split()).rstrip(_TRAILING)
    if len(text) > limit:
        text = text[: max(1, limit - 1)].rstrip(_TRAILING) + "…"
    return text


def join(items: Iterable[str], lang: str, key: str = "sep") -> str:
    return WORDS[lang][key].join(items)


def who_of(names: Sequence[str], lang: str, most: int = 3) -> str:
    """The people of a summary, the first ``most`` by name: 甲、乙、丙等5人 counts them all, "and 2 others"
    the rest.

    >>> who_of(["mike", "jess", "dan", "tom", "priya"], "en"), who_of(["甲", "乙", "丙", "丁", "戊"], "zh")
    ('mike, jess, dan and 2 others', '甲、乙、丙等5人')
    >>> who_of(["mike", "jess", "dan", "tom"], "en")
    'mike, jess, dan and 1 other'
    """
    names = list(dict.fromkeys(names))
    if len(names) <= most:
        if lang == "en" and len(names) > 1:
            return ", ".join(names[:-1]) + " and " + names[-1]
        return join(names, lang)
    shown = join(names[:most], lang)
    if lang == "en" and len(names) == most + 1:
        return f"{shown} and 1 other"
    return WORDS[lang]["others"].format(names=shown, n=len(names) - most if lang == "en" else len(names))


def first_person(text: str, names: Iterable[str], lang: str, others: Iterable[str] = ()) -> str:
    """The agent's names become 我 / I (diary); a Latin name only as a whole word, in Chinese text too
    (an agent called ``a`` turned alice说 into 我lice说), and never inside ``others``, the names of
    the people of the day (a member called 祈煜粉丝 or 祈煜（用户） stays themself), nor inside the words
    an event quotes (``木木说：晚安祈煜``): they are kept as they were said.

    >>> first_person("祈煜陪alice去了Ann家", ["祈煜", "a"], "zh"), first_person("Ann met Anna", ["Ann"], "en")
    ('我陪alice去了Ann家', 'I met Anna')
    >>> first_person("祈煜粉丝夸祈煜好帅", ["祈煜"], "zh", ["祈煜粉丝"])
    '祈煜粉丝夸我好帅'
    >>> first_person("祈煜说：我是祈煜。木木说：晚安祈煜", ["祈煜"], "zh", ["木木"])
    '我说：我是祈煜。木木说：晚安祈煜'
    """
    mine = {n for n in names if n}
    if not mine:
        return text
    spoken = _speaker_tags(sorted({*mine, *(o for o in others if o)}, key=len, reverse=True), lang)
    tags = list(spoken.finditer(text))
    if tags:  # an event's turns: each speaker's tag is read, the words after it kept
        cuts = [0, *(t.start() for t in tags), len(text)]
        pieces = [text[: cuts[1]], *(text[t.start() : t.end()] for t in tags)]
        quoted = [text[t.end() : cuts[i + 2]] for i, t in enumerate(tags)]
        heads = [_as_me(piece, mine, lang, others) for piece in pieces]
        return heads[0] + "".join(head + words for head, words in zip(heads[1:], quoted, strict=True))
    return _as_me(text, mine, lang, others)


def _as_me(text: str, mine: set[str], lang: str, others: Iterable[str]) -> str:
    if not text:
        return text
    kept = sorted({o for o in others if o and o not in mine and any(n in o for n in mine)}, key=len, reverse=True)
    alternatives = [re.escape(name) for name in kept]
    for name in sorted(mine, key=len, reverse=True):
        if lang == "zh":
            before = r"(?<![A-Za-z0-9])" if name[0].isascii() and name[0].isalnum() else ""
            after = r"(?![A-Za-z0-9])" if name[-1].isascii() and name[-1].isalnum() else ""
            alternatives.append(f"(?P<n{len(alternatives)}>{before}{re.escape(name)}{after})")
        else:
            alternatives.append(rf"(?P<n{len(alternatives)}>(?<!\w){re.escape(name)}(?!\w))")
    # one pass, other people's longer names tried first at each place: what they hold is theirs
    pattern = re.compile("|".join(alternatives))
    return pattern.sub(lambda match: WORDS[lang]["I"] if match.lastgroup else match.group(), text)


def _speaker_tags(names: Sequence[str], lang: str) -> re.Pattern[str]:
    """Where an event's turn starts: a name and its verb (木木说：, Anna said: ), as rules.extractor writes it."""
    who = "|".join(re.escape(name) for name in names)
    if lang == "zh":
        return re.compile(rf"(?:^|(?<=[{re.escape(END_PUNCT)}；;\s]))(?:{who})(?:说|转发|引用)[：:]")
    return re.compile(rf"(?:^|(?<=\s))(?:{who}) (?:said|forwarded|quoted): ")


def moods(texts: Iterable[str], lang: str) -> dict[str, int]:
    """Mood label -> number of texts showing it, in the lexicon's order."""
    out: dict[str, int] = {}
    patterns = [(label, re.compile(p, re.IGNORECASE)) for label, p in _MOODS[lang]]
    for text in texts:
        text = _TITLES.sub("", text)  # 《百年孤独》 is a book, not a mood
        for label, pattern in patterns:
            if pattern.search(text):
                out[label] = out.get(label, 0) + 1
    return {label: out[label] for label, _ in _MOODS[lang] if label in out}


def top_moods(counts: dict[str, int], lang: str, limit: int = 2) -> list[str]:
    order = [label for label, _ in _MOODS[lang]]
    known = [label for label in counts if label in order]
    return sorted(known, key=lambda m: (-counts[m], order.index(m)))[:limit]


def strategy_for(counts: dict[str, int], lang: str) -> str:
    top = top_moods(counts, lang, 1)
    return _STRATEGY[lang][top[0]] if top else ""
