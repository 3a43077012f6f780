"""Facts the rules read wrong or not at all from plain Chinese chat lines: a pet told of with 那只, the speaker
among two who work somewhere, a job of years gone by, 叫 that tells someone to do something."""

from __future__ import annotations

from datetime import datetime

import pytest

from rule_lines import extract_private
from test_rule_subjects import SCOPE, described, extract


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("我养的那只猫叫豆豆", {"木木养了一只猫，叫豆豆", "豆豆是木木的猫"}),
        ("我家那只狗叫旺财", {"木木养了一只狗，叫旺财", "旺财是木木的狗"}),
        ("我家的那只猫叫咪咪", {"木木养了一只猫，叫咪咪", "咪咪是木木的猫"}),
        ("我养的那条狗", {"木木养了一条狗"}),
    ],
)
def test_a_pet_told_of_with_that_one_is_a_pet(text: str, facts: set[str]) -> None:
    """那只 between 养的 / 我家 and the animal read no pet, where 我养的猫叫豆豆 did."""
    assert facts <= described(extract(text)), described(extract(text))


@pytest.mark.parametrize("text", ["我养的那只狗很乖", "我家那只猫"])
def test_that_one_alone_or_a_clause_about_it_is_no_pet(text: str) -> None:
    assert not any("养了" in fact for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我同学和我都在上海上班", "木木在上海工作"),
        ("我和我同学都在上海上班", "木木在上海工作"),
        ("小雨和我都住在杭州", "木木住在杭州"),
        ("我妈和我都是老师", "木木是老师"),
    ],
)
def test_what_the_speaker_and_another_both_do_is_the_speakers(text: str, fact: str) -> None:
    """The 我 read first was the one of 我同学, or 和我同学都 stood between 我 and what was done."""
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize("text", ["我同学在上海上班", "我妈和我说她喜欢猫", "我和朋友去成都玩"])
def test_what_another_does_is_not_the_speakers(text: str) -> None:
    assert not any(fact.startswith("木木") for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize(
    "text",
    [
        "我在腾讯当产品经理的那几年",
        "我在腾讯上班那会儿",
        "我在腾讯当产品经理的时候",
        "以前我在腾讯工作",
        "那时候我在腾讯上班",
        "小时候我住在北京",
        "我住在北京的时候很开心",  # was 木木住在北京的时候很开心
    ],
)
def test_a_job_or_home_of_a_time_gone_by_is_none_now(text: str) -> None:
    """Each was 木木在腾讯工作 (or 木木住在北京): told to the chat model as the job now, closing the one held."""
    assert not any("腾讯" in fact or "北京" in fact for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我在腾讯当产品经理", "木木在腾讯工作"),
        ("我在腾讯工作比以前累", "木木在腾讯工作"),
        ("睡觉之前我喜欢看书", "木木喜欢看书"),
    ],
)
def test_a_job_now_and_a_habit_stay(text: str, fact: str) -> None:
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    "text", ["我爸叫周末回家", "我妈叫明天过来", "我哥叫周一回来", "我爸叫我回家", "我妈叫我早点睡"]
)
def test_told_to_do_something_is_no_name(text: str) -> None:
    """叫 is "told to": 我爸叫周末回家 was 周末回家是木木的爸 (周 is a surname, so it looked like a name)."""
    assert not any(fact.endswith(("的爸", "的妈", "的哥")) for fact in described(extract(text))), described(
        extract(text)
    )


@pytest.mark.parametrize(
    ("text", "fact"),
    [("我爸叫王建国", "王建国是木木的爸"), ("我妹妹叫小雨", "小雨是木木的妹妹"), ("我女儿叫夏天", "夏天是木木的女儿")],
)
def test_a_family_members_name_stays(text: str, fact: str) -> None:
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("过去三年我一直住在杭州", "木木住在杭州"),
        ("过去两年我在字节工作", "木木在字节工作"),
        ("过去的一年我一直在腾讯上班", "木木在腾讯工作"),
    ],
)
def test_a_span_of_time_that_runs_to_now_keeps_the_job_or_home(text: str, fact: str) -> None:
    """过去三年 is the three years up to now, read as 过去 (in the past) it made the home or job none."""
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("之前跟你说过我在腾讯上班", "木木在腾讯工作"),
        ("之前忘了跟你说我住在杭州", "木木住在杭州"),
        ("以前没告诉你我住在杭州", "木木住在杭州"),
        ("之前跟你提过我养了一只猫", "木木养了一只猫"),
    ],
)
def test_a_time_gone_by_of_the_telling_keeps_what_was_told(text: str, fact: str) -> None:
    """之前 told when it was said, not when it held; it made the job, home or pet none."""
    assert fact in described(extract(text)), described(extract(text))


def test_a_time_gone_by_after_a_telling_still_makes_it_then() -> None:
    assert not any("腾讯" in fact for fact in described(extract("跟你说以前我在腾讯工作")))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("以前那家公司倒闭了我现在在腾讯上班", "木木在腾讯工作"),
        ("之前的工作太累了我现在在字节上班", "木木在字节工作"),
        ("以前我在北京上班现在我在上海上班", "木木在上海工作"),
    ],
)
def test_a_time_gone_by_of_a_clause_before_keeps_the_job_now(text: str, fact: str) -> None:
    """Chat runs clauses on with no comma: the 以前 of the first made the job now, said after it, none."""
    facts = described(extract(text))
    assert fact in facts and not any("北京" in each for each in facts), facts


@pytest.mark.parametrize("text", ["我跟男朋友都住在一起了", "我和他都住一起两年了", "我室友和我都住一块"])
def test_what_two_do_together_is_no_home(text: str) -> None:
    """都 here is "already": read as the speaker's alone it stored 木木住在一起."""
    assert not any("一起" in fact or "一块" in fact for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我老公叫周一鸣", "周一鸣是木木的老公"),
        ("我儿子叫周一航", "周一航是木木的儿子"),
        ("我老婆叫夏天宇", "夏天宇是木木的老婆"),
    ],
)
def test_a_name_that_begins_with_a_time_stays(text: str, fact: str) -> None:
    """周一鸣 is cut 周一 (Monday) and 鸣: taken for a time and more, as 周末回家, the name was lost."""
    assert fact in described(extract(text)), described(extract(text))


def test_a_time_and_a_coming_is_no_name() -> None:
    assert not any(fact.endswith("的妈") for fact in described(extract("我妈叫周日来"))), described(
        extract("我妈叫周日来")
    )


@pytest.mark.parametrize(
    "text",
    [
        "我家那只猫叫了一晚上",
        "我养的那只狗叫个不停",
        "我家那只狗叫得好凶",
        "我养的那只猫叫什么来着",
        "我养的猫叫了一晚上",
        "我家有只狗叫个不停",
        "我养的猫叫声很好听",
    ],
)
def test_an_animals_cry_is_no_name(text: str) -> None:
    """叫 is the cry: 我家那只猫叫了一晚上 was 了一晚上是木木的猫, or the pet 狗叫个不停."""
    facts = described(extract(text))
    assert not any("是木木的" in fact or "叫" in fact for fact in facts), facts


def test_a_pet_named_after_that_one_still_is() -> None:
    assert "豆豆是木木的猫" in described(extract("我家那只猫叫豆豆"))


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("我养的猫咪叫团子呀", {"团子是木木的猫咪"}),  # was 团子呀是木木的猫咪
        ("我养了一只狗，叫旺财哈", {"旺财是木木的狗"}),
        ("我养了一只猫，叫了一晚上", {"木木养了一只猫"}),  # was 了一晚上是木木的猫
    ],
)
def test_a_pet_s_name_is_neither_its_particle_nor_its_cry(text: str, facts: set[str]) -> None:
    found = described(extract(text))
    assert facts <= found and not any(fact.startswith(("了", "团子呀", "旺财哈")) for fact in found), found


def test_a_pet_calling_someone_is_no_name() -> None:
    """我养的那只鹦鹉叫我妈 was 我妈是木木的鹦鹉."""
    assert not any(fact.startswith("我妈") for fact in described(extract("我养的那只鹦鹉叫我妈")))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我都在上海工作三年了", "木木在上海工作"),  # 都/已经: already, and no job was read
        ("我已经在腾讯上班两年了", "木木在腾讯工作"),
        ("我都住在杭州十年了", "木木住在杭州"),
        ("我住在杭州十年了", "木木住在杭州"),  # was 木木住在杭州十年
    ],
)
def test_a_job_or_home_held_for_years_is_held_now(text: str, fact: str) -> None:
    found = described(extract(text))
    assert fact in found and not any("年" in f for f in found), found


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("我养了一只哈士奇，叫二哈", "二哈是木木的哈士奇"),  # was 二是木木的哈士奇: 哈 taken for a particle
        ("我养了一只猫，叫啦啦", "啦啦是木木的猫"),  # was 啦是木木的猫
        ("我养了一只猫，它叫起司呀", "起司是木木的猫"),  # was no name: 叫起 taken for a cry
        ("我养的猫叫起司", "起司是木木的猫"),
    ],
)
def test_a_pet_s_name_ending_in_a_particle_s_letter_or_starting_with_qi_is_whole(text: str, name: str) -> None:
    found = described(extract(text))
    assert name in found, found


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我在酒店上班住宿舍的时候很方便", "木木在酒店工作"),  # a stay told of at a job now, not the job's then
        ("我在北京工作出差住酒店的时候可以报销", "木木在北京工作"),
    ],
)
def test_a_stay_told_as_a_time_does_not_make_the_job_past(text: str, fact: str) -> None:
    assert fact in described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我叫王一天", "木木说自己叫王一天"),  # was 木木说自己叫王: 一天 cut as how long
        ("我女朋友叫李一天", "李一天是木木的女朋友"),  # was no fact
        ("我最喜欢的歌是陈奕迅的十年", "木木最喜欢的歌是陈奕迅的十年"),  # a song, was 陈奕迅的
    ],
)
def test_a_name_or_title_ending_in_a_span_keeps_it(text: str, fact: str) -> None:
    assert fact in described(extract(text))


@pytest.mark.parametrize(
    "text",
    ["我还在找工作", "我已经在准备找工作了", "我还在考虑换工作", "我都在网上找工作", "我都住腻了", "我已经住习惯了"],
)
def test_job_hunting_or_being_tired_of_a_place_is_no_job_or_home(text: str) -> None:
    """Since 都/已经/还 may come before 在 and 住: 我还在找工作 was the job 找, 我都住腻了 the home 腻了."""
    assert not any(fact.startswith(("木木在", "木木住在")) for fact in described(extract(text)))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("以前我就喜欢猫，现在也喜欢", "木木喜欢猫"),  # was no fact: 以前 made it a liking gone by
        ("以前我喜欢猫，现在还是很喜欢", "木木喜欢猫"),
        ("以前我在腾讯上班，现在也在", "木木在腾讯工作"),
    ],
)
def test_a_then_the_clause_after_says_still_holds_is_now(text: str, fact: str) -> None:
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize("text", ["以前我喜欢猫，现在不喜欢了", "以前我喜欢猫，现在也没那么喜欢了", "以前我喜欢猫"])
def test_a_then_not_said_to_hold_still_is_no_liking_now(text: str) -> None:
    assert not any(fact.startswith("木木喜欢") for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize("text", ["我和你都是人", "我是人", "我只是个普通人", "我是个正常人"])
def test_being_human_is_no_identity(text: str) -> None:
    """我和你都是人 was 木木是人: being human says nothing of who one is."""
    assert not any(fact.startswith("木木是") for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize(("text", "fact"), [("我和你都是射手座", "木木是射手座"), ("我跟你都是学生", "木木是学生")])
def test_what_the_speaker_shares_with_the_listener_is_the_speakers(text: str, fact: str) -> None:
    # a review: 我和你都是射手座 gave no fact once being alike the listener was read as no one's
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    "text", ["我在家上班", "我现在在家办公", "我在家工作", "我在家里上班", "我在宿舍上班", "我一直在家工作"]
)
def test_working_from_home_is_no_workplace(text: str) -> None:
    """我在家上班 was 木木在家工作 with 工作于 家: where one works from, not whom for."""
    found = extract(text).facts
    assert not any(fact.predicate == "工作于" for fact in found), described(extract(text))


def test_a_workplace_near_home_still_is_one() -> None:
    assert "木木在家附近的医院工作" in described(extract("我在家附近的医院上班"))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我住在杭州十年啦", "木木住在杭州"),  # was 木木住在杭州十年
        ("我住在杭州十年", "木木住在杭州"),
        ("我住在上海好多年了", "木木住在上海"),
        ("我在北京工作两个月啦", "木木在北京工作"),
        ("我都在上海工作三年了", "木木在上海工作"),
    ],
)
def test_how_long_a_home_or_job_has_lasted_is_not_its_place(text: str, fact: str) -> None:
    found = described(extract(text))
    assert fact in found and not any("年" in f or "月" in f for f in found), found


@pytest.mark.parametrize(
    ("text", "fact"),
    [("我养的猫叫了一晚上", "木木养了一只猫"), ("我养的那只狗叫个不停", "木木养了一只狗")],
)
def test_a_pet_crying_is_still_a_pet(text: str, fact: str) -> None:
    """我养的猫叫了一晚上 read no pet, and at ten in the morning the plan 养的猫叫了一晚上 (its 晚上 counted)."""
    found = extract_private(SCOPE, [text], datetime(2024, 11, 15, 10, 0)).facts
    assert fact in {f.description for f in found} and not any(f.predicate == "计划" for f in found), found


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我家狗子今天又拆家了", "木木养了一只狗"),
        ("我家猫咪又掉毛了", "木木养了一只猫"),
        ("我家主子又在叫了", "木木养了一只猫"),
        ("我家喵星人", "木木养了一只猫"),
        ("我家汪星人", "木木养了一只狗"),
        ("我家的猫是橘猫", "木木养了一只猫"),
        ("我家主子叫团子", "木木养了一只猫，叫团子"),
        ("我家兔子最近不爱吃东西", "木木养了一只兔子"),
    ],
)
def test_a_pet_told_of_as_the_homes_is_a_pet(text: str, fact: str) -> None:
    """我家 and the animal (or what people call theirs: 狗子, 主子, 喵星人) read no pet unless a name followed."""
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    "text",
    [
        "我家孩子又在闹了",
        "我家那位今天加班",
        "我家老公又在打游戏",
        "我家宝宝今天会叫妈妈了",
        "我家猫砂用完了",
        "我家狗粮又涨价了",
        "我家狗狗走了",
        "我家猫去世了",
        "我家狗不见了",
        "我家猫要是会说话就好了",
        # 狗子 is as often a partner or a child (since f5404d8 these were 木木养了一只狗)
        "我家狗子又不回我消息",
        "我家狗子今天考试考了第一",
        "我家狗子又在打游戏",
    ],
)
def test_people_a_pets_things_and_a_pet_gone_are_no_pet(text: str) -> None:
    assert not any("养了" in fact for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize(
    "text",
    [
        "我家狗子是我妈养的",
        "我家狗子是我妈养的，叫旺财",
        "我家的猫是我姐的",
        "我家猫是室友养的呀",
        "我家的狗是别人家的",
        # the owner told after the name counts too (was 木木养了一只狗，叫旺财 and 旺财是木木的狗)
        "我家的狗叫旺财，是我妈养的",
        "我家狗子叫旺财，是我妈养的",
        "我家的狗叫旺财，我妈养的",
        "我家的狗叫旺财。其实是我爸的",
        "我家的猫叫团子，是一只橘猫，是室友养的",
    ],
)
def test_the_homes_animal_someone_else_keeps_is_no_pet_of_the_speaker(text: str) -> None:
    """我家狗子是我妈养的 was 木木养了一只狗: the dog is the mother's, whatever home it lives in."""
    facts = described(extract(text))
    assert not any("养了" in fact or "木木的" in fact for fact in facts), facts


@pytest.mark.parametrize(
    "text",
    [
        "我家狗子是我妈送的",
        "我家狗子是我养的",
        "我家狗子是柯基",
        "我家狗子是我妈的心头肉",
        "我家的狗叫旺财，是我妈送的",
        "我家的狗叫旺财，是我养的",
        "我家的狗叫旺财，我妈说它太胖了",
    ],
)
def test_the_homes_animal_given_to_or_kept_by_the_speaker_is_theirs(text: str) -> None:
    assert "木木养了一只狗" in " ".join(described(extract(text))), described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我老家在湖南长沙", "木木老家在湖南长沙"),
        ("我老家是东北的", "木木老家在东北"),
        ("我家乡在四川", "木木老家在四川"),
        # the clause after one of 我 is the speaker's: a month's prompt lost where 木木 comes from
        ("我月底回老家，老家在湖南长沙", "木木老家在湖南长沙"),
    ],
)
def test_where_one_comes_from_is_a_fact(text: str, fact: str) -> None:
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize("text", ["我老家在哪你知道吗", "我老家的房子拆了", "他老家在湖南"])
def test_no_hometown_from_a_question_a_thing_of_it_or_anothers(text: str) -> None:
    assert not any("老家在" in fact for fact in described(extract(text))), described(extract(text))


@pytest.mark.parametrize(
    "text", ["我老家在拆迁", "我老家在下雪了", "我老家在装修，回不去了", "我老家是开饭店的", "我家乡在变化"]
)
def test_what_goes_on_at_home_is_no_hometown(text: str) -> None:
    """我老家在拆迁 was the fact 木木老家在拆迁, 我老家是开饭店的 木木老家在开饭店: 在 of something going on, 是 of
    a trade, not a place."""
    assert not any("老家在" in fact for fact in described(extract(text))), described(extract(text))
