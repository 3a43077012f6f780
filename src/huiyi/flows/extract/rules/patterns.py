"""The first-person fact patterns, Chinese and English, and the regexes that cut clauses."""

from __future__ import annotations

import re
from dataclasses import dataclass

from huiyi.model import EntityType, FactKind
from huiyi.patterns import lazy
from huiyi.text.kin import KIN_ALTERNATION
from huiyi.text.language import CJK, EN_ABBREVIATION_DOT

_ZH_ADV = (
    r"(?:也|还|就|都|最|很|超|超级|特别|非常|真的|真|挺|蛮|好|比较|一直|从小就?|其实|可|老|太|更|尤其|十分|贼|巨)*"
)
ZH_END_PARTICLES = "啦呀啊哦嘛吧喔哈耶哟噢呐咯~～"
# before a clause's 我: someone else's words, a supposition, a wish, a dream, a game or a song (梦里我是…,
# 希望我住在上海, 歌词：我是一只小小鸟): what follows is not what the speaker is
ZH_REPORTED = lazy(
    r"说|觉得|以为|如果|假如|要是|万一|听说|据说|是不是|难道|他|她|别人|谁|假设|梦|希望|但愿|想象|幻想"
    r"|上辈子|下辈子|前世|来世|游戏里|游戏中|唱|歌词|台词"
)
# after a clause's 我: a dream or a wish (我梦到我明天去北京, 我住在上海就好了, 该多好)
ZH_UNREAL = lazy(r"梦到|梦见|如果|假如|要是|万一|假设|就好了|多好")
# a supposition whose sentence goes on supposed (如果我是富婆，我就…): not 主要是, 只要是, 千万一定
ZH_SUPPOSE = lazy(r"如果|假如|假设|(?<![主重只需想还总])要是|(?<!千)万一")
ZH_CLAUSE = lazy(r"[^，,。！？!?；;~～\n]+")  # a Chinese clause, between its marks
ZH_TELL = lazy(r"(?:跟|和|对|给)?你说|告诉你")
# a guess about oneself (我可能…, 我好像…, I think I'm…, I might be…): no fact of who one is, only a possible
# allergy or a plan with its day, kept as tentative: its text says the hedge, its confidence below any plain one
ZH_HEDGE = lazy(r"可能|也许|或许|大概|好像|似乎|应该|估计|说不定|八成")
TENTATIVE = 0.4
ZH_PRONOUNS = frozenset(
    "你 你们 他 她 它 他们 她们 它们 这 那 这个 那个 这些 那些 这样 那样 什么 谁 哪 自己 大家".split()
)
_ZH_NUM = r"[0-9０-９]{1,3}|[一二两三四五六七八九十]{1,3}"
# when a move is said to happen (下个月去…): soon, or already
_ZH_SOON = "下个?月|下周|下礼拜|明年|年后|过完年|月底|月初|之后|以后|马上|很快|已经|刚刚?"
_ZH_MOVE = "(?:要|准备|打算|将|会)?(?:跳槽到|跳槽去|跳到|换到|入职|去)"
# a move said done, not one still ahead (下个月搬去杭州, 我要搬去杭州: plans, read by the plan rules)
_ZH_DONE = "今天|昨天|前天|刚刚?|已经|正式|终于|总算|也|上周|上个月"
# where people work, as the last word of a place said before what they do there
_WORKPLACE = "公司|医院|诊所|学校|小学|初中|中学|高中|大学|幼儿园|店|馆|厂|银行|少年宫|工作室|中心|机构|事务所|单位"
# what one does once at a workplace, not one's work there: 在医院做了个胃镜, 在咖啡店写论文, 在医院做检查
_ONE_OFF = "了|个|一|完|着|作业|论文|功课|笔记|检查|体检|复查|核酸|胃镜|B超|CT"
# the end of a job title: 设计师, 产品经理, 护士, 实习生
_TITLE = "师|员|经理|总监|主管|专员|助理|顾问|医生|护士|编辑|记者|策划|运营|会计|销售|实习生|店长|老板"


@dataclass(frozen=True)
class FactRule:
    pattern: re.Pattern[str]
    predicate: str  # may name a group: {x}
    kind: FactKind
    keyword: str
    description: str  # {s} subject, {o} object, {x} extra group
    object_type: EntityType | None = None
    confidence: float = 0.8
    noun_object: bool = False  # the object must end in a noun (我是一名护士, not 我是说)
    person_object: bool = False  # the object must be someone named (我和小雨是室友, not 我和男朋友是同学)


def _zh(pattern: str) -> re.Pattern[str]:
    return lazy(pattern)


# 拿到字节的offer了, 收到了一家外企的录用通知: a job taken (the workplace may follow: ZH_OFFER_PLACE)
ZH_OFFER_RULE = FactRule(
    _zh(
        r"我(?:终于|也|刚刚?|已经)?(?:拿到|收到|接到)了?(?P<o>[^，。！？]{1,14}?)的?"
        r"(?:offer|Offer|OFFER|录用通知)(?:了|啦)?$"
    ),
    "工作于",
    FactKind.RELATION,
    "工作",
    "{s}换到{o}工作",
    object_type=EntityType.SPECIFIC,
    confidence=0.7,
)


ZH_RULES: tuple[FactRule, ...] = (
    FactRule(
        _zh(rf"我{_ZH_ADV}最(?:喜欢|爱)的(?P<x>[{CJK}]{{1,6}}?)(?:是|就是)(?P<o>.+)"),
        "最喜欢的{x}",
        FactKind.PREFERENCE,
        "喜好",
        "{s}最喜欢的{x}是{o}",
        confidence=0.8,
    ),
    FactRule(
        _zh(rf"我{_ZH_ADV}(?P<p>不喜欢|不太喜欢|不怎么喜欢|不爱|讨厌|受不了)(?:的(?:是|就是))?(?P<o>.+)"),
        "{p}",
        FactKind.PREFERENCE,
        "厌恶",
        "{s}{p}{o}",
        confidence=0.75,
    ),
    # what one eats and drinks or cannot (我只喝三分糖的, 我吃不了辣, 我不吃香菜): a habit a companion keeps
    FactRule(
        _zh(
            rf"我{_ZH_ADV}(?P<p>只喝|只吃|只用|不吃|不喝|不能吃|不能喝|吃不了|喝不了|碰不得)(?P<o>[^，。！？]{{1,12}})"
        ),
        "{p}",
        FactKind.PREFERENCE,
        "饮食",
        "{s}{p}{o}",
        confidence=0.75,
    ),
    FactRule(
        _zh(rf"我{_ZH_ADV}(?P<p>喜欢|爱|迷上了|热爱)(?:上了?)?(?:的(?:是|就是))?(?P<o>.+)"),
        "{p}",
        FactKind.PREFERENCE,
        "喜好",
        "{s}{p}{o}",
        confidence=0.75,
    ),
    FactRule(
        _zh(rf"我(?:的)?(?:名字|全名)(?:是|叫)(?P<o>[{CJK}A-Za-z·]{{1,10}})"),
        "名字是",
        FactKind.ATTRIBUTE,
        "名字",
        "{s}说自己叫{o}",
        confidence=0.8,
    ),
    FactRule(
        _zh(rf"我(?:就|本名|小名|大名)?叫(?:做)?(?P<o>[{CJK}A-Za-z·]{{1,10}})"),
        "名字是",
        FactKind.ATTRIBUTE,
        "名字",
        "{s}说自己叫{o}",
        confidence=0.8,
    ),
    FactRule(
        # 我老家在湖南长沙, 我家乡是四川的: where one comes from, which no home now ends
        _zh(r"我的?(?:老家|家乡|故乡)(?:在|是)(?P<o>[^，。！？的]{2,12}?)(?:的|人)?(?:了|啦|呢|哦|呀)?$"),
        "老家在",
        FactKind.ATTRIBUTE,
        "老家",
        "{s}老家在{o}",
        object_type=EntityType.SPECIFIC,
    ),
    FactRule(
        # 我住在公司附近, 住在西湖边: what the home is near, which no home in a city contradicts (住在杭州 stays)
        _zh(
            r"我(?:现在|目前|一直|平时|还|都|已经)*(?:住在|家在|家住在?)(?P<o>(?!在|院)[^，。！？]{1,15}?"
            r"(?:附近|旁边|边上|对面|周边|周围|一带|隔壁|楼上|楼下|边))(?:了|啦|呢|哦|呀)?$"
        ),
        "住在附近",
        FactKind.RELATION,
        "住址",
        "{s}住在{o}",
        object_type=EntityType.SPECIFIC,
    ),
    FactRule(
        # 住院 is a hospital stay, 住了两晚, 住得远 or 住腻了, 住习惯了 no place
        _zh(
            r"我(?:现在|目前|一直|平时|还|都|已经)*(?:住在|住|家在|家住在?)(?P<o>(?!在|院|了|过|着|得|的|不|惯|几|两|腻|够|习惯|久).+)"
        ),
        "住在",
        FactKind.RELATION,
        "住址",
        "{s}住在{o}",
        object_type=EntityType.SPECIFIC,
    ),
    FactRule(
        # 过: a job once held (在谷歌工作过); 的: someone else's (在医院上班的闺蜜), a time's, a title's (做…的工作);
        # 我还在找工作, 在考虑换工作: no job held
        _zh(
            r"我(?:现在|目前|一直|还|都|已经)*在(?P<o>[^，。！？]{1,15}?)"
            r"(?:(?<![的找换辞丢])(?:工作|上班|实习|打工|任职)(?!过|的)|当(?!过|了)[^，。！？]{1,8})"
        ),
        "工作于",
        FactKind.RELATION,
        "工作",
        "{s}在{o}工作",
        object_type=EntityType.SPECIFIC,
    ),
    # 我在少年宫教小提琴, 我在一家做跨境电商的公司做数据分析: a workplace, then what one does there
    FactRule(
        _zh(
            rf"我(?:现在|目前|一直|平时|白天)?在(?P<o>[^，。！？]{{0,12}}?(?:{_WORKPLACE}))"
            rf"(?P<p>做|教|卖|当|管|带|修|负责|写|画|设计|开发)(?!过)(?!{_ONE_OFF})(?P<x>[^，。！？]{{1,10}})"
        ),
        "工作于",
        FactKind.RELATION,
        "工作",
        "{s}在{o}{p}{x}",
        confidence=0.7,
    ),
    # 我在网易做UI设计师(的): a workplace by its name, known by the title held there (not 做代运营的公司)
    FactRule(
        _zh(
            r"我(?:现在|目前|一直)?在(?P<o>[^，。！？的]{1,12}?)(?:做|当|担任)(?!过)"
            rf"(?P<x>[^，。！？]{{0,8}}?(?:{_TITLE}))"
            rf"(?!的(?!工作|[{ZH_END_PARTICLES}呢]*(?:[，。！？]|$))|[^，。！？]*(?:的时候|那会))"
        ),
        "工作于",
        FactKind.RELATION,
        "工作",
        "{s}在{o}工作",
        object_type=EntityType.SPECIFIC,
        confidence=0.7,
    ),
    # 下个月去宁波一家做新能源车的公司, 我跳槽到一家外企: a move to a new workplace is the job from now on
    FactRule(
        _zh(
            rf"我(?:{_ZH_SOON})?{_ZH_MOVE}"
            rf"(?P<o>[^，。！？]{{0,12}}?一家[^，。！？]{{0,12}}?(?:{_WORKPLACE}))了?"
            r"(?=上班|工作|任职|做|写|当|教|画|干|$)"  # 去一家医院看病 is no job
        ),
        "工作于",
        FactKind.RELATION,
        "工作",
        "{s}换到{o}工作",
        object_type=EntityType.SPECIFIC,
        confidence=0.7,
    ),
    # 我今天正式搬到杭州了, 我搬到了文三路: a move done (not planned: ZH_AHEAD) is where one lives from now on
    FactRule(
        _zh(
            rf"我(?=(?:{_ZH_DONE})+搬|(?:{_ZH_DONE})*搬(?:家)?(?:到|去|回)了|.*[了啦]$)"  # said done
            rf"(?:{_ZH_DONE})*搬(?:家)?(?:到|去|回)了?(?P<o>[^，。！？]{{1,10}}?)(?:住)?(?:了|啦)?$"
        ),
        "住在",
        FactKind.RELATION,
        "住址",
        "{s}搬到{o}住",
        object_type=EntityType.SPECIFIC,
        confidence=0.7,
    ),
    ZH_OFFER_RULE,
    FactRule(
        _zh(r"我(?:现在|目前)?在(?P<o>[^，。！？]{1,10}?)开了(?:一)?家(?P<x>[^，。！？]{1,10})"),
        "开店于",
        FactKind.RELATION,
        "工作",
        "{s}在{o}开了家{x}",
        confidence=0.7,
    ),
    # 我开花店的, 我是卖车的: a trade said the way people say it
    FactRule(
        _zh(r"我(?:是)?(?P<p>开|卖|做|教|修|跑)(?P<o>[^，。！？的\s]{1,6})的(?=[，。！？,.!?~～\s]|$)"),
        "职业是",
        FactKind.ATTRIBUTE,
        "工作",
        "{s}是{p}{o}的",
        confidence=0.7,
    ),
    FactRule(
        _zh(r"我(?:的)?生日(?:是|在)(?P<o>.+)"),
        "生日是",
        FactKind.ATTRIBUTE,
        "生日",
        "{s}的生日是{o}",
    ),
    FactRule(
        _zh(rf"我(?:今年|已经|都)?(?P<o>(?:{_ZH_NUM})岁)(?:了)?"),
        "年龄",
        FactKind.ATTRIBUTE,
        "年龄",
        "{s}今年{o}",
    ),
    # 我从小芒果过敏, 我对猫毛过敏: said with or without 对
    FactRule(
        # no 不 or 没 (我不对任何东西过敏, 我男朋友不过敏) and no second 对 (我男朋友对猫过敏 is his)
        _zh(r"我(?:从小|一直|天生|有点)?(?:就)?(?:对)?(?P<o>(?:(?![不没对])[^，。！？]){1,10}?)过敏"),
        "过敏",
        FactKind.ATTRIBUTE,
        "健康",
        "{s}对{o}过敏",
    ),
    FactRule(
        # 我现在是律师: read for a job only (rules.jobs); 我现在是一个人 is how things are now
        _zh(r"我(?P<now>现在|目前|如今)?(?:是|算是)(?P<o>.{1,15})"),
        "是",
        FactKind.ATTRIBUTE,
        "身份",
        "{s}是{o}",
        confidence=0.7,
        noun_object=True,
    ),
)
ZH_NAME_RULE = next(rule for rule in ZH_RULES if rule.keyword == "名字")
# 后天是我生日: the day said first; the object must be a time phrase whole (FactReader checks)
ZH_BIRTHDAY_FIRST = FactRule(
    _zh(r"^(?P<o>[^，。！？]{1,12}?)(?:就)?是我的?生日(?:了|啦|呀|哦|耶)?$"),
    "生日是",
    FactKind.ATTRIBUTE,
    "生日",
    "{s}的生日是{o}",
)
# after 叫: no animal's cry or question (叫了一晚上, 叫个不停, 叫什么; 叫起司 is a name, 叫起来 a cry), nor whom it
# calls (鹦鹉叫我妈)
ZH_NOT_CRIED = "(?!了|得|个|着|过|起来|不|声|什么|啥|我|你)"
# the name called, without a particle after it (叫团子呀) unless that would leave one character (二哈, 啦啦)
ZH_CALLED_NAME = rf"(?P<name>[{CJK}A-Za-z]{{2,8}}?|[{CJK}A-Za-z])[呀啊呢哦吧啦哈]*"
# 叫豆豆, 它叫团子, 名字叫团子, 他叫陈屿: a clause that names the pet or partner the clause before it told of
ZH_NAMING = lazy(rf"^(?:它|他|她)?(?:叫做?|名叫|名字叫){ZH_NOT_CRIED}{ZH_CALLED_NAME}$")

# lead words, and a name called before the words (Also Kai, actually I'm 27): the clause is the speaker's still
_EN_PREFIX = (
    r"(?:(?:oh|well|and|but|so|actually|honestly|yeah|yes|also|haha|lol|btw|um|hey|hmm|ok|okay|sorry|thx"
    # the present said first, "Now I work at Microsoft", or thanks (for the tips): no fact was made of it (helpers)
    r"|thank(?:s|\s+you)(?:\s+(?:so|very)\s+much|\s+a\s+lot)?(?:\s+for\s+[^,.!?]{1,40})?"
    r"|now|currently|nowadays|right\s+now|these\s+days)[,!.]?\s+"
    r"|(?-i:[A-Z][a-z]+),\s+)*"
)
_EN_ADV = r"(?:really\s+|totally\s+|absolutely\s+|just\s+|also\s+|kinda\s+|so\s+|truly\s+|do\s+|still\s+)*"
# I'm also / really / severely allergic to…: how much, or that it is one more
_EN_DEGREE = (
    r"(?:(?:also|really|very|so|super|severely|seriously|deathly|highly|extremely|quite|pretty|mildly|slightly"
    r"|a\s+bit|a\s+little|kind\s+of|kinda)\s+)*"
)


def en_rule(pattern: str) -> re.Pattern[str]:
    return lazy(rf"^{_EN_PREFIX}{pattern}", re.IGNORECASE)


EN_RULES: tuple[FactRule, ...] = (
    FactRule(
        en_rule(r"my\s+(?:favou?rite)\s+(?P<x>[\w ]{1,20}?)\s+is\s+(?P<o>.+)"),
        "favourite {x}",
        FactKind.PREFERENCE,
        "likes",
        "{s}'s favourite {x} is {o}",
    ),
    FactRule(
        en_rule(
            rf"I\s+{_EN_ADV}(?P<p>don't\s+like|do\s+not\s+like|dislike|hate|can't\s+stand|cannot\s+stand)\s+(?P<o>.+)"
        ),
        "{p}",
        FactKind.PREFERENCE,
        "dislikes",
        "{s} {p} {o}",
        confidence=0.75,
    ),
    FactRule(
        en_rule(rf"I\s+{_EN_ADV}(?P<p>like|love|enjoy|adore)\s+(?P<o>.+)"),
        "{p}",
        FactKind.PREFERENCE,
        "likes",
        "{s} {p} {o}",
        confidence=0.75,
    ),
    FactRule(
        en_rule(
            r"(?:my\s+name\s+is|my\s+name's|call\s+me|I'm\s+called|I\s+am\s+called)\s+(?P<o>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?))"
        ),
        "name is",
        FactKind.ATTRIBUTE,
        "name",
        "{s}'s name is {o}",
    ),
    # a home said as it was (at the end of the street, not "in the end of the street"), the one a move ends;
    # here and there name no place; near a place named (near Seattle) is a home in that city's reach too
    FactRule(
        en_rule(
            r"I\s+(?:currently\s+|now\s+|still\s+)?live\s+(?P<x>in|at|near(?=\s+(?-i:[A-Z])))"
            r"\s+(?!(?:here|there)\b)(?P<o>.+)"
        ),
        "lives in",
        FactKind.RELATION,
        "home",
        "{s} lives {x} {o}",
        object_type=EntityType.SPECIFIC,
    ),
    # I live near our school: what the home is near (not "lives in Liz's school"), which no home in a city
    # contradicts (I live in Boston, then I live close to work), so it is a predicate of its own
    FactRule(
        en_rule(
            r"I\s+(?:currently\s+|now\s+|still\s+)?live\s+(?P<x>near(?!\s+(?-i:[A-Z]))|close\s+to|next\s+to"
            r"|by(?=\s+the\s+(?:sea|seaside|ocean|coast|beach|lake|river)\b))\s+(?!(?:here|there)\b)(?P<o>.+)"
        ),
        "lives near",
        FactKind.RELATION,
        "home",
        "{s} lives {x} {o}",
        object_type=EntityType.SPECIFIC,
    ),
    # I moved to Chicago today: a move done (not "I'm moving to") is where one lives now, as 搬到杭州了
    FactRule(
        en_rule(
            r"I\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|officially\s+|recently\s+)*moved\s+(?:to|into)\s+(?P<o>.+?)"
            r"(?:\s+(?:today|yesterday|recently|last\s+\w+|this\s+\w+|\w+\s+\w+\s+ago))?$"
        ),
        "lives in",
        FactKind.RELATION,
        "home",
        "{s} moved to {o}",
        object_type=EntityType.SPECIFIC,
        confidence=0.7,
    ),
    FactRule(
        en_rule(
            r"I\s+(?:currently\s+|now\s+|still\s+)?work\s+(?:(?:at|for|in)\s+.+?\s+)?as\s+(?P<o>an?\s+.+?)"
            r"(?:\s+(?:at|for|in)\s+(?-i:[A-Z]).*)?$"
        ),
        "works as",
        FactKind.ATTRIBUTE,
        "work",
        "{s} works as {o}",
    ),
    FactRule(
        en_rule(
            r"I\s+(?:currently\s+|now\s+|still\s+)?work\s+(?:as\s+an?\s+.+?\s+)?(?:at|for|in)\s+(?P<o>.+?)(?:\s+as\s+an?\s+.*)?$"
        ),
        "works at",
        FactKind.RELATION,
        "work",
        "{s} works at {o}",
        object_type=EntityType.SPECIFIC,
    ),
    FactRule(
        en_rule(r"my\s+birthday\s+(?:is|'s)\s+(?:on\s+)?(?P<o>.+)"),
        "birthday is",
        FactKind.ATTRIBUTE,
        "birthday",
        "{s}'s birthday is {o}",
    ),
    FactRule(
        en_rule(
            r"(?:I'm|I\s+am)\s+(?P<o>\d{1,3})(?:\s+years?\s+old|\s+y/?o)?(?=\s*$|[\s,.!])"
            r"(?!\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|seconds?|secs?|times?|percent|pounds?|lbs?"
            r"|kg|kilos?|miles?|km|feet|ft|inches|cm|steps?|pages?|%))"  # I'm 29 minutes late
        ),
        "age",
        FactKind.ATTRIBUTE,
        "age",
        "{s} is {o} years old",
    ),
    FactRule(
        en_rule(rf"(?:I'm|I\s+am)\s+{_EN_DEGREE}allergic\s+to\s+(?P<o>.+)"),
        "allergic to",
        FactKind.ATTRIBUTE,
        "health",
        "{s} is allergic to {o}",
    ),
    FactRule(
        en_rule(r"(?:I'm|I\s+am|I\s+come)\s+from\s+(?P<o>.+)"),
        "is from",
        FactKind.RELATION,
        "origin",
        "{s} is from {o}",
        object_type=EntityType.SPECIFIC,
    ),
    FactRule(
        en_rule(
            rf"(?:I'm|I\s+am)\s+(?P<o>(?:an?\s+(?!little\b|bit\b|lot\b|few\b)(?:[^,.;!?]|{EN_ABBREVIATION_DOT})+)"
            r"|vegetarian|vegan|single|married|divorced|engaged|retired|pregnant|left-handed)"
        ),
        "is",
        FactKind.ATTRIBUTE,
        "identity",
        "{s} is {o}",
        confidence=0.7,
    ),
)
# Tomorrow is my birthday: as 后天是我生日
EN_BIRTHDAY_FIRST = FactRule(
    en_rule(r"(?P<o>[\w ,]{1,30}?)(?:\s+is|'s)\s+my\s+birthday$"),
    "birthday is",
    FactKind.ATTRIBUTE,
    "birthday",
    "{s}'s birthday is {o}",
)
EN_SPEAKER_FIRST = en_rule(r"I(?:'m|\s+am)?\b")
EN_HEDGE = en_rule(
    r"(?:(?:I\s+think|I\s+guess|maybe|probably|perhaps),?\s+(?:I'm|I\s+am)|I\s+(?:might|may|could)\s+be"
    r"|(?:I'm|I\s+am)\s+(?:probably|maybe|possibly))\s+"
)
# a clause whose subject is the speaker's (我家的猫, 我妈, 我的室友): what follows is not about the speaker
ZH_OWN_SUBJECT = lazy(
    rf"^(?:其实|但是|不过|可是|而且|因为|所以|对了|现在|平时|目前)?我(?:家|的|们家|{KIN_ALTERNATION})"
)
ZH_LEAD = lazy(r"^(?:其实|但是|不过|可是|而且|因为|所以|嗯+|哈+|对了|说实话|老实说|现在|平时|目前)?我(?!们)")
ZH_CONTINUE = lazy(
    r"^(?:也|还|又|就|现在|目前|平时)?(?:在|住|家在|老家|家乡|养|今年|最|喜欢|爱|讨厌|不喜欢|对.{1,10}过敏|是)"
)
# a clause of one's own with 我 left out that moves house (今天正式搬到杭州了): as ZH_JOB_MOVE
ZH_HOME_MOVE = lazy(rf"^(?:{_ZH_DONE})*搬(?:家)?(?:到|去|回)")
# an offer with no workplace in its clause (拿到offer了！！杭州那家游戏公司，…): the next clause that is one
ZH_OFFER = lazy(r"^(?:我)?(?:终于|也|刚刚?|已经)?(?:拿到|收到|接到)了?(?:offer|Offer|OFFER|录用通知)")
ZH_OFFER_PLACE = lazy(rf"^(?P<o>[^，。！？]{{1,14}}?(?:{_WORKPLACE}))$")
# a clause of one's own message with 我 left out that moves to a workplace (…离职申请交了，下个月去宁波一家…公司):
# in a chat people drop 我 when announcing it, and nobody else's move is said that way
# (拿到阿里的offer了 too: ZH_OFFER_RULE)
ZH_JOB_MOVE = lazy(
    rf"^(?:(?:{_ZH_SOON})?{_ZH_MOVE}[^，。！？]{{0,12}}?一家|(?:终于|也|刚刚?|已经)?(?:拿到|收到|接到).*offer)"
)
QUESTION_END = lazy(r"(?:吗|么|呢|嘛|不|没)\s*$")

# 我的 before what people have, made the speaker's; not in a title (我的世界 is Minecraft, 我的前半生 a novel)
MY_THING_ZH = lazy(
    r"我的(?:新|前|老|小|大)?(?:老板|领导|上司|同事|朋友|好朋友|闺蜜|兄弟|男朋友|女朋友|对象|老公|老婆|妈妈|爸爸|父母|家人"
    r"|孩子|儿子|女儿|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|室友|同学|老师|猫|狗|宠物|工作|公司|学校|车|房子)"
)
