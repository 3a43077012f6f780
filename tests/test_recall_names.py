"""A question that asks for a name prefers the line that gives one (recall.names, issue #13)."""

from __future__ import annotations

from datetime import datetime

from huiyi import Memory
from huiyi.config.recall import RecallRecipe
from huiyi.model import MemoryKind
from huiyi.recall import anchor, names
from huiyi.store.base import RankRow

LINES = {
    1: "苏霓: 对了，火锅我可能不太行，我吃不了辣",
    2: "孟浩: 要不明晚给老K接个风？武林路有家“巴渝老灶”火锅，正宗重庆味",
    3: "孟浩: 鸳鸯锅呗",
}


def rows() -> dict[int, RankRow | None]:
    when = datetime(2024, 11, 14, 10, 30)
    return {
        key: RankRow(f"m{key}", "space:g", MemoryKind.CHUNK, when, (text[:2],), (f"g{key}",), "g", key, text, 0.5, None)
        for key, text in LINES.items()
    }


def test_a_line_that_gives_the_name_rises_above_lines_that_only_share_the_topic() -> None:
    window = [(1, (1.35, {})), (3, (1.29, {})), (2, (1.20, {}))]  # meaning and words rank it third
    gains = names.gains(window, rows(), RecallRecipe().name_weight)
    assert gains == {2: RecallRecipe().name_weight}
    assert [key for key, _ in anchor.apply(window, gains)] == [2, 1, 3]


def test_only_a_name_question_asks_for_it() -> None:
    assert names.asks("上午有人推荐的那家火锅叫什么名字来着")
    assert names.asks("聊到猫了\n她家那只猫叫啥")  # the line asked is the last one
    assert not names.asks("那家火锅叫什么名字来着\n辣不辣")
    assert not names.asks("那家火锅辣不辣") and not names.asks("你现在在忙什么")


def test_nothing_gains_when_no_line_gives_a_name() -> None:
    window = [(1, (1.35, {})), (3, (1.29, {}))]
    assert names.gains(window, rows(), 0.2) == {}


def test_a_name_given_to_something_else_beside_the_thing_asked_gains_nothing() -> None:
    # the probe's two lines: the hotpot's name, and a barbecue named in the line that cancels the hotpot
    table = {
        2: LINES[2],
        4: "林晚晴: 明晚的事定了：改成烧烤，换到文三路的“老街烧烤”，时间还是七点，火锅那家我已经退了",
    }
    when = datetime(2024, 11, 14, 12, 30)
    rows_ = {
        key: RankRow(f"m{key}", "space:g", MemoryKind.CHUNK, when, (), (f"g{key}",), "g", key, text, 0.5, None)
        for key, text in table.items()
    }
    window = [(4, (1.29, {})), (2, (1.24, {}))]
    thing = names.about("上午有人推荐的那家火锅叫什么名字来着")
    assert thing == "火锅"
    assert names.gains(window, rows_, 0.2, thing) == {2: 0.2}
    assert names.gains(window, rows_, 0.2) == {2: 0.2, 4: 0.2}  # a question that does not say what it names
    assert names.gives("火锅店名字叫“巴渝老灶”", "火锅") and names.gives("我家猫叫团子", "猫")


def test_asked_the_name_of_ones_husband_a_line_naming_a_boyfriend_gains_nothing() -> None:
    assert names.about("我老公叫什么名字") == "老公"
    assert not names.gives("我男朋友叫陈一鸣，是个程序员", "老公")  # someone else the speaker has
    assert names.gives("王磊是我老公，他在银行上班", "老公") and names.gives("我跟我老公王磊去吃了火锅", "老公")
    assert not names.gives("我老公今天去上班了", "老公")  # 今天去 is no name
    assert names.gives("我家的猫叫团子", "老公")  # a name beside no one else the speaker has may be of them


def test_a_companion_asked_her_husbands_name_recalls_the_line_that_names_him(memory: Memory) -> None:
    said = [
        "今天加班到九点，好累",
        "我男朋友叫陈一鸣，是个程序员",
        "王磊是我老公，他在银行上班",
        "我闺蜜小雨下周结婚，我要去当伴娘",
        "周末想去西湖边走走",
        "我妹妹叫林小满，在读高三",
        "楼下新开了一家奶茶店",
    ]
    for i, text in enumerate(said):
        memory.add({"text": text, "role": "user", "id": f"m{i}"}, agent="祈煜", person="木木", index=True)
    first = memory.recall("我老公叫什么名字", agent="祈煜", person="木木").hits[0]
    assert "王磊" in first.text
    first = memory.recall("我妹妹叫啥来着", agent="祈煜", person="木木").hits[0]
    assert "林小满" in first.text
