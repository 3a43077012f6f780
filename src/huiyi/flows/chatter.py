"""What a chunk says, without who said it, and whether it says anything at all (issue #13).

A chunk's text is ``speaker: text`` per turn, for people to read; matching it must not see the names,
or every short line of a speaker ranks high for any question naming them (“苏霓是做什么的” found
``苏霓: 霓霓好``). The speaker is the chunk's ``participants`` field, which recall's speaker bonus reads.

Chatter (哈哈, 草, +1, 早, [图片], stickers, 恭喜恭喜, 晚安霓霓) says nothing on its own: embedded with
the turns before it, it scores as high as the content it answers. Recall gives it no weight of its own.

    >>> said_lines("苏霓: 霓霓好\\nNekoChan: 毕业设计: 做完了", ["NekoChan", "苏霓"])
    ['霓霓好', '毕业设计: 做完了']
    >>> [is_chatter(t) for t in ["哈哈哈哈", "草", "恭喜+1", "早！", "[图片]", "晚安霓霓", "好的苏老师", "欢迎老K"]]
    [True, True, True, True, True, True, True, True]
    >>> [is_chatter(t) for t in ["好冷", "苏老师早！今天有课吧", "我在做毕业设计", "接龙：1. 晚晴 2. 霓霓"]]
    [False, False, False, False]
    >>> [is_chatter(t) for t in ["是啊，下次一定", "都记下了", "没问题", "都记下了，清单私发我", "行李箱还空着"]]
    [True, True, True, False, False]
    >>> [is_chatter(t) for t in ["ok", "lol 😂", "book"]]
    [True, True, False]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from huiyi.model import MemoryKind
from huiyi.patterns import lazy

__all__ = ["is_chatter", "last_turn", "people_of", "said_lines", "said_text"]

_PLACEHOLDER = lazy(r"\[[^\[\]\n]{1,8}\]")  # [图片] [表情] [动画表情] [语音] [捂脸]
_PLUS_ONE = lazy(r"[+＋]\s*[1１]")
# reactions, greetings and laughter that carry no content; longest first, so 好的 goes before 好
_REACTIONS = sorted(
    """
    早 早安 早上好 午安 晚安 晚上好 下午好 你好 您好 大家好 哈喽 嗨 在吗 在的 在 来了 来啦
    恭喜 恭喜恭喜 欢迎 欢迎欢迎 谢谢 谢啦 多谢 感谢 辛苦了 辛苦 抱抱 摸摸 加油 冲 收到 明白 了解 知道了
    好的 好滴 好嘞 好吧 好呀 好啊 好 对 对对 对的 对啊 是的 是啊 确实 有道理 同意 附议 同 一样 也是 真的
    嗯 嗯嗯 哦 噢 喔 哇 哇塞 啊 呀 耶 诶 欸 嘿 哟 咦 额 呃 草 艹 牛 牛啊 牛逼 666 厉害 绝了 赞 顶 强
    笑死 笑死我了 哭了 心疼 羡慕 可爱 好看 好好看 好美 好棒 棒 馋 晚安啦 睡了 路过 围观 前排 沙发 啦 呢 吧 嘛
    签到 大家 各位 可以 经典 原来如此 卧槽 我去 记下了 记住了 都记下了 没问题 下次一定
    ok okay lol lmao haha hahaha hi hello hey thanks thx ty yes yeah yep no nope wow nice cool gm gn omg
    sure yup lmfao rofl lolol hehe ikr np yw
    """.split(),
    key=len,
    reverse=True,
)


def _reaction_pattern(words: Sequence[str]) -> str:
    """``words`` as one alternation, Latin words whole; grouped by first letter so a position is tried
    against the few words that start with its letter, not all 200. At one position only words sharing
    its first letter can match, and within a group the order (longest first) is kept: the same match
    as the plain alternation, at a third of the cost (every candidate of every recall runs it)."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(word)
    parts = []
    for first, group in groups.items():
        # a Latin word's (?<![a-z]) goes after its first letter, so that every branch starts with a literal
        rest = [
            re.escape(w[1:]) if not w.isascii() or w.isdigit() else f"(?<![a-z]{re.escape(first)}){w[1:]}(?![a-z])"
            for w in group
        ]
        parts.append(re.escape(first) + "(?:" + "|".join(rest) + ")")
    return "|".join(parts)


_REACTION = lazy(_reaction_pattern(_REACTIONS))
_LAUGH = lazy(r"[哈呵嘿嘻h]{2,}|2{1,2}3{2,}|[hx]{3,}|(?:ha){2,}", re.IGNORECASE)
# what is left of a reaction addressed to someone: 霓霓, 老K, 小黑, 苏老师, 川哥
_ADDRESS = lazy(r"(.)\1|[小老阿][\w]{1,2}|[\w]{1,2}(?:老师|哥|姐|总|叔|姨)|[A-Za-z]{1,12}")


def people_of(kind: MemoryKind, participants: Sequence[str], subject: object) -> list[str]:
    """Who a memory is by or about: its participants, and a fact's subject (``data["subject"]``)."""
    named = subject if kind is MemoryKind.FACT and isinstance(subject, str) and subject else None
    return [*participants, named] if named else list(participants)


def said_lines(text: str, speakers: Iterable[str]) -> list[str]:
    """The turns of a chunk's text without their ``speaker: `` prefixes."""
    prefixes = _prefixes(tuple(speakers))
    if "\n" not in text:  # one turn, as most chunks are
        return [_unprefixed(text, prefixes)]
    return [_unprefixed(line, prefixes) for line in text.split("\n")]


def last_turn(text: str, speakers: Iterable[str]) -> tuple[str, str]:
    """Who said a chunk's own turn (its last line) and what they said ("" when no speaker's prefix
    begins it).

    >>> last_turn("苏霓: 霓霓好\\nNekoChan: 毕业设计: 做完了", ["苏霓", "NekoChan"])
    ('NekoChan', '毕业设计: 做完了')
    """
    line = text.rsplit("\n", 1)[-1]
    for prefix in _prefixes(tuple(speakers)):
        if line.startswith(prefix):
            return prefix[:-2], line[len(prefix) :]
    return "", line


@lru_cache(maxsize=1024)
def _prefixes(speakers: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted((f"{name}: " for name in speakers if name), key=len, reverse=True))


def _unprefixed(line: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:
        if line.startswith(prefix):
            return line[len(prefix) :]
    return line


# a sentence ends where whitespace follows its mark: "3.5 km", "e.g.x" and unspaced Chinese stay whole
_SENTENCE_END = lazy(r"(?<=[.!?。！？…])\s+")


def spoken_text(text: str, speakers: Iterable[str]) -> str:
    """A chunk's text with its speaker's name before each sentence, one per line (``chunk.own_sentences``,
    issue #17): "Melanie: I paint. Mostly sunsets!" weighs who said it as a question naming her does,
    where in one long line her name is a word among forty. A line that starts with no speaker's name goes
    on the turn before it. ``text`` as it is where this would more than double it (many short sentences,
    a long name): what is embedded stays bounded by what was said, however it is punctuated.

    >>> spoken_text("Mel: I paint. Mostly sunsets!\\nCaro: Nice.\\nand more", ["Caro", "Mel"])
    'Mel: I paint.\\nMel: Mostly sunsets!\\nCaro: Nice.\\nCaro: and more'
    >>> spoken_text("A: 好累。今天加班到十点", ["A"])
    'A: 好累。今天加班到十点'
    >>> spoken_text("Mel: " + "a. " * 50, ["Mel"]) == "Mel: " + "a. " * 50
    True
    """
    prefixes = _prefixes(tuple(speakers))
    out: list[str] = []
    prefix = ""
    for line in text.split("\n"):
        said = line
        for known in prefixes:
            if line.startswith(known):
                prefix, said = known, line[len(known) :]
                break
        out.extend(prefix + part for part in _SENTENCE_END.split(said.strip()) if part)
    spoken = "\n".join(out)
    return spoken if len(spoken) <= 2 * len(text) else text


def said_text(text: str, speakers: Iterable[str]) -> str:
    """A chunk's text as it is matched: what was said, without who said it."""
    return "\n".join(said_lines(text, speakers))


# letters a reaction or a laugh may take away; more than four of any other letter are content for sure,
# which settles most lines before the reaction pattern runs (recall checks every candidate)
_REMOVABLE = sorted(set("".join(_REACTIONS).casefold()) | set("哈呵嘿嘻hx23a"))
_FIVE_CONTENT = lazy("(?:.*?[^\\W_" + "".join(re.escape(ch) for ch in _REMOVABLE) + "]){5}", re.DOTALL)


# what ``ch.isalnum() or ch.isspace()`` drops (regex \\w is isalnum plus "_"; checked on every code point)
_NOT_ALNUM = lazy(r"[^\w\s]|_")


@lru_cache(maxsize=256)
def _longest_first(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted((n for n in names if n), key=len, reverse=True))


def is_chatter(text: str, names: Sequence[str] = ()) -> bool:
    """Whether a message says nothing on its own: laughter, a reaction, a greeting, a sticker, a +1,
    perhaps addressed to someone (晚安霓霓); ``names`` are people it may address."""
    # each pattern runs only where its first letter is (most lines have neither)
    rest = _PLACEHOLDER.sub("", text) if "[" in text else text
    if "1" in rest or "１" in rest:
        rest = _PLUS_ONE.sub("", rest)
    for name in _longest_first(names if isinstance(names, tuple) else tuple(names)):
        rest = rest.replace(name, " ")
    rest = rest.casefold()
    if _FIVE_CONTENT.match(rest):
        return False
    rest = _NOT_ALNUM.sub("", rest)
    rest = _LAUGH.sub(" ", rest)
    rest, reactions = _REACTION.subn(" ", rest)
    left = "".join(rest.split())
    if not left:
        return True
    return reactions > 0 and len(left) <= 4 and _ADDRESS.fullmatch(left) is not None
