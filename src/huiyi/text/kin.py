"""The people one has, as a Chinese speaker names them: 我老公, 我妹妹, 我闺蜜, 我老板.

A question about one of them is not a question about the asker (我妈住哪 asks where the mother lives), and
a line naming one of them does not name another (recall.names, recall.slots).

    >>> bool(KIN.fullmatch("男朋友")), bool(KIN.fullmatch("火锅"))
    (True, False)
    >>> without_mine("我妈住哪"), without_mine("我现在住哪，我的室友也问")
    ('住哪', '我现在住哪，也问')
"""

from __future__ import annotations

from huiyi.patterns import lazy
from huiyi.text import tokens

__all__ = [
    "EN_CALLED",
    "EN_KIN",
    "EN_PEERS",
    "FAMILY",
    "FAMILY_WORDS",
    "KIN",
    "KIN_ALTERNATION",
    "KIN_WORDS",
    "kin_pronoun",
    "someone_named",
    "without_mine",
]

FAMILY_WORDS = frozenset(
    (
        "爸爸 妈妈 爸 妈 父亲 母亲 哥哥 姐姐 弟弟 妹妹 哥 姐 弟 妹 儿子 女儿 爷爷 奶奶 外公 外婆 姥姥 姥爷"
        " 叔叔 阿姨 舅舅 舅妈 姑姑 姑父 婶婶 姨妈 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹 侄子 侄女 外甥 外甥女"
        " 孙子 孙女 嫂子 姐夫 妹夫 弟妹 公公 婆婆 岳父 岳母"
    ).split()
)
KIN_WORDS = FAMILY_WORDS | frozenset(
    (
        "老公 老婆 丈夫 妻子 媳妇 男朋友 女朋友 男友 女友 对象 前男友 前女友 前任 未婚夫 未婚妻"
        " 室友 舍友 同事 同学 同桌 闺蜜 发小 好朋友 朋友 老板 领导 上司 老师 邻居"
    ).split()
)

# the same people as an English speaker names them (my roommate, my sister), as pattern alternations
EN_PEERS = (
    r"(?:(?:best|close|good|old)\s+)?(?:(?:room|flat|house|class|school|team)mate|colleague|co-?worker"
    r"|neighbou?r|friend|bestie)"
)
# a partner or family, one person each (Jake is my boyfriend, my sister Emma): never said as "X and I are …s"
EN_KIN = (
    r"(?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?"
    r"|(?:(?:older|younger|big|little|baby|twin)\s+)?(?:sister|brother)|mom|mum|mother|dad|father|son|daughter"
    r"|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|niece|nephew)"
)

# what the family is called, as a name is said (I'm watching Grandma, at Mom's): a calling, no one's name
EN_CALLED = (
    r"(?:Mom|Mum|Mommy|Mummy|Mama|Dad|Daddy|Papa|Grandma|Grandpa|Granny|Nana|Auntie|Aunt|Uncle|Grandmother"
    r"|Grandfather)"
)


def _longest_first(words: frozenset[str]) -> str:
    """An alternation that reads 男朋友 whole rather than as 朋友 after 男."""
    return "|".join(sorted(words, key=lambda word: (-len(word), word)))


KIN_ALTERNATION = _longest_first(KIN_WORDS)
FAMILY = _longest_first(FAMILY_WORDS)  # an alternation, for patterns that name one's family
KIN = lazy(KIN_ALTERNATION)
_MY_KIN = lazy(rf"我(?:的)?(?:{KIN_ALTERNATION})")


def without_mine(text: str) -> str:
    """``text`` without the asker's people (我妈, 我的室友): what is left of it is about the asker."""
    return _MY_KIN.sub("", text)


# whom a kin word names, he or she, by its last character (舅妈 her, 姑父 him); 男 / 女 say it anywhere
_HIS_END, _HER_END = "夫哥弟爸父爷公叔舅子婿", "妻姐妹妈母奶婆姨姑婶嫂蜜妇"


def kin_pronoun(word: str) -> str:
    """他 or 她 for the one ``word`` names, "" when it can be either (同事, 对象, 老板).

    >>> kin_pronoun("男朋友"), kin_pronoun("舅妈"), kin_pronoun("姑父"), kin_pronoun("闺蜜"), kin_pronoun("同事")
    ('他', '她', '他', '她', '')
    """
    if "男" in word or "女" in word:
        return "他" if "男" in word else "她"
    return "他" if word[-1:] in _HIS_END else "她" if word[-1:] in _HER_END else ""


def someone_named(text: str, kin: str = "", names: frozenset[str] = frozenset()) -> bool:
    """Whether ``text`` names a person other than ``kin`` (阿杰是我男朋友) and ``names``: by a kin word (我哥, 同事)
    or by a name the tagger knows (张伟): whom a 他 after it may mean.

    >>> someone_named("我哥明天来，"), someone_named("今天碰到张伟了"), someone_named("是我男朋友，", "男朋友")
    (True, True, False)
    """
    if any(found.group() != kin for found in KIN.finditer(text)):
        return True
    return any(flag.startswith("nr") and word not in names for word, flag in tokens.tag(text))
