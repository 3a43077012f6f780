"""The nicknames a Chinese name is commonly called by in a chat (issue #13): 川哥 for 陈大川, 桐桐 for
宋雨桐, 唐叔 for 唐建国. Recall reads them as names of the person when the query holds one and no
statement taught it; nothing is stored.

    >>> nickname_forms("陈大川")
    ['大川', '川哥', '川姐', '陈哥', '陈姐', '陈叔', '陈姨', '老陈', '小川', '阿川', '川川']
    >>> nickname_forms("大川")  # 大 is no surname: 大哥, 大姐 and 老大 are everyone's
    ['川哥', '川姐', '小川', '阿川', '川川']
    >>> "好好" in nickname_forms("郑好"), "圆圆" in nickname_forms("方圆")  # 好好 is a word, 圆圆 a name
    (False, True)
    >>> nickname_forms("NekoChan"), nickname_forms("欧阳娜娜娜"), nickname_forms("阿木"), nickname_forms("苏老师")
    ([], [], [], [])
"""

from __future__ import annotations

from huiyi.text import tokens
from huiyi.text.surnames import SURNAMES

__all__ = ["nickname_forms"]

# parts of speech a doubled character must not have to be taken for a name: 好好 (d), 甜甜 (a), 天天 (t)
_WORDISH = ("a", "d", "v", "t", "m", "q", "r", "p", "c", "u")
_TITLES = ("老师", "哥", "姐", "叔", "姨", "总", "老板", "同学")


def nickname_forms(name: str) -> list[str]:
    """Nicknames of a 2–3 character Chinese name: the given name, 川哥, 陈叔, 老陈, 小川, 阿川, 川川."""
    if not (2 <= len(name) <= 3) or not all(tokens.has_cjk(ch) for ch in name) or name[0] in "小阿老":
        return []  # 小满, 阿木 are already what a nickname would be (小姐, 阿姨 are no one's)
    if name.endswith(_TITLES):
        return []  # 苏老师, 顾哥: a way to address someone, not a name (its "given name" 老师 is no one's)
    surname, given, last = name[0], name[1:], name[-1]
    if surname not in SURNAMES:  # a name that is no surname and given name (大川, 蓝天白): only its last
        surname, given = "", ""
    forms = [given] if len(given) == 2 else []
    forms += [last + "哥", last + "姐"]
    if surname:
        forms += [surname + "哥", surname + "姐", surname + "叔", surname + "姨", "老" + surname]
    forms += ["小" + last, "阿" + last]
    doubled = last * 2
    tags = tokens.tag(doubled)
    if not (len(tags) == 1 and tags[0][1].startswith(_WORDISH)):
        forms.append(doubled)
    return [form for form in dict.fromkeys(forms) if form != name]
