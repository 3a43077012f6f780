"""The speaker's part of a clause said of two (我同学和我都在上海上班, 我和我同学都在上海上班): what both do
is what the speaker does too, so the clause is read as if the speaker said it alone (我在上海上班).

Only 都 makes it both: 我同学在上海上班 is the classmate's alone, and 我妈和我说… is no deed of the speaker's.

    >>> speakers_part("我同学和我都在上海上班", 0), speakers_part("我同学和我都在上海上班", 4)
    (None, '我在上海上班')
    >>> speakers_part("我和我同学都在上海上班", 0), speakers_part("我跟小雨也都喜欢猫", 0)
    ('我在上海上班', '我喜欢猫')
    >>> speakers_part("我同学在上海上班", 0), speakers_part("我和朋友去成都玩", 0)
    ('我同学在上海上班', '我和朋友去成都玩')

What the speaker shares with the one spoken to is the speaker's too (我和你都是程序员: 木木是程序员; being
human says nothing of who one is, facts.py drops that):

    >>> speakers_part("我和你都是程序员", 0), speakers_part("你跟我都是学生", 2), speakers_part("我和你都喜欢猫", 0)
    ('我是程序员', '我是学生', '我喜欢猫')

What the two do together is no deed of one (我跟男朋友都住在一起了: 都 is "already"):

    >>> speakers_part("我跟男朋友都住在一起了", 0), speakers_part("我同学和我都住一块", 0)
    ('我跟男朋友都住在一起了', '我同学和我都住一块')
"""

from __future__ import annotations

from huiyi.patterns import lazy
from huiyi.text.kin import KIN_ALTERNATION
from huiyi.text.language import CJK

__all__ = ["speakers_part"]

_WITH = "(?:和|跟|与)"
_BOTH = "(?:也|还)?都"
# the other one: 我妈, 我的室友, 小雨; not a verb or a place said before 都 (我和朋友去成都)
_OTHER = rf"(?:我的?)?(?:(?![我在是住去到了])[{CJK}]){{1,6}}?"
# 我同学和我都…: this 我 is the other's; the speaker's is the one after 和
_OTHERS_FIRST = lazy(rf"我的?(?:{KIN_ALTERNATION}){_WITH}(?=我{_BOTH})")
_SPEAKER_AFTER = lazy(rf"(?<={_WITH})我{_BOTH}")
_SPEAKER_FIRST = lazy(rf"我{_WITH}{_OTHER}{_BOTH}")
_TOGETHER = lazy(r"一起|一块|互相|彼此")


def speakers_part(clause: str, at: int) -> str | None:
    """The clause from its 我 at ``at`` on, as the speaker's alone; ``None`` when that 我 only owns the other
    of the two (我同学和我都…), whose 我 after 和 is the speaker."""
    if _TOGETHER.search(clause, at):
        return clause[at:]  # 住在一起 is done by both as one
    if _OTHERS_FIRST.match(clause, at):
        return None
    both = _SPEAKER_AFTER.match(clause, at) or _SPEAKER_FIRST.match(clause, at)
    return "我" + clause[both.end() :] if both else clause[at:]
