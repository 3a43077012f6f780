"""What the synthetic persons and their agent say: names, vocabulary, everyday line patterns and
planted fact types with their probe questions, in Chinese and English, and the slot filling that
turns a pattern into a line. The generator that uses them is :mod:`huiyi.evaluation.synthetic`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

Language = Literal["zh", "en"]
Role = Literal["user", "assistant"]

# ------------------------------------------------------------------------------------------------
# vocabulary

ZH_SURNAMES = (
    "王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 林 罗 高"
    " 郑 梁 谢 宋 唐 许 韩 冯 邓 曹 彭 曾 肖 田 董 潘 袁 蔡 蒋 余"
).split()
ZH_GIVEN = (
    "木木 小雨 子涵 欣怡 浩然 梓轩 一诺 思远 雨桐 佳怡 俊杰 晓婷 天宇 诗涵 明轩 若曦 嘉豪 语嫣 博文 可馨"
    " 文静 志强 丽娜 海洋 紫萱 皓轩 婉清 宇航 晨曦 安琪 霓霓 阿哲 小鹿 星辰 沐阳 清欢 思琪 一鸣 书瑶 乐乐"
).split()
EN_FIRST = (
    "Alice Ben Chloe Daniel Emma Felix Grace Henry Isla Jack Kate Leo Mia Noah Olivia Paul Quinn Ruby Sam Tara"
    " Uma Victor Wendy Xavier Yara Zoe Ethan Lily Mason Nora Owen Piper Ryan Sofia Tom Vera Will Amber Caleb Daisy"
).split()
EN_LAST = "Smith Brown Lee Walker Hall Young King Wright Scott Green Baker Adams Nelson Carter Mitchell Turner".split()

_ZH: dict[str, list[str]] = {
    "city": (
        "北京 上海 广州 深圳 杭州 南京 成都 重庆 武汉 西安 苏州 长沙 厦门 青岛 昆明 大连 天津 哈尔滨 贵阳 拉萨"
    ).split(),
    "place": "图书馆 咖啡馆 健身房 商场 公园 电影院 超市 海边 游乐园 博物馆 书店 夜市 火锅店 体育馆 动物园".split(),
    "food": "火锅 烤鸭 小龙虾 麻辣烫 饺子 螺蛳粉 寿司 披萨 煎饼果子 酸菜鱼 肠粉 烧烤 牛肉面 糖醋排骨 奶茶".split(),
    "movie": (
        "星际穿越 千与千寻 霸王别姬 盗梦空间 流浪地球 你好李焕英 大话西游 海上钢琴师"
        " 肖申克的救赎 寻梦环游记 让子弹飞 疯狂动物城"
    ).split(),
    "show": "甄嬛传 琅琊榜 繁花 漫长的季节 狂飙 武林外传 三体 庆余年 隐秘的角落 开端".split(),
    "petname": "豆包 年糕 可乐 布丁 团子 奶盖 橘子 芝麻 汤圆 饭团 花卷 雪球 糯米 咖啡 土豆 馒头 毛毛 球球".split(),
    "animal": "猫 狗 仓鼠 兔子 鹦鹉 金鱼 乌龟".split(),
    "company": (
        "腾讯 阿里 字节跳动 华为 美团 京东 网易 小米 百度 比亚迪 招商银行 一家设计公司 一家外贸公司 一所中学"
    ).split(),
    "job": "产品经理 前端开发 会计 设计师 老师 销售 测试工程师 运营 律师助理 数据分析师 护士 翻译".split(),
    "allergen": "花生 芒果 海鲜 猫毛 花粉 牛奶 鸡蛋 青霉素 尘螨 桃子".split(),
    "exam": "驾照科目二 雅思 考研 教师资格证 注册会计师 期末考试 英语六级 托福 司法考试 计算机二级".split(),
    "weekday": "周一 周二 周三 周四 周五 周六 周日".split(),
    "instrument": "钢琴 吉他 小提琴 尤克里里 古筝 架子鼓 二胡 长笛 萨克斯 琵琶".split(),
    "country": "日本 冰岛 新西兰 意大利 埃及 挪威 秘鲁 希腊 摩洛哥 泰国 土耳其 瑞士".split(),
    "sight": "极光 金字塔 樱花 雪山 马丘比丘 蓝色小镇 热气球 峡湾 古城 沙漠".split(),
    "color": "白色 黑色 红色 蓝色 灰色 银色 绿色 黄色".split(),
    "car": "比亚迪 特斯拉 大众 丰田 本田 理想 小鹏 蔚来 宝马 奥迪".split(),
    "relative": "妹妹 弟弟 姐姐 哥哥 表妹 堂哥".split(),
    "family": "妈妈 爸爸 奶奶 外婆 爷爷 老公 老婆 男朋友 女朋友 室友 同事 闺蜜".split(),
    "feeling": "好累 特别开心 有点焦虑 超级满足 有点失落 很放松 好紧张 心情复杂".split(),
    "weather": "下大雨 特别热 降温了 出太阳了 刮大风 下雪了 雾霾很重".split(),
    "hobby": "跑步 瑜伽 画画 摄影 做饭 钓鱼 爬山 打羽毛球 拼乐高 养多肉 写日记 打游戏".split(),
    "sport": "篮球 足球 羽毛球 乒乓球 游泳 网球".split(),
    "district": "火车站 人民公园 老城区 大学城 江边 菜市场 体育场 老街 中心广场 工业园".split(),
}
_EN: dict[str, list[str]] = {
    "city": "London Paris Berlin Toronto Sydney Boston Seattle Dublin Madrid Lisbon Austin Chicago Denver Oslo".split(),
    "place": "library, cafe, gym, mall, park, cinema, supermarket, beach, museum, bookstore, night market, zoo".split(
        ", "
    ),
    "food": "ramen, tacos, sushi, pizza, curry, dumplings, pancakes, burgers, pho, lasagna, fish and chips".split(", "),
    "movie": "Interstellar, Spirited Away, Inception, Paddington 2, The Matrix, Up, Amelie, Coco, Arrival, Jaws".split(
        ", "
    ),
    "show": "Friends, The Office, Breaking Bad, Succession, The Bear, Fleabag, Severance, Ted Lasso".split(", "),
    "petname": "Biscuit Pepper Mochi Luna Olive Waffles Nugget Clover Pickles Ziggy Hazel Maple Pumpkin Toffee".split(),
    "animal": "cat dog hamster rabbit parrot goldfish turtle".split(),
    "company": "a bank, a startup, the city council, a hospital, a law firm, a game studio, a bakery, a school".split(
        ", "
    ),
    "job": "nurse, designer, accountant, teacher, developer, chef, sales manager, data analyst, librarian".split(", "),
    "allergen": "peanuts, shellfish, cats, pollen, penicillin, dust mites, strawberries, kiwi, sesame".split(", "),
    "exam": "driving test, bar exam, calculus final, chemistry midterm, GRE, nursing boards, piano grade".split(", "),
    "weekday": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(),
    "instrument": "piano guitar violin cello ukulele drums saxophone flute trumpet harp".split(),
    "country": "Japan, Iceland, New Zealand, Italy, Peru, Norway, Greece, Morocco, Portugal, Chile".split(", "),
    "sight": "the northern lights, the pyramids, cherry blossoms, the fjords, Machu Picchu, the old town".split(", "),
    "color": "white black red blue grey silver green yellow".split(),
    "car": "Toyota Honda Tesla Volkswagen Subaru Mazda Ford Volvo Kia Hyundai".split(),
    "relative": "sister brother cousin".split(),
    "family": "mom, dad, grandma, husband, wife, boyfriend, girlfriend, roommate, coworker, best friend".split(", "),
    "feeling": "exhausted, really happy, a bit anxious, so relaxed, kind of down, super excited, nervous".split(", "),
    "weather": "pouring rain, really hot, freezing, finally sunny, so windy, snowing".split(", "),
    "hobby": "running, yoga, painting, photography, baking, fishing, hiking, knitting, gaming, gardening".split(", "),
    "sport": "basketball soccer badminton tennis swimming volleyball".split(),
    "district": "Riverside, Old Town, Hillcrest, Westfield, Harbor View, Maple Street, Elm Park".split(", "),
}
_MONTHS_EN = "January February March April May June July August September October November December".split()

# ------------------------------------------------------------------------------------------------
# everyday lines: (topic, pattern); slots are the vocabulary keys above, plus {n} (a small number),
# {clock} (an hour), {month}/{day}

ZH_USER: list[tuple[str, str]] = [
    ("work", "今天又加班到{clock}点，{feeling}"),
    ("work", "老板说下个月要派我去{city}出差"),
    ("work", "{family}说我最近工作太拼了"),
    ("work", "开了一下午的会，{feeling}"),
    ("work", "这周终于把那个项目交付了"),
    ("food", "今天中午吃了{food}，{feeling}"),
    ("food", "晚上和{family}去吃{food}了"),
    ("food", "我在学做{food}，失败了{n}次"),
    ("food", "楼下新开了一家{food}店，排了好久的队"),
    ("pet", "{family}家的{animal}今天把杯子打翻了"),
    ("pet", "路上看到一只{animal}，好可爱"),
    ("pet", "我在考虑要不要养一只{animal}"),
    ("movie", "周末和{family}去看了《{movie}》"),
    ("movie", "最近在追《{show}》，停不下来"),
    ("movie", "昨晚熬夜把《{show}》看完了"),
    ("exam", "{family}下个月要考{exam}"),
    ("exam", "今天在图书馆复习了{n}个小时"),
    ("family", "{family}今天打电话问我什么时候回家"),
    ("family", "周末要陪{family}去医院复查"),
    ("family", "和{family}吵了一架，{feeling}"),
    ("travel", "五一想去{city}玩，你觉得怎么样"),
    ("travel", "刚从{city}回来，{feeling}"),
    ("travel", "{family}去{country}玩了，给我带了礼物"),
    ("hobby", "今天去{place}{hobby}了"),
    ("hobby", "最近迷上了{hobby}，每天都想练"),
    ("hobby", "下班后去打了{n}个小时的{sport}"),
    ("weather", "{city}今天{weather}，{feeling}"),
    ("weather", "今天{weather}，都不想出门"),
    ("health", "最近睡眠不太好，每天{clock}点才睡"),
    ("health", "感冒了，头好痛"),
    ("health", "今天去体检了，医生说要多运动"),
    ("daily", "在{place}待了一下午，{feeling}"),
    ("daily", "今天地铁好挤，差点迟到"),
    ("daily", "周末打算在家大扫除"),
    ("daily", "刚在网上买了{n}本书"),
    ("car", "今天开车去{city}，堵了{n}个小时"),
    ("music", "今天在{place}听到有人弹{instrument}，好好听"),
    ("allergy", "{family}吃了{allergen}以后身上起了疹子"),
]
EN_USER: list[tuple[str, str]] = [
    ("work", "Stayed at work until {clock} again, {feeling}"),
    ("work", "My boss wants me to go to {city} next month"),
    ("work", "Three meetings back to back today, {feeling}"),
    ("work", "We finally shipped the project this week"),
    ("food", "Had {food} for lunch today, {feeling}"),
    ("food", "Went out for {food} with my {family} tonight"),
    ("food", "I tried to cook {food} and failed {n} times"),
    ("pet", "My {family}'s {animal} knocked my mug over today"),
    ("pet", "Saw the cutest {animal} on my way home"),
    ("pet", "Thinking about adopting a {animal}"),
    ("movie", "Watched {movie} with my {family} this weekend"),
    ("movie", "I'm binge watching {show} right now"),
    ("exam", "My {family} has the {exam} next month"),
    ("exam", "Studied at the library for {n} hours today"),
    ("family", "My {family} called to ask when I'm coming home"),
    ("family", "Had a fight with my {family}, {feeling}"),
    ("travel", "Thinking of a trip to {city} in May, what do you think"),
    ("travel", "Just got back from {city}, {feeling}"),
    ("hobby", "Went to the {place} for some {hobby} today"),
    ("hobby", "I've been really into {hobby} lately"),
    ("hobby", "Played {sport} for {n} hours after work"),
    ("weather", "It's {weather} in {city} today, {feeling}"),
    ("health", "I haven't been sleeping well, I go to bed at {clock}"),
    ("health", "Caught a cold, my head hurts"),
    ("daily", "Spent the whole afternoon at the {place}, {feeling}"),
    ("daily", "The train was packed, almost late for work"),
    ("daily", "Just ordered {n} books online"),
    ("car", "Drove to {city} today and sat in traffic for {n} hours"),
    ("music", "Someone was playing the {instrument} at the {place}, so nice"),
    ("allergy", "My {family} broke out in a rash after eating {allergen}"),
]
ZH_ASSISTANT: list[tuple[str, str]] = [
    ("reply", "听起来真不错！后来呢？"),
    ("reply", "那你一定要注意休息哦。"),
    ("reply", "哈哈，下次带我一起去吧。"),
    ("reply", "加油，你一定可以的！"),
    ("reply", "抱抱你，别太累了。"),
    ("reply", "嗯嗯，我记住啦。"),
    ("reply", "真的吗？好厉害！"),
    ("reply", "早点睡，明天还要早起呢。"),
    ("reply", "{food}听起来好好吃，我也想尝尝。"),
    ("reply", "{city}我一直很想去看看。"),
    ("reply", "要不要跟我说说发生了什么？"),
    ("reply", "我一直都在，有什么都可以跟我说。"),
    ("reply", "你今天{feeling}的话，就好好犒劳一下自己吧。"),
    ("reply", "《{movie}》我也很喜欢，结局太好哭了。"),
]
EN_ASSISTANT: list[tuple[str, str]] = [
    ("reply", "That sounds lovely! What happened next?"),
    ("reply", "Make sure you get some rest, okay?"),
    ("reply", "Haha, take me with you next time."),
    ("reply", "You've got this, I believe in you!"),
    ("reply", "Sending you a big hug."),
    ("reply", "Got it, I'll remember that."),
    ("reply", "Really? That's amazing!"),
    ("reply", "{food} sounds delicious, I'm jealous."),
    ("reply", "I've always wanted to see {city}."),
    ("reply", "Do you want to tell me what happened?"),
    ("reply", "I'm always here if you want to talk."),
    ("reply", "{movie} is one of my favourites too."),
]


@dataclass(frozen=True)
class FactType:
    """A planted fact and the question that should recall it, in one language."""

    group: str
    fact: str
    query: str


ZH_FACTS: list[FactType] = [
    FactType("pet", "对了，我家的猫叫{petname}，今年{n}岁了", "我家猫叫什么名字来着？"),
    FactType("birthday", "我的生日是{month}月{day}号，别忘了哦", "你还记得我的生日是哪天吗？"),
    FactType("work", "我现在在{company}上班，做{job}", "我是做什么工作的？"),
    FactType("movie", "我最喜欢的电影是《{movie}》，看了好几遍", "我最爱的电影是哪一部？"),
    FactType("allergy", "我对{allergen}过敏，一碰就起疹子", "我对什么东西过敏？"),
    FactType("exam", "我下{weekday}要考{exam}，好紧张啊", "我的考试是什么时候？"),
    FactType("sibling", "我{relative}叫{given}，在{city}读大学", "我{relative}在哪个城市上学？"),
    FactType("hometown", "我老家在{city}，小时候住在{district}附近", "我是在哪里长大的？"),
    FactType("car", "我刚买了一辆{color}的{car}", "我新买的车是什么样的？"),
    FactType("instrument", "我最近在学{instrument}，每{weekday}上课", "我最近在学哪种乐器？"),
    FactType("dish", "我最爱吃的是{food}，每周都要吃一次", "我最喜欢吃什么？"),
    FactType("dream", "我一直想去{country}旅行，特别想看{sight}", "我最想去哪个国家旅游？"),
]
EN_FACTS: list[FactType] = [
    FactType("pet", "By the way, my cat is called {petname}, she's {n} years old", "What's my cat's name again?"),
    FactType("birthday", "My birthday is on {month_en} {day}, don't forget!", "Do you remember when my birthday is?"),
    FactType("work", "I work at {company} as a {job} now", "What do I do for a living?"),
    FactType(
        "movie", "My all-time favourite film is {movie}, I've seen it so many times", "Which film do I love most?"
    ),
    FactType("allergy", "I'm allergic to {allergen}, I break out in hives", "What am I allergic to?"),
    FactType("exam", "I have my {exam} next {weekday}, so nervous", "When is my exam?"),
    FactType("sibling", "My {relative} {given} is at university in {city}", "Where does my {relative} study?"),
    FactType("hometown", "I grew up in {city}, near {district}", "Where did I grow up?"),
    FactType("car", "I just bought a {color} {car}", "What kind of car did I buy?"),
    FactType("instrument", "I've started {instrument} lessons every {weekday}", "Which instrument am I learning?"),
    FactType("dish", "{food} is my favourite food, I have it every week", "What's my favourite food?"),
    FactType(
        "dream", "I've always wanted to travel to {country} to see {sight}", "Which country do I dream of visiting?"
    ),
]
FACT_GROUPS: tuple[str, ...] = tuple(f.group for f in ZH_FACTS)

_SLOT = re.compile(r"\{(\w+)\}")


def fill_slots(pattern: str, language: Language, rng: random.Random, values: dict[str, str] | None = None) -> str:
    """Fill the slots; ``values`` (updated in place) holds slots already chosen."""
    vocab = _ZH if language == "zh" else _EN
    values = {} if values is None else values

    def value(match: re.Match[str]) -> str:
        slot = match.group(1)
        if slot not in values:
            if slot == "n":
                values[slot] = str(rng.randint(2, 9))
            elif slot == "clock":
                values[slot] = str(rng.randint(8, 12) if language == "en" else rng.randint(20, 23))
            elif slot == "month":
                values[slot] = str(rng.randint(1, 12))
            elif slot == "month_en":
                values[slot] = rng.choice(_MONTHS_EN)
            elif slot == "day":
                values[slot] = str(rng.randint(1, 28))
            elif slot == "given":
                values[slot] = rng.choice(ZH_GIVEN if language == "zh" else EN_FIRST)
            else:
                values[slot] = rng.choice(vocab[slot])
        return values[slot]

    return _SLOT.sub(value, pattern)
