"""The patterns that tell of the speaker's pet in Chinese: 我养了一只猫叫豆豆, 我家有只狗, 我家那只猫叫咪咪."""

from __future__ import annotations

from huiyi.flows.extract.rules.patterns import ZH_CALLED_NAME, ZH_NOT_CRIED
from huiyi.patterns import lazy
from huiyi.text.language import CJK

__all__ = ["ZH_ANIMALS", "ZH_PET", "ZH_PET_HAS", "ZH_PET_NAMED"]

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
