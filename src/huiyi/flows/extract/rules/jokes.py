"""Where a message takes back what it said as a joke (我喜欢猫，开玩笑的; I live in Paris lol jk): the facts
and plans read before it are not the speaker's. What follows it is read (开玩笑的，其实我在杭州上班).
Laughter closing a clause (我是亿万富翁哈哈哈, I'm the king of France lol) marks that clause alone."""

from __future__ import annotations

import re

__all__ = ["before_laugh", "joke_end", "laughed_part_off", "laughs_off", "laughter_only"]

_END = r"(?=[\s，,。.！!？?；;~～)）]|$)"
# a retraction closing its clause (我喜欢开玩笑, 开玩笑的人 are no retraction); 才怪 turns its own clause
# round (我喜欢加班才怪)
_ZH = re.compile(
    rf"(?:开玩笑(?:的|啦|哒|呢|而已|罢了)|骗你的|骗你哒|逗你的|逗你玩的?|说着玩的|瞎说的|胡说的)[啦呢哈嘛呀啊]*{_END}"
)
_ZH_TURNED = re.compile(rf"才怪[啦呢哈嘛呀啊]*{_END}")  # 我不喜欢他才怪: no 不 makes it earnest
_EN = re.compile(
    r"\b(?:(?:just|only|I'm|I\s+am|im)\s+(?:kidding|joking)|jk|j/k)\b|(?:,|(?<!\.)\.{2,}|…)\s*(?-i:NOT)\b",
    re.IGNORECASE,
)
# sarcasm closing the message turns all of it round, as 才怪 does (I'm a doctor, yeah right; … not; /s);
# (?<!\s) starts a run of spaces once, so a long run costs no quadratic search
_EN_TURNED = re.compile(
    r"(?:(?:[,.…]\s*|(?<!\s)\s+)(?:yeah,?\s+right|said\s+no\s*(?:one|body)\s+ever)|[,.…]\s*not|(?<!\s)\s+/s)[\s.!]*$",
    re.IGNORECASE,
)
# 不是开玩笑的, 没骗你的, I'm not just kidding: said in earnest, so nothing is taken back
_ZH_EARNEST = re.compile(r"[不没别][^，,。！!？?；;]{0,3}$")
_EN_EARNEST = re.compile(r"(?:\b(?:not|no|never)|n't)\s+(?:\w+\s+)?$", re.IGNORECASE)
_NEVER = re.compile(r"(?!)")
_EARNEST_REACH = 80  # the earnest words sit just before a retraction: look no further back, so each costs the same
_CLAUSE_END = re.compile(r"[，,。.！!？?；;~～\n]")


def joke_end(text: str) -> int:
    """The offset just past the clause of the message's last retraction; 0 when nothing is taken back."""
    end = 0
    for marker, earnest in ((_ZH, _ZH_EARNEST), (_ZH_TURNED, _NEVER), (_EN, _EN_EARNEST), (_EN_TURNED, _NEVER)):
        last = -1  # the end of the marker's last retraction: the clause after it reaches furthest
        for found in marker.finditer(text):
            if not earnest.search(text, max(0, found.start() - _EARNEST_REACH), found.start()):
                last = found.end()
        if last >= 0:
            after = _CLAUSE_END.search(text, last)
            end = max(end, after.end() if after else len(text))
    return end


# laughter or a laughing face; (?<!…) keeps it a word of its own (uhhh, Harbor2333 are no laughter)
_LAUGH = re.compile(
    r"哈{2,}|呵{2,}|xswl|笑死|(?<![a-z])(?:h{3,}|lol+|lmf?ao+|rofl|ha(?:ha)+h?|he(?:he)+|xd+)|(?<!\d)23{3,}"
    r"|:p|[😂🤣😆😝😜🤪🙃]",
    re.IGNORECASE,
)
_LAUGH_AT_END = re.compile(rf"(?:{_LAUGH.pattern})$", re.IGNORECASE)
_AFTER_LAUGH = " \t,，.。!！~～…啦呀啊哦嘛"
_TAIL = 16  # longer than any laugh needs to be seen: the check stays linear in a 20 000-character clause


def laughs_off(clause: str) -> bool:
    """Whether laughter closes the clause: what it says is laughed at, not meant (哈哈，我住在上海 is:
    laughter that opens a clause answers what came before)."""
    return _LAUGH_AT_END.search(clause.rstrip(_AFTER_LAUGH)[-_TAIL:]) is not None


def before_laugh(clause: str) -> str:
    """The clause without the laughter that closes it (我是老师哈哈哈: 我是老师)."""
    head = clause.rstrip(_AFTER_LAUGH)
    found = _LAUGH_AT_END.search(head[-_TAIL:])
    return head[: len(head) - len(found.group())].rstrip(_AFTER_LAUGH) if found else clause


def laughter_only(clause: str) -> bool:
    """A clause of laughter alone (我是亿万富翁，哈哈哈): it closes the clause before."""
    return bool(clause.strip()) and not _LAUGH.sub("", clause).strip(_AFTER_LAUGH)


def laughed_part_off(clauses: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """English clauses without a last comma's part that laughter closes and that says something of its own:
    in "my favorite color is blue now, green was a phase lol" the laugh is at green, not at blue ("I'm a
    billionaire, lol" stays whole: the laugh closes it)."""
    out: list[tuple[str, bool]] = []
    for clause, unsure in clauses:
        head, comma, tail = clause.rpartition(",")
        if comma and head.strip() and laughs_off(clause) and _says_its_own(tail):
            clause = head.strip()
        out.append((clause, unsure))
    return out


# a clause of its own after the comma: a subject and its verb (green was a phase lol), not a hedge on the
# clause before (obviously lol, not really lol, France lol)
_OWN_CLAUSE = re.compile(
    r"^\s*(?!not\b|just\b|jk\b|kidding\b)\w+(?:\s+\w+)?\s+(?:is|was|were|are|am|'s|has|had|have)\b", re.I
)


def _says_its_own(tail: str) -> bool:
    return not laughter_only(tail) and _OWN_CLAUSE.search(tail) is not None
