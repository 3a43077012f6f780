"""The patterns that tell of the speaker's pet: 我养了一只猫叫豆豆, 我家有只狗, 我家那只猫叫咪咪; I have a dog
named Rex, My cat is called 'Milo'."""

from __future__ import annotations

import re

from huiyi.flows.extract.rules.patterns import ZH_CALLED_NAME, ZH_NOT_CRIED, en_rule
from huiyi.patterns import lazy
from huiyi.text.kin import KIN_ALTERNATION
from huiyi.text.language import CJK

__all__ = [
    "EN_NAME",
    "EN_PET",
    "EN_PETS",
    "EN_PET_APPOSED",
    "EN_PET_NAMED",
    "ZH_ANIMALS",
    "ZH_KIND_OF",
    "ZH_PET",
    "ZH_PET_HAS",
    "ZH_PET_NAMED",
    "ZH_PET_WORD",
    "en_pet",
    "home_pet",
    "kept_by_others",
]

ZH_ANIMALS = "猫咪?|猫猫|小猫|狗狗?|小狗|兔子|仓鼠|鹦鹉|乌龟|金鱼|龙猫|柯基|柴犬"
# 我养的猫叫了一晚上: the pet crying, which names none but is the pet still
_ZH_CRY = "叫(?=了|得|个|着|过|起来|不|声|什么|啥)"
_ZH_PET_NAME = (
    rf"(?:[，,]?(?:它|他|她)?(?:叫做?|名叫|名字叫){ZH_NOT_CRIED}{ZH_CALLED_NAME})?(?=[，,。.！!？?~～\s]|$|{_ZH_CRY})"
)
ZH_PET = lazy(  # three parts: applied on its own
    rf"我(?:家)?(?:又|还|也)?(?:养了|养着|养的(?=(?:[那这][只条头匹])?(?:{ZH_ANIMALS})(?:[，,]?[它他她]?叫|[，,。.！!？?~～\s]|$))(?:[那这](?=[只条头匹]))?|养)(?P<num>[一两二三四五六七八九十几\d]+)?(?P<mw>只|条|头|匹|个|缸|窝)?"
    rf"(?P<pet>(?![了着过它他她的])(?:(?!叫)[{CJK}]){{1,5}}?){_ZH_PET_NAME}"
)
# 我家有只猫: 有 tells of a pet only with an animal's measure word and an animal (我有一个问题 is none)
ZH_PET_HAS = lazy(
    rf"我(?:家)?(?:还|也)?有(?P<num>[一两二三四五六七八九十几\d]+)?(?P<mw>只|条|头|匹)(?P<pet>{ZH_ANIMALS}){_ZH_PET_NAME}"
)
# 我家的猫叫团子, 我家那只狗叫旺财: a pet named with no 养; the name is the subject of a clause with none (，是橘猫)
ZH_PET_NAMED = lazy(
    rf"^我(?:家)?(?:的)?(?P<num>)(?:[那这](?P<mw>只|条|头|匹))?(?P<pet>{ZH_ANIMALS})"
    rf"(?:叫做?|名叫|名字叫){ZH_NOT_CRIED}(?P<name>[{CJK}A-Za-z]{{1,8}}?)(?:[呀啊呢哦吧]|$)"
)

# what people call their own pet by its kind: 主子 (a cat one serves), 喵星人, 狗子
ZH_KIND_OF = {
    **dict.fromkeys(("喵星人", "猫主子", "主子", "猫咪", "猫猫"), "猫"),
    **dict.fromkeys(("汪星人", "狗子", "狗狗"), "狗"),
}
# a pet's word as people say it of their own or another's: a nickname first (猫咪 before 猫)
ZH_PET_WORD = f"{'|'.join(ZH_KIND_OF)}|{ZH_ANIMALS}|猫|狗"
_ZH_HOME_PET = lazy(rf"^我家的?(?P<pet>{ZH_PET_WORD})")
# what goes on about the pet after its word (我家猫又掉毛了); 我家猫砂, 狗粮, 猫爬架 are things
_ZH_GOES_ON = lazy(
    r"^(?:[，,。.！!~～\s]|在|又|把|被|今天|昨天|前天|刚|最近|一直|每天|总是|老是|天天|已经|也|还|超|特别|真|好|太|很|最"
    r"|都|就|会|不|居然|竟然|突然|终于|是|叫|吃|拆|睡|掉|咬|抓|趴|躺|闹|舔|生病|胖|瘦|长|[一两三四五六七八九十\d]+岁)"
)
# a pet gone (我家狗狗走了: rules.losses) or wished for (要是), not one had now
_ZH_GONE = lazy(r"去世|过世|离世|病逝|死|走了|没了|不在了|丢了|跑丢|不见|送人|送走")
_ZH_NAMED = lazy(rf"^(?:叫做?|名叫|名字叫){ZH_NOT_CRIED}")
# 我家狗子又不回我消息, 考试考了第一: 狗子 (and 主子) is what many call a partner or a child, told by a person's doings
_ZH_PERSON_DOINGS = lazy(r"消息|微信|电话|考试|考了|作业|上学|放学|上班|下班|加班|游戏|工资|学校|幼儿园|对象|老婆|老公")


# 我家狗子是我妈养的, 我家的猫是室友的: the home's animal is someone else's (a gift, 是我妈送的, is one's own)
_ZH_OTHERS = lazy(
    rf"^(?:其实|本来|都|也)?是(?:我的?)?(?:{KIN_ALTERNATION}|别人|人家)家?(?:的|养的|在养的?|一直在?养的)"
    r"(?:[呀啊呢哦啦吧~～]|[，,。.！!\s]|$)"
)


def home_pet(clause: str) -> str:
    """A clause of the speaker's that tells of 我家's animal (我家狗子今天又拆家了, 我家喵星人), as the 养了 it
    says (我养了一只狗), with the pet's name if one follows; "" for anything else. 那只 is not read: 我家那只猫
    alone is no pet (rules tests), and people (我家孩子, 我家那位) are no animal.

    >>> home_pet("我家狗子今天又拆家了"), home_pet("我家主子叫团子"), home_pet("我家猫砂用完了"), home_pet("我家猫死了")
    ('我养了一只狗', '我养了一只猫叫团子', '', '')
    >>> home_pet("我家狗子是我妈养的"), home_pet("我家的猫是室友的"), home_pet("我家狗子是我妈送的")
    ('', '', '我养了一只狗')
    """
    found = _ZH_HOME_PET.match(clause)
    if found is None:
        return ""
    rest = clause[found.end() :]
    if (rest and not _ZH_GOES_ON.match(rest)) or _ZH_GONE.search(rest) or _ZH_PERSON_DOINGS.search(rest):
        return ""
    if _ZH_OTHERS.match(rest):
        return ""
    pet = ZH_KIND_OF.get(found["pet"], found["pet"])
    return f"我养了一只{pet}" + (rest if _ZH_NAMED.match(rest) else "")


def kept_by_others(clauses: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """``clauses`` (clause, unsure) with the home's animal told unsure (read for what follows, but no fact) when
    a clause after it that goes on about it says someone else keeps it: 我家的狗叫旺财，是我妈养的 (or ，我妈养的;
    ，是一只柯基，是我姐的), as 我家狗子是我妈养的 is no pet of the speaker's.

    >>> kept_by_others([("我家的狗叫旺财", False), ("是我妈养的", False)])[0]
    ('我家的狗叫旺财', True)
    >>> [unsure for _, unsure in kept_by_others([("我家的狗叫旺财", False), ("是我妈送的", False)])]
    [False, False]
    """
    out = list(clauses)
    for at, (clause, unsure) in enumerate(clauses):
        if unsure or not _ZH_HOME_PET.match(clause):
            continue
        for later, _ in clauses[at + 1 : at + 3]:
            if _ZH_OTHERS.match(later) or _ZH_OTHERS.match(f"是{later}"):
                out[at] = (clause, True)
            if not later.startswith("是"):  # a clause of its own subject is about something else
                break
    return out


EN_PETS = (
    r"dogs?|cats?|pupp(?:y|ies)|kittens?|hamsters?|rabbits?|bunn(?:y|ies)|birds?|parrots?|fish|goldfish|turtles?|"
    r"tortoises?|snakes?|lizards?|horses?|guinea\s+pigs?|ferrets?|chinchillas?|hedgehogs?"
)
# a pet's name, bare or in quotes (called 'Milo', “Milo”, ‘Rex’): an apostrophe only within it (O'Malley)
EN_NAME = r"[\"'“‘]?(?P<name>(?-i:[A-Z](?:[\w-]|['’](?=\w))*))[\"'”’]?"
EN_PET = en_rule(
    rf"I\s+(?:have|have\s+got|'ve\s+got|got|own|adopted|just\s+adopted|just\s+got)\s+"
    rf"(?P<num>an?|one|two|three|four|\d+)\s+(?P<pet>(?:[a-z]+\s+)?(?:{EN_PETS}))\b"
    rf"(?:[\s,]+(?:named|called)\s+{EN_NAME})?"
)
# My cat is called Mochi, Our dog's name is Rex: a pet named with no "have", as 我家的猫叫团子
EN_PET_NAMED = en_rule(
    rf"(?:my|our)\s+(?P<num>)(?P<pet>(?:[a-z]+\s+)?(?:{EN_PETS}))(?:'s\s+name\s+is|\s+is\s+(?:called|named)"
    rf"|'s\s+(?:called|named))\s+{EN_NAME}$"
)
# My dog Rex loves the beach, our cat Milo is sick: a pet named right after its kind, as 我家猫团子在催我喂饭了;
# one pet (my dogs Rex and Max: how many?), the clause going on in lower case (My dog I think…, Rex's bowl name none)
EN_PET_APPOSED = en_rule(
    rf"(?:my|our)\s+(?P<num>)(?P<pet>(?:[a-z]+\s+)?(?:{EN_PETS}))(?<!s)\s+"
    r"(?!(?:today|tonight|yesterday|tomorrow|this|that|last|next|every|lol|haha|omg|just|also|always|never|still"
    r"|really|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b)"
    r"(?P<name>(?-i:[A-Z][a-z]+))(?=,|\s+(?-i:[a-z]))"
)


# My dog Max died last year, Rex ran away, used to love walks: a pet gone (rules.pet_deaths), not one had now
_EN_GONE = lazy(
    r"\b(?:died|dead|passed|put\s+(?:down|to\s+sleep)|ran\s+away|run\s+away|went\s+missing|is\s+missing|lost"
    r"|used\s+to|rip|rest\s+in\s+peace|miss(?:ed)?\s+(?:him|her|them))\b|\bwho\s+(?:was|were)\b",
    re.IGNORECASE,
)
# My dog Mom says…, my dog Please stop…: a word of kin, of courtesy or a holiday that starts a clause is no name
_EN_NO_NAME = frozenset("Mom Mum Mommy Dad Daddy Please Thanks Sorry Christmas Halloween Easter".split())


def en_pet(clause: str) -> re.Match[str] | None:
    """The speaker's pet an English clause tells of (``EN_PET``'s groups): had, named, or named after its kind."""
    found = EN_PET.match(clause) or EN_PET_NAMED.match(clause.rstrip(" .!~"))
    if found is not None:
        return found
    apposed = EN_PET_APPOSED.match(clause)
    gone = apposed is not None and _EN_GONE.search(clause, apposed.end()) is not None
    return None if apposed is None or gone or apposed["name"] in _EN_NO_NAME else apposed
