"""One message as the rules read it: speaker, language, time phrases, words, facts and entities."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from huiyi.flows.extract import CloseDraft, EntityDraft, FactDraft
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE
from huiyi.model import Message
from huiyi.patterns import lazy
from huiyi.text.language import CJK
from huiyi.text.relayed import Relay
from huiyi.text.times import TimeSpan

# a space between Chinese words that ends a clause, as a comma would (我不吃香菜 以后别推荐, 戒奶茶了 太胖了):
# after a clause's closing particle or a lead-in (跟你说), or before a word that opens a clause (以后, 但是);
# never after words that bring someone's words or thoughts (小雨说 我住在滨江 is hers) nor inside a clause
# (我在杭州 工作, 我对花生 过敏, 我下周三 考驾照 stay whole)
_SPACE = lazy(rf"(?<=[{CJK}])[ \u3000]+(?=[{CJK}])")
_CLAUSE_DONE = lazy(r"[了啦呀吧哈嘛呢哦啊嗯呜]$")
_LEAD_IN = lazy(r"(?:跟你说|和你说|告诉你|对了|话说|其实|说真的)$")
_CLAUSE_OPENS = lazy(r"^(?:以后|现在|但是|但|不过|可是|所以|而且|然后)")
_WORDS_OF = lazy(r"(?:说|问|讲|道|想|觉得|以为|听说|知道|发现|表示|称|喊|叫)$")


def spaces_as_commas(text: str) -> str:
    r"""A Chinese chat line with the spaces that end a clause written as commas, for the rules to read its
    clauses as a comma would part them.

    >>> spaces_as_commas("我不吃香菜 以后别推荐"), spaces_as_commas("跟你说 我男朋友阿杰送我花了")
    ('我不吃香菜，以后别推荐', '跟你说，我男朋友阿杰送我花了')
    >>> spaces_as_commas("最近戒奶茶了 太胖了 现在改喝美式了")
    '最近戒奶茶了，太胖了，现在改喝美式了'
    >>> [spaces_as_commas(t) for t in ("我在杭州 工作", "我对花生 过敏", "小雨说 我住在滨江", "我最喜欢的动物 是猫")]
    ['我在杭州 工作', '我对花生 过敏', '小雨说 我住在滨江', '我最喜欢的动物 是猫']
    >>> spaces_as_commas("@小助手 今天天气怎么样"), spaces_as_commas("我在 Google 上班")
    ('@小助手 今天天气怎么样', '我在 Google 上班')
    """
    if " " not in text and "\u3000" not in text:
        return text
    return _SPACE.sub(lambda space: "，" if _ends_clause(text, space.start(), space.end()) else space.group(), text)


def _ends_clause(text: str, start: int, end: int) -> bool:
    before, after = text[max(0, start - 6) : start], text[end : end + 4]
    if _mention_ends(text, start):
        return False
    if _LEAD_IN.search(before):
        return True
    return not _WORDS_OF.search(before) and bool(_CLAUSE_DONE.search(before) or _CLAUSE_OPENS.search(after))


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


def stated(said: Said, text: str | None = None) -> Iterator[str]:
    """The clauses of ``text`` (the speaker's own words) that state something: no question and none a joke
    takes back (…，骗你的). An English one that opens with My or Our has it lowercased, so that a rule reads
    "my cat" however the sentence starts."""
    text = said.own if text is None else text
    if said.lang == "en":
        for part in re.split(r"[.!;\n]+|(?<=\?)", text.replace("’", "'")):
            clause = part.strip(" ,")
            if clause and not clause.endswith("?"):
                yield clause[:1].lower() + clause[1:] if clause.startswith(("My ", "Our ")) else clause
        return
    for match in ZH_CLAUSE.finditer(text, joke_end(text)):
        clause = match.group().strip()
        end = text[match.end() : match.end() + 1]
        if clause and not (end and end in "？?") and not QUESTION_END.search(clause):
            yield clause
