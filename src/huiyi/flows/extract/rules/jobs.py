"""I'm a lawyer, 我是律师: an English "I'm a …" whose noun is a job is the speaker's job, a fact of the kind
"I work as a teacher" says (``works as``), so a new one ends the old (closes.ONE_AT_A_TIME), as 我在律所当律师
ends 我在学校当老师. Other things one is (a vegetarian, a mess, a night owl) stay who one is.

>>> job_title("a lawyer"), job_title("an ER nurse"), job_title("a vegetarian"), job_title("a night owl")
(True, True, False, False)
>>> job_title("a teacher at Lincoln High"), job_title("lawyer"), job_title("a big fan of lawyers")
(True, False, False)

Nor is how well one does a thing, a job left or wished for, or someone else's ("a fan of the writer"):

>>> job_title("a terrible cook"), job_title("a retired nurse"), job_title("a friend of a lawyer")
(False, False, False)
>>> job_title("a professor of biology"), job_title("a freelance writer")
(True, True)

Chinese alike: 我是律师 after 我是老师 is a new job (``职业是``), 我是急诊科护士 too; 我是学生, 我是会员 and
我是一个人 are who one is, not a job (a student may work besides: nothing of theirs is closed).

>>> zh_job_title("一名律师"), zh_job_title("急诊科护士"), zh_job_title("程序员了"), zh_job_title("学生")
(True, True, True, False)
>>> zh_job_title("会员"), zh_job_title("一个人"), zh_job_title("老师的好朋友"), zh_job_title("律师事务所的")
(False, False, False, False)
>>> zh_job_title("老司机了"), zh_job_title("新手司机"), zh_job_title("滴滴司机")
(False, False, True)

A title the list has not, by how titles end: one in charge (护士长, 店长), a trade in 师 or 员 (美甲师, 调酒师,
售货员); not who one is in a club, a party or a game (会员, 队员, 党员, 召唤师), a school's head of class (班长)
nor a job left or to come (退休老师, 准医生). Who one is said with 的 is a job where 的 tells which (新来的老师,
三甲医院的医生), not whose (你的老师):

>>> zh_job_title("护士长"), zh_job_title("美甲师"), zh_job_title("售货员"), zh_job_title("店长了")
(True, True, True, True)
>>> zh_job_title("超级会员"), zh_job_title("召唤师"), zh_job_title("班长"), zh_job_title("团队的一员")
(False, False, False, False)
>>> zh_job_title("退休老师"), zh_job_title("准医生"), zh_job_title("前端"), zh_job_title("学生会的")
(False, False, True, False)
>>> zh_job_title("新来的老师"), zh_job_title("三甲医院的医生"), zh_job_title("你的老师"), zh_job_title("家长")
(True, True, False, False)
"""

from __future__ import annotations

import re

from huiyi.flows.extract.rules.patterns import FactRule
from huiyi.model import FactKind

__all__ = ["AT_HOME", "EN_JOBS", "ZH_JOBS", "ZH_JOB_AS", "job_rule", "job_title", "zh_job_as", "zh_job_title"]

# the last word of a job said as "a …": a small list, not every "-er" (a runner, a gamer and a mother are none)
EN_JOBS = frozenset(
    """
    accountant actor actress analyst architect artist attorney baker banker barber barista bartender carpenter
    cashier chef cleaner clerk coach consultant cook counselor dentist designer developer doctor driver economist
    editor electrician engineer farmer firefighter journalist judge lawyer lecturer librarian manager mechanic
    midwife musician nurse paralegal paramedic pharmacist photographer physician physiotherapist pilot plumber
    policeman policewoman professor programmer psychologist realtor receptionist reporter researcher salesman
    saleswoman scientist secretary surgeon tailor teacher technician therapist translator tutor veterinarian vet
    waiter waitress writer
    """.split()
)
# what 我是… ends with when it is a job: a list too (我是会员, 我是学生 and 我是一个人 are none)
ZH_JOBS = tuple(
    sorted(
        """
        老师 教师 律师 医生 大夫 护士 程序员 工程师 设计师 会计 会计师 出纳 司机 厨师 记者 警察 编辑 作家 画家 歌手 演员
        模特 主播 教授 讲师 公务员 服务员 销售 店员 收银员 快递员 外卖员 骑手 保安 保姆 月嫂 翻译 药剂师 药师 兽医 牙医
        建筑师 摄影师 理发师 化妆师 咨询师 分析师 产品经理 经理 总监 老板 农民 工人 电工 木匠 法官 检察官 飞行员 机长
        空姐 空乘 导游 教练 研究员 科学家 消防员 军人 律所合伙人 幼师 心理咨询师 营养师 策划 运营 测试 前端 后端 后厨
        """.split(),
        key=len,
        reverse=True,
    )
)
# the heads of a workplace or of its part, whose title ends in 长 (班长, 家长, 学长 are none)
_ZH_HEADS = "护士长 厨师长 店长 校长 院长 园长 厂长 行长 所长 科长 处长 局长 部长 董事长 列车长 船长 站长 社长".split()
# titles in 师 or 员 that are no work: a club's, a party's, a game's, a master's, a class's or a chat group's
# (学习委员, 群管理员: a group chat's admin says so often, and it ended the job)
_ZH_NOT_TRADE = re.compile(
    r"(?:会员|成员|党员|团员|队员|学员|社员|组员|群员|一员|委员|大师|法师|巫师|召唤师|军师|宗师|祖师)$|群管理?员$"
)
# a job left or not yet had: 退休老师, 以前是护士 (said 以前), 准医生, 前同事; 前端 and 前台 are jobs
_ZH_NOT_NOW = re.compile(r"退休|离职|曾经|以前|过去|未来|将来|梦想|^(?:一名|一个|一位)?(?:前(?![端台])|准)")
_ZH_WHOSE = re.compile(r"^(?:你|他|她|它|我|咱|人家|别人)")
_ZH_TAIL = re.compile(r"[了啦呀啊哦嘛呢~～]+$")
# a driver of some years or none is how one drives, not a job: 开车我是老司机了 ends no teacher's job; an
# 打工人 is anyone who works
_ZH_NO_JOB = re.compile(r"(?:老|新手|新)司机$|打工人$")
# "a teacher at Lincoln High", "a professor of biology": the job is said before where or of what; "a fan of
# the writer" is then no job
_WHERE = re.compile(r"\s+(?:at|for|in|with|of)\s+.*$", re.IGNORECASE)
# what may follow the job and leave it one (I'm a teacher now lol)
_SINCE = re.compile(r"(?:\s+(?:now|nowadays|these\s+days|again|too|as\s+well|full[- ]time|part[- ]time))+$", re.I)
# words before the job that make it none of one's work now: how well (I'm a terrible cook, a good driver), or a
# job left or not yet had (a former teacher, a retired nurse, an aspiring writer): "works as" would end the job
_NOT_WORK = frozenset(
    """
    good bad terrible awful horrible lousy decent great amazing excellent fantastic better worse best worst
    born natural fast slow careful careless crazy backseat former ex retired aspiring wannabe would-be future
    """.split()
)


def job_title(obj: str) -> bool:
    """Whether ``obj`` (an "I'm …" object, article and all) is a job: "a"/"an" and a noun of ``EN_JOBS`` last."""
    words = [word.lower() for word in _SINCE.sub("", _WHERE.sub("", obj)).split()]
    return (
        len(words) >= 2
        and words[0] in ("a", "an")
        and words[-1] in EN_JOBS
        and not any(word in _NOT_WORK or word.startswith("ex-") for word in words[1:-1])
    )


def zh_job_title(obj: str) -> bool:
    """Whether ``obj`` (a 我是… object) ends with a job of ``ZH_JOBS``, what goes before it naming which
    (一名, 急诊科, 前端): not a job's belongings (律师事务所的) nor someone else's (老师的好朋友)."""
    words = _ZH_TAIL.sub("", obj)
    which, of, words = words.rpartition("的")
    if (of and not which) or _ZH_WHOSE.match(which or words):
        return False  # 律师事务所的, 你的老师, 你老师: whose, not which
    if _ZH_NO_JOB.search(words) or _ZH_NOT_NOW.search(which + words) or _ZH_NOT_TRADE.search(words):
        return False
    if any(words.endswith(job) for job in (*ZH_JOBS, *_ZH_HEADS)):
        return True
    return len(words) >= 2 and words[-1] in "师员"


# 我在律所当律师, 我转行做律师了, 我现在当护士长: the job held, said with a verb (the workplace, if any, is
# 工作于's too); 当过, 当了三年 and 想当 are a job had or wished for, and a title with what follows (当老师的时候)
# is no job (zh_job_title)
# 当 and 做 of other words (当面, 当时, 当然, 做梦, 做完), and a held that names another deed (我当面问了老师, 我做梦
# 都想当老师) are no job; 当上了经理 is
_NOT_AS = "面|时|场|初|然|天|晚|众|真|作|成|心|地|即|年|着|梦|完|饭"
# what one does as well as who does it: 在杭州做后端 is the work one does (a 程序员's), not a second job
_ZH_FIELD = re.compile(r"(?:前端|后端|测试|运营|策划|销售|翻译|编辑|会计|后厨)$")
# a role held in a chat group, a class or a game (我在群里当管理员) is no job
_NOT_A_WORKPLACE = re.compile(r"群|班里|班上|游戏|社团|学生会|宿舍|家里")
# 我在家上班, 在宿舍办公: working from where one lives says no employer nor place of work
AT_HOME = re.compile(r"(?:自己)?(?:家|家里|家中|宿舍|寝室|出租屋|屋里)")
ZH_JOB_AS = FactRule(
    re.compile(
        r"我(?:现在|目前|如今|已经|也)*(?P<at>在[^，。！？的]{1,12}?)?"
        rf"(?:(?:转行|改行|转岗)(?:去|来)?(?:做|当)了?|当上了?|(?P<v>做|当|担任)(?!过|了|{_NOT_AS}))"
        r"(?P<o>(?:(?![了是想就都把被给以])[^，。！？]){1,10}?)[了啦呀啊]*$"
    ),
    "职业是",
    FactKind.ATTRIBUTE,
    "工作",
    "{s}是{o}",
    confidence=0.7,
)


def zh_job_as(clause: str) -> re.Match[str] | None:
    """The match of ``ZH_JOB_AS`` in ``clause`` (from its 我) when what is held is a job.

    >>> [bool(zh_job_as(c)) for c in ("我在律所当律师", "我转行做律师了", "我现在当护士长", "我在家做饭")]
    [True, True, True, False]
    >>> [bool(zh_job_as(c)) for c in ("我在杭州做后端", "我转行做后端了", "我在公司当会计", "我在群里当管理员")]
    [False, True, True, False]
    >>> [bool(zh_job_as(c)) for c in ("我当过老师", "我当了三年老师", "我想当老师", "我当老师的时候", "我当你老师")]
    [False, False, False, False, False]
    """
    match = ZH_JOB_AS.pattern.match(clause)
    if match is None or not zh_job_title(match["o"]) or _NOT_A_WORKPLACE.search(match["at"] or ""):
        return None
    return None if match["v"] == "做" and _ZH_FIELD.search(match["o"]) else match


def job_rule(rule: FactRule, obj: str) -> FactRule:
    """``rule`` as a job's (``works as`` / ``职业是``, keyword work / 工作) when it read who one is (identity,
    身份) and ``obj`` is a job; its text stays as said (Mia is a lawyer, 木木是律师)."""
    if rule.keyword == "identity" and job_title(obj):
        predicate, keyword = "works as", "work"
    elif rule.keyword == "身份" and zh_job_title(obj):
        predicate, keyword = "职业是", "工作"
    else:
        return rule
    return FactRule(
        rule.pattern,
        predicate,
        FactKind.ATTRIBUTE,
        keyword,
        rule.description,
        confidence=rule.confidence,
        # a job of the list is a noun phrase whatever goes before it (新来的老师 opens with a verb)
        noun_object=rule.noun_object and keyword != "工作",
    )
