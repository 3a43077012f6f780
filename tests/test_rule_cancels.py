"""A plan called off stops being a current fact (issue 13, probe pl7): 搬家泡汤 closes the speaker's open plan
fact about 搬家, a new time named for it becomes a plan of its own; nothing else is closed."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.closes import to_close
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import FactData, MemoryItem, MemoryKind, Message, Scope
from huiyi.providers.embed import HashEmbedder

SCOPE = Scope.of_space("小助手", "hz")
T0 = datetime(2024, 11, 14, 10, 0)  # a Thursday: 这周六 is 11-16, 下周六 11-23


def fold(*lines: tuple[str, str], called_off: dict[str, str] | None = None) -> Fold:
    messages = [
        Message(
            id=f"m{i}",
            agent="小助手",
            space=SCOPE.space_id,
            scope=SCOPE,
            speaker=speaker,
            role="user",
            text=text,
            time=T0 + timedelta(minutes=i),
            seq=i,
        )
        for i, (speaker, text) in enumerate(lines)
    ]
    names = {"陈大川": ["陈大川", "大川"], "周屿": ["周屿", "鱼哥"]}
    return Fold(
        agent="小助手", space=SCOPE.space_id, scope=SCOPE, messages=messages, aliases=names, called_off=called_off or {}
    )


def extract(*lines: tuple[str, str], called_off: dict[str, str] | None = None) -> Extraction:
    return RuleExtractor().extract_sync(fold(*lines, called_off=called_off))


def plan(text: str, subject: str = "陈大川", source: str = "old") -> MemoryItem:
    return MemoryItem(
        id=f"fa_{source}",
        scope=SCOPE,
        kind=MemoryKind.FACT,
        text=text,
        time=datetime(2024, 11, 16),
        sources=[source],
        data=FactData(subject=subject, predicate="计划", object=text, keyword="计划").into({"space": SCOPE.space_id}),
    )


def test_a_plan_called_off_is_closed_and_its_new_time_is_a_plan() -> None:
    found = extract(
        ("陈大川", "这周六我搬家，搬去未来科技城那边"),
        ("陈大川", "房东刚打电话，说那套不租给我了，搬家泡汤"),
        ("陈大川", "良渚那套定了，押一付三，下周六搬"),
    )
    # called off at m1; the new time named at m2 closes any older new time too
    assert [(c.subject, c.word, c.sources) for c in found.closes] == [
        ("陈大川", "搬家", ["m1"]),
        ("陈大川", "搬家", ["m2"]),
    ]
    plans = {f.description: f for f in found.facts if f.predicate == "计划"}
    assert "陈大川这周六（2024-11-16）搬家" in plans
    assert plans["陈大川搬家，下周六（2024-11-23）搬"].sources == ["m2"]
    # the plan said before the close is closed at the close; the new one, said after it, is not
    stored = [
        plan("陈大川这周六（2024-11-16）搬家", source="m0"),
        plan("陈大川搬家，下周六（2024-11-23）搬", source="m2"),
    ]
    changes = to_close(stored, found.closes, fold(*[("陈大川", "")] * 3))
    assert [(i, c["valid_to"]) for i, c in changes] == [("fa_m0", T0 + timedelta(minutes=1))]


def test_moved_to_names_the_new_time_in_the_same_clause() -> None:
    found = extract(("陈大川", "搬家改到下周六了"))
    assert [c.word for c in found.closes] == ["搬家"]
    assert any(f.description == "陈大川搬家改到下周六（2024-11-23）了" for f in found.facts)


def test_the_newest_time_named_for_it_is_the_plan_now() -> None:
    lines = [("陈大川", "搬家泡汤，顺利的话下周搬"), ("陈大川", "良渚那套定了，下周六搬")]
    found = extract(*lines)
    assert [f.description for f in found.facts] == [
        "陈大川搬家，顺利的话下周（2024-11-18～2024-11-24）搬",
        "陈大川搬家，下周六（2024-11-23）搬",
    ]
    stored = [
        plan("陈大川搬家，顺利的话下周（2024-11-18～2024-11-24）搬", source="m0"),
        plan("陈大川搬家，下周六（2024-11-23）搬", source="m1"),
    ]
    assert [(i, c["valid_to"]) for i, c in to_close(stored, found.closes, fold(*lines))] == [
        ("fa_m0", T0 + timedelta(minutes=1))
    ]


def test_a_plan_called_off_in_an_earlier_fold_gets_its_new_time_later() -> None:
    later = extract(("陈大川", "看完房了，良渚那套定了，下周六搬"), called_off={"陈大川": "搬家"})
    assert [f.description for f in later.facts if f.predicate == "计划"] == ["陈大川搬家，下周六（2024-11-23）搬"]
    assert not extract(("陈大川", "看完房了，良渚那套定了，下周六搬")).facts  # no called-off plan: nothing read


@pytest.mark.parametrize(
    "text",
    ["搬家差点泡汤", "搬家泡汤了？", "搬家泡汤了吗", "搬家可能要黄了", "他搬家泡汤了", "鱼哥搬家泡汤了", "泡汤了"],
)
def test_near_misses_questions_and_others_call_nothing_off(text: str) -> None:
    assert extract(("陈大川", text)).closes == []


def test_someone_elses_call_off_closes_nothing_of_the_speaker() -> None:
    found = extract(("周屿", "搬家泡汤"))
    assert [c.subject for c in found.closes] == ["周屿"]
    assert to_close([plan("陈大川这周六（2024-11-16）搬家")], found.closes, fold()) == []


def test_a_plan_on_another_topic_stays_open() -> None:
    found = extract(("陈大川", "搬家泡汤"))
    stored = [plan("陈大川下周一（2024-11-18）飞大阪"), plan("陈大川这周六（2024-11-16）搬家", source="x")]
    assert [i for i, _ in to_close(stored, found.closes, fold())] == ["fa_x"]


def test_the_worker_closes_a_plan_of_an_earlier_fold_and_the_prompt_leaves_it_out(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, window={"fold_at": 4, "keep_min": 1})
    with Memory(tmp_path / "m", embedder=HashEmbedder(32), config=config) as memory:
        add = {"agent": "小助手", "space": "hz"}
        memory.add([{"speaker": "陈大川", "text": "这周六我搬家，搬去未来科技城那边", "time": T0}], **add)
        memory.flush(**add)
        later = T0 + timedelta(hours=5)
        memory.add([{"speaker": "陈大川", "text": "房东不租给我了，搬家泡汤", "time": later}], **add)
        memory.add([{"speaker": "陈大川", "text": "良渚那套定了，下周六搬", "time": later + timedelta(hours=6)}], **add)
        memory.flush(**add)
        facts = {f.text: f for f in memory.memories(agent="小助手", space="hz", kinds=[MemoryKind.FACT])}
        assert facts["陈大川这周六（2024-11-16）搬家"].valid_to == later
        assert facts["陈大川搬家，下周六（2024-11-23）搬"].valid_to is None
        text = memory.context(agent="小助手", space="hz", person="周屿", message="大川哪天搬家").text
        assert "这周六（2024-11-16）搬家" not in text


def test_a_new_time_with_its_own_i_is_read_once() -> None:
    found = extract(("陈大川", "搬家泡汤"), ("陈大川", "我下周六搬"))
    assert [f.description for f in found.facts if f.predicate == "计划"] == ["陈大川下周六（2024-11-23）搬"]


def test_a_moved_plan_with_its_own_i_is_one_plan_fact() -> None:
    """我改到下周六: the plan rules read it too; one plan remains, the one that names what was moved."""
    found = extract(("陈大川", "我这周六搬家"), ("陈大川", "搬家泡汤了"), ("陈大川", "我改到下周六"))
    plans = [f.description for f in found.facts if f.predicate == "计划" and f.sources == ["m2"]]
    assert plans == ["陈大川搬家，我改到下周六（2024-11-23）"]


@pytest.mark.parametrize("text", ["成都去不成了，项目上线要加班，机票也退了", "成都去不成", "成都没去成，临时加班"])
def test_a_trip_the_speaker_cannot_go_on_is_called_off(text: str) -> None:
    """去不成了 / 没去成 call a trip off as 去不了了 does: the month's plan is not left open, shown as past."""
    found = extract(("陈大川", text))
    assert [(c.subject, c.word) for c in found.closes] == [("陈大川", "成都")]
    stored = [plan("陈大川下个月（2024-12-01～2024-12-31）打算去成都看熊猫", source="x")]
    assert [i for i, _ in to_close(stored, found.closes, fold())] == ["fa_x"]


def test_a_one_word_thing_moved_is_known_by_its_time() -> None:
    """三点的会改到明天了: 会 alone is too common a word (我会去) to close plans by; with its time it is one plan."""
    lines = [
        ("陈大川", "我下午三点要开会"),
        ("陈大川", "我下周五会去面试"),
        ("陈大川", "三点的会改到明天了"),
        ("陈大川", "明天会早点到"),
    ]
    found = extract(*lines)
    assert [(c.word, c.about and c.about[0]) for c in found.closes] == [("会", datetime(2024, 11, 14, 15))]
    assert [f.description for f in found.facts if f.sources == ["m2"]] == ["陈大川三点的会改到明天（2024-11-15）了"]
    meeting = plan("陈大川下午三点（2024-11-14 15:00）要开会", source="m0").model_copy(
        update={"time": datetime(2024, 11, 14, 15)}
    )
    interview = plan("陈大川下周五（2024-11-22）会去面试", source="m1")
    changes = to_close([meeting, interview], found.closes, fold(*lines))
    assert [i for i, _ in changes] == ["fa_m0"]


@pytest.mark.parametrize("text", ["会改到明天了", "开的会改到明天了", "三点的会差点改到明天"])
def test_a_one_word_thing_without_its_time_closes_nothing(text: str) -> None:
    assert extract(("陈大川", "我下午三点要开会"), ("陈大川", text)).closes == []


@pytest.mark.parametrize(
    ("said", "called_off", "kept"),
    [
        (
            "周五的课取消了",
            "陈大川周五下午两点（2024-11-15 14:00）要上课",
            "陈大川周六下午两点（2024-11-16 14:00）要上课",
        ),
        ("明晚的饭不去了", "陈大川明晚七点（2024-11-15 19:00）要去吃饭", "陈大川今晚七点（2024-11-14 19:00）要去吃饭"),
        ("三点的会取消了", "陈大川下午三点半（2024-11-14 15:30）要开会", "陈大川下午五点（2024-11-14 17:00）要开会"),
    ],
)
def test_a_one_word_thing_closes_the_plan_at_any_hour_of_its_time(said: str, called_off: str, kept: str) -> None:
    """周五的课 is the class at 14:00 that Friday: the plan's time was matched to the span's start (midnight) alone."""
    found = extract(("陈大川", said))

    def at(text: str, source: str) -> MemoryItem:
        when = datetime.fromisoformat(text.split("（")[1].split("）")[0])
        return plan(text, source=source).model_copy(update={"time": when})

    changes = to_close([at(called_off, "a"), at(kept, "b")], found.closes, fold(("陈大川", said)))
    assert [i for i, _ in changes] == ["fa_a"]


@pytest.mark.parametrize("text", ["周日我不去爬山了", "我不打算爬山了", "爬山我不想去爬山了"])
def test_a_plan_given_up_by_its_doing_closes_it(text: str) -> None:
    """周日我不去爬山了: the thing given up follows 不去, where 搬家泡汤 says it first (helper's review)."""
    found = extract(("陈大川", "周日我要去爬山"), ("陈大川", text))
    assert [(c.word, c.sources) for c in found.closes] == [("爬山", ["m1"])]


def test_giving_up_another_thing_closes_nothing() -> None:
    found = extract(("陈大川", "周日我要去爬山"), ("陈大川", "我不去看电影了"))
    stored = [plan("陈大川周日（2024-11-17）要去爬山", source="m0")]
    assert to_close(stored, found.closes, fold(*[("陈大川", "")] * 2)) == []


@pytest.mark.parametrize("said", ["所以月底就不回老家了", "月底不回老家了"])
def test_not_going_home_after_all_closes_the_trip_home(said: str) -> None:
    """我月底回老家, then 所以月底就不回老家了: the trip home stayed a plan to come in every prompt; only
    不去…了 called a plan off."""
    found = extract(("陈大川", said))
    changes = to_close([plan("陈大川月底（2024-11-21～2024-11-30）回老家")], found.closes, fold(("陈大川", said)))
    assert [i for i, _ in changes] == ["fa_old"]


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("今天加班，不回家吃饭了", "陈大川周六（2024-11-16）要和大学同学吃饭"),
        ("今晚不回来吃饭了", "陈大川周六（2024-11-16）要和大学同学吃饭"),
        ("今晚不回学校了，住我姐家", "陈大川这周六（2024-11-16）回学校"),
    ],
)
def test_not_home_for_a_meal_or_tonight_keeps_a_plan_of_another_day(said: str, stored: str) -> None:
    """不回家吃饭了 closed the dinner with classmates (吃饭 is what one does at home, not the plan), and
    今晚不回学校了 the trip back to school on Saturday: what is not gone back to is the place, tonight."""
    found = extract(("陈大川", said))
    assert to_close([plan(stored)], found.closes, fold(("陈大川", said))) == []


@pytest.mark.parametrize(
    ("said", "called_off", "kept"),
    [
        (
            "今天不去北京了",
            "陈大川今天下午三点（2024-11-14 15:00）去北京",
            "陈大川下周（2024-11-18～2024-11-24）去北京出差",
        ),
        (
            "今天有点事，北京去不成了",
            "陈大川今天下午三点（2024-11-14 15:00）去北京",
            "陈大川下周（2024-11-18）去北京出差",
        ),
        ("明天爬山泡汤了", "陈大川明天早上八点（2024-11-15 08:00）去爬山", "陈大川周日（2024-11-17）去爬山"),
        ("明晚不去北京了", "陈大川明天（2024-11-15）去北京", "陈大川下周（2024-11-18）去北京出差"),
        ("明天去不了北京了", "陈大川明天（2024-11-15）去北京", "陈大川下周（2024-11-18）去北京出差"),
        ("周六的聚餐取消了", "陈大川周六晚上六点（2024-11-16 18:00）聚餐", "陈大川下周六（2024-11-23）聚餐"),
        ("周末不去杭州了", "陈大川周日（2024-11-17）去杭州", "陈大川下个月（2024-12-01）去杭州"),
    ],
)
def test_a_call_off_naming_a_day_closes_only_the_plan_of_that_day(said: str, called_off: str, kept: str) -> None:
    """今天不去北京了 closed the trip to Beijing planned for next week: a day named with a call-off (今天, 明晚,
    周六, 周末, or said in the clause before) is the day of the plan called off, the whole day (明晚 closes the
    plan for 明天), as 三点的会 is its hour."""
    found = extract(("陈大川", said))

    def at(text: str, source: str) -> MemoryItem:
        when = datetime.fromisoformat(text.split("（")[1].split("）")[0].split("～")[0])
        return plan(text, source=source).model_copy(update={"time": when})

    changes = to_close([at(called_off, "a"), at(kept, "b")], found.closes, fold(("陈大川", said)))
    assert [i for i, _ in changes] == ["fa_a"]


@pytest.mark.parametrize("said", ["昨天想了一晚上，北京不去了", "北京去不成了", "下周不去北京了", "周六去不成北京了"])
def test_a_call_off_naming_no_day_of_its_own_closes_the_plan_on_any_day(said: str) -> None:
    """Only a day to come named by the call-off itself narrows it: 昨天想了一晚上 is when it was decided, and a
    周六 the time rules read as gone (去不成…了 told as past) is no plan's day. 去不成北京了 was not read at all."""
    found = extract(("陈大川", said))
    changes = to_close([plan("陈大川下周（2024-11-18～2024-11-24）去北京出差")], found.closes, fold(("陈大川", said)))
    assert [i for i, _ in changes] == ["fa_old"]


def test_todays_call_off_leaves_next_weeks_trip_open(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, window={"fold_at": 4, "keep_min": 1})
    with Memory(tmp_path / "m", embedder=HashEmbedder(32), config=config) as memory:
        add = {"agent": "小助手", "space": "hz"}
        memory.add([{"speaker": "陈大川", "text": "我下周去北京出差", "time": T0}], **add)
        memory.add([{"speaker": "陈大川", "text": "我今天下午三点去北京见客户", "time": T0}], **add)
        memory.flush(**add)
        memory.add([{"speaker": "陈大川", "text": "今天不去北京了", "time": T0 + timedelta(hours=1)}], **add)
        memory.flush(**add)
        facts = {f.text: f for f in memory.memories(agent="小助手", space="hz", kinds=[MemoryKind.FACT])}
        assert facts["陈大川下周（2024-11-18～2024-11-24）去北京出差"].valid_to is None
        assert facts["陈大川今天下午三点（2024-11-14 15:00）去北京见客户"].valid_to == T0 + timedelta(hours=1)


@pytest.mark.parametrize("said", ["团建取消了", "公司团建泡汤了", "周五的团建取消了", "好好的团建黄了"])
def test_a_plan_made_for_an_occasion_is_closed_with_the_occasion(said: str) -> None:
    """团建取消了 left open 打算下周五团建的时候跟她表白: the tagger takes 团建 for an adjective, so nothing was
    called off. Its plan and a plan for it (…的时候, 在…上) both lose their occasion; a plan of another thing stays."""
    found = extract(("陈大川", said))
    stored = [
        plan("陈大川打算周五（2024-11-15）团建的时候跟她表白", source="a").model_copy(
            update={"time": datetime(2024, 11, 15)}
        ),
        plan("陈大川周五（2024-11-15）要在团建上表演节目", source="b").model_copy(
            update={"time": datetime(2024, 11, 15)}
        ),
        plan("陈大川周五（2024-11-15）要去面试", source="c").model_copy(update={"time": datetime(2024, 11, 15)}),
    ]
    changes = to_close(stored, found.closes, fold(("陈大川", said)))
    assert [i for i, _ in changes] == ["fa_a", "fa_b"]
    assert {c["data"]["closed_word"] for _, c in changes} == {"团建"}


@pytest.mark.parametrize("said", ["生日派对取消了", "年夜饭取消了"])
def test_a_thing_the_tagger_has_no_noun_for_is_called_off(said: str) -> None:
    assert [c.word for c in extract(("陈大川", said)).closes] == [said.removesuffix("取消了")]


@pytest.mark.parametrize("said", ["突然取消了", "临时取消了", "居然取消了"])
def test_how_it_was_called_off_is_no_plan_word(said: str) -> None:
    assert extract(("陈大川", said)).closes == []


NEW_YEAR_HOME = "陈大川春节（2025-01-29）回老家"


@pytest.mark.parametrize(
    ("said", "stored", "closed"),
    [
        ("今年不回家过年了", NEW_YEAR_HOME, True),
        ("今年过年不回去了", "陈大川除夕（2025-01-28）回家", True),
        ("春节不回老家了", "陈大川下周五（2025-01-17）回老家过年", True),
        ("今年不回老家过年了", NEW_YEAR_HOME, True),
        ("中秋不回家了", "陈大川中秋（2024-09-17）回家", True),
        ("今年不回家过年了", "陈大川明年春节（2026-02-17）回老家", False),
        ("今年不回家过年了", "陈大川春节后（2025-02-05）回去上班", False),
        ("明年不回家过年了", NEW_YEAR_HOME, False),
        ("不回家了", "陈大川周五（2024-11-15）回家", False),
    ],
)
def test_not_going_home_for_a_festival_closes_the_trip_home_of_that_festival(
    said: str, stored: str, closed: bool
) -> None:
    """今年不回家过年了 closed nothing: 家 is one character, and the plan said 春节回老家. Going home for the
    festival (家, 老家, 回去; 过年 is 春节) is off, the one to come, not next year's; 不回家了 alone is tonight's."""
    now = datetime(2025, 1, 9, 10) if "中秋" not in said else datetime(2024, 9, 2, 10)
    lines = [Message(id="m0", agent="小助手", space=SCOPE.space_id, scope=SCOPE, speaker="陈大川", role="user",
                     text=said, time=now, seq=0)]  # fmt: skip
    spoken = Fold(agent="小助手", space=SCOPE.space_id, scope=SCOPE, messages=lines)
    found = RuleExtractor().extract_sync(spoken)
    when = datetime.fromisoformat(stored.split("（")[1].split("）")[0])
    trip = plan(stored).model_copy(update={"time": when})
    assert [i for i, _ in to_close([trip], found.closes, spoken)] == (["fa_old"] if closed else [])


@pytest.mark.parametrize(("stored", "closed"), [(NEW_YEAR_HOME, False), ("陈大川明年春节（2026-02-17）回老家", True)])
def test_not_going_home_for_new_year_said_after_it_is_the_next_ones(stored: str, closed: bool) -> None:
    """不回家过年了 said in March closed the trip home of the 春节 just gone (and left next year's open): a
    festival over is no plan to call off, the next one is."""
    lines = [Message(id="m0", agent="小助手", space=SCOPE.space_id, scope=SCOPE, speaker="陈大川", role="user",
                     text="不回家过年了", time=datetime(2025, 3, 5, 10), seq=0)]  # fmt: skip
    spoken = Fold(agent="小助手", space=SCOPE.space_id, scope=SCOPE, messages=lines)
    found = RuleExtractor().extract_sync(spoken)
    when = datetime.fromisoformat(stored.split("（")[1].split("）")[0])
    trip = plan(stored).model_copy(update={"time": when})
    assert [i for i, _ in to_close([trip], found.closes, spoken)] == (["fa_old"] if closed else [])
