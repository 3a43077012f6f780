"""One message as the rules read it: speaker, language, time phrases, words, facts and entities."""

from __future__ import annotations

from dataclasses import dataclass, field

from huiyi.flows.extract import CloseDraft, EntityDraft, FactDraft
from huiyi.model import Message
from huiyi.patterns import lazy
from huiyi.text.language import CJK
from huiyi.text.relayed import Relay
from huiyi.text.times import TimeSpan

# a space between Chinese words where a chat puts a comma (我不吃香菜 以后别推荐); not after a word that
# waits for its object (我喜欢 周杰伦, 我家猫叫 团子), nor before a particle (好 的)
_OPEN_ENDS = "是在叫欢爱厌到和跟给对从往向把被让去住养吃喝看玩做当为的"
_SPACE_AS_COMMA = lazy(rf"(?<=[{CJK}])(?<![{_OPEN_ENDS}])[ \u3000]+(?=[{CJK}])(?![的了吗呢吧啊呀哦嘛啦])")


def spaces_as_commas(text: str) -> str:
    r"""A Chinese chat line with the spaces that stand for commas written as commas, for the rules to read
    its clauses as a comma would part them.

    >>> spaces_as_commas("我不吃香菜 以后别推荐"), spaces_as_commas("跟你说 我男朋友阿杰送我花了")
    ('我不吃香菜，以后别推荐', '跟你说，我男朋友阿杰送我花了')
    >>> spaces_as_commas("我喜欢 周杰伦"), spaces_as_commas("我在 Google 上班"), spaces_as_commas("好 的")
    ('我喜欢 周杰伦', '我在 Google 上班', '好 的')
    >>> spaces_as_commas("@小助手 今天天气怎么样")
    '@小助手 今天天气怎么样'
    """
    return _SPACE_AS_COMMA.sub(lambda space: space.group() if _mention_ends(text, space.start()) else "，", text)


def _mention_ends(text: str, at: int) -> bool:
    """Whether the word before ``at`` is an @mention (@小助手 今天天气怎么样: the space is the mention's end)."""
    start = max(text.rfind(mark, 0, at) for mark in " \u3000\n") + 1
    return text[start : start + 1] in ("@", "＠")


@dataclass
class Said:
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
    closes: list[CloseDraft] = field(default_factory=list)  # the speaker's open facts it ends (我戒烟了)
    relay: Relay | None = None  # what the message forwards or quotes: someone else's words

    @property
    def own(self) -> str:
        """The speaker's own words, the only ones facts, aliases, plans, quits and losses are read from."""
        return self.relay.own if self.relay else self.message.text
