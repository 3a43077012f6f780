"""The frame of a who-question, taken off before its words are matched, and whom a question is about (issue #13).

"谁说过…", "是谁提到…" ask for a person; the frame names nobody and matches nothing, and
glued to the next character it cuts the question wrong: jieba reads 是谁说明晚要带… as 说明 / 晚要, so
the keyword search looked for "explain" instead of 明晚. What follows the frame is what was said.

    >>> unframed("是谁说明晚要带自己做的点心来")
    '明晚要带自己做的点心来'
    >>> unframed("谁提过要去大阪"), unframed("谁说过他养了猫")
    ('要去大阪', '他养了猫')
    >>> unframed("大家都是谁啊"), unframed("谁说得对"), unframed("谁说的对")  # whose view is right: no frame
    ('大家都是谁啊', '谁说得对', '谁说的对')
    >>> unframed("谁家的狗跑丢了")  # whose: 家 is said of the dog's home too
    '谁家的狗跑丢了'
    >>> unframed("聊到流星雨\\n那是谁说想去看来着")
    '聊到流星雨\\n想去看来着'
"""

from __future__ import annotations

import re

from huiyi.patterns import lazy

__all__ = ["about_asker", "asks_who", "says_i", "unframed"]

# at a line's start: (请问/那/所以) (是/到底是/还记得是) 谁 + a verb of saying (说过, 提到, 讲的…);
# 谁说得 / 谁说的对 ask whose view is right, not who said something
_WHO = lazy(
    r"^(?:请问|那|所以|话说)?(?:是|到底是|还记得是|你记得是)?"
    r"谁(?:说到|讲到|提到|提起|聊到|说|讲|提|聊|发)(?:过|了)?(?!得|的?对)(?:的是|的)?",
    re.MULTILINE,
)


# 谁 asking for a person anywhere in the question (今天一大早是谁说…, 谁家的狗…, 傍晚谁拍了…); 谁说得对 asks
# whose view is right, 谁都/谁也 mean anyone
_ASKS_WHO = lazy(r"谁(?!说得|说的对|都|也)")


def asks_who(query: str) -> bool:
    """Whether the question (its last line: the lines before are the chat) asks who said or did something.

    >>> asks_who("今天一大早是谁说坐地铁被堵在半路的"), asks_who("谁家的狗把鞋子给嚼烂了")
    (True, True)
    >>> asks_who("谁说得对"), asks_who("谁都知道他爱吃辣"), asks_who("谁说的\\n阿木的店在哪")
    (False, False, False)
    """
    return _ASKS_WHO.search(query.strip().rsplit("\n", 1)[-1]) is not None


def unframed(query: str) -> str:
    """The query with the who-frame of each line taken off; a line with no frame is left as it is."""
    return _WHO.sub("", query)


def says_i(query: str) -> bool:
    """Whether the question (its last line: the lines before are the chat) is about the asker: 我 / I."""
    last = query.strip().rsplit("\n", 1)[-1]
    return "我" in last or re.search(r"(?<![A-Za-z])(?:I|me|my)(?![A-Za-z])", last) is not None


def about_asker(query: str) -> bool:
    """Whether a private chat's question is about the asker: it says 我 / I, or it does not address the
    agent (你 / you), since the rest asks about the asker's life (那次医生是怎么诊断的: their cat's illness)."""
    last = query.strip().rsplit("\n", 1)[-1]
    return says_i(last) or re.search(r"[你您]|(?<![A-Za-z])(?:you|your)(?![A-Za-z])", last, re.IGNORECASE) is None
