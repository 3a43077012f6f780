"""我现在住哪 / 我现在做什么工作: the asker's current fact of that kind leads (recall.slots, issue 13 changed-fact)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 3, 1, 20, 0)
LINES = [
    "我住在上海，在一家广告公司上班",
    "这座城市的冬天好冷",
    "换一座城市生活是什么感觉呢",
    "城市里的夜晚好安静",
    "今天正式搬到杭州了，东西都是朋友帮忙搬的",
    "拿到offer了！！杭州那家游戏公司，下周入职",
]


def open_memory(path: Path) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    return Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=30))


def chat(memory: Memory) -> None:
    messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(LINES)]
    memory.add(messages, agent="bot", person="u1", index=True)
    memory.flush(agent="bot", person="u1")


def test_the_current_home_and_job_lead_a_question_about_them(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        chat(memory)
        home = memory.recall("你说我现在人在哪座城市，可别跟以前的搞混了", agent="bot", person="u1")
        assert home.hits[0].kind is MemoryKind.FACT and "杭州" in home.hits[0].text
        assert home.hits[0].sources == ["m4"] and home.info["slot"] == home.hits[0].id
        job = memory.recall("我现在这份活儿到底是做什么的", agent="bot", person="u1")
        assert job.hits[0].kind is MemoryKind.FACT and job.hits[0].sources == ["m5"]
        # asked for lines only, no fact comes back
        lines = memory.recall("我现在住哪", agent="bot", person="u1", kinds=["chunk"])
        assert "slot" not in lines.info and all(hit.kind is MemoryKind.CHUNK for hit in lines.hits)
        # the old home was closed by the move: it is history, not what leads
        old = [i for i in memory.memories(agent="bot", person="u1", kinds=["fact"]) if "上海" in i.text]
        assert old and all(i.valid_to is not None for i in old)


def test_history_other_people_and_other_questions_are_left_to_the_ranking(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        chat(memory)
        # 我妈住哪 and 我闺蜜是做什么的 ask about the asker's people, whose home and job the asker's facts are not
        others = ("我妈住哪", "我闺蜜是做什么的", "我男朋友在哪上班")
        for query in ("我以前住在哪座城市", "城市的夜晚", "他现在住哪", *others):
            assert "slot" not in memory.recall(query, agent="bot", person="u1").info, query
        # asked before the move was said, the move is not known yet: the home then leads
        early = memory.recall("我现在住哪", agent="bot", person="u1", now=T0 + timedelta(days=2))
        assert early.hits[0].kind is MemoryKind.FACT and "上海" in early.hits[0].text


def test_the_home_said_before_hundreds_of_other_facts_still_leads(tmp_path: Path) -> None:
    """A long-lived scope: the home was said before 240 other facts; the store finds it by its subject and
    kind, not among the newest facts only."""
    foods = ["苹果", "香蕉", "草莓", "西瓜", "芒果", "葡萄", "橙子", "桃子", "樱桃", "菠萝", "柠檬", "椰子"]
    lines = ["我住在上海，离公司不远"] + [f"我喜欢{food}味的第{n}号冰淇淋" for n in range(20) for food in foods]
    with open_memory(tmp_path) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(hours=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="bot", person="u1", index=True)
        memory.flush(agent="bot", person="u1")
        facts = memory.memories(agent="bot", person="u1", kinds=["fact"], limit=1000)
        assert len(facts) > 200
        home = memory.recall("我现在住哪", agent="bot", person="u1")
        assert home.hits[0].kind is MemoryKind.FACT and "上海" in home.hits[0].text
        assert home.info["slot"] == home.hits[0].id


def test_after_a_breakup_the_parting_answers_who_my_partner_is(tmp_path: Path) -> None:
    """我男朋友叫什么 after 我和陈屿分手了: the closed 陈屿是木木的男朋友 and the lines that say 男朋友 do not lead."""
    lines = ["其实我有男朋友，叫陈屿", "快两年了，他是程序员", "我和陈屿分手了", "同事小周请我喝了奶茶"]
    with open_memory(tmp_path) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="bot", person="u1", index=True)
        memory.flush(agent="bot", person="u1")
        for query in ("我男朋友叫什么", "我现在有男朋友吗", "我还是单身吗"):
            found = memory.recall(query, agent="bot", person="u1")
            assert found.hits[0].sources == ["m2"] and "分手" in found.hits[0].text, query
        # asked before the breakup was said, the partner then leads
        before = memory.recall("我男朋友叫什么", agent="bot", person="u1", now=T0 + timedelta(days=1))
        assert before.hits[0].kind is MemoryKind.FACT and before.hits[0].sources == ["m0"]
        # the ex asked by name of the past is left to the ranking
        assert "slot" not in memory.recall("我前男友叫什么", agent="bot", person="u1").info
        # a new partner after the breakup leads
        new = {"id": "m9", "text": "林深是我男朋友", "time": T0 + timedelta(days=9)}
        memory.add(new, agent="bot", person="u1")
        memory.flush(agent="bot", person="u1")
        again = memory.recall("我男朋友是谁", agent="bot", person="u1")
        assert again.hits[0].sources == ["m9"] and "林深" in again.hits[0].text


def test_how_things_stand_in_love_is_answered_by_the_parting(tmp_path: Path) -> None:
    """我现在感情上是个什么状况 (a companion month's question, issue 17): the lines that say 感情 led, not 分手了."""
    lines = ["其实我有男朋友，叫陈屿", "我和陈屿分手了", "这段感情我付出了太多", "感情上的事真的说不清楚"]
    with open_memory(tmp_path) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="bot", person="u1", index=True)
        memory.flush(agent="bot", person="u1")
        for query in ("我现在感情上是个什么状况，你最清楚了", "我的感情状况怎么样"):
            found = memory.recall(query, agent="bot", person="u1")
            assert found.hits[0].sources == ["m1"] and "分手" in found.hits[0].text, query


def test_what_the_asker_may_not_touch_is_answered_by_their_allergies(tmp_path: Path) -> None:
    """有哪样是我碰都不能碰的 (a companion month's question, issue 17): the fruit lines led, not 木木对芒果过敏."""
    lines = ["甜品是芒果西米露，我从小芒果过敏，只能看着别人吃", "今天买了好多水果，有苹果有橙子", "我最喜欢吃橙子"]
    lines += ["水果店老板送了我一个桃子"]
    with open_memory(tmp_path) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="bot", person="u1", index=True)
        memory.flush(agent="bot", person="u1")
        for query in ("里头水果好多种，有哪样是我碰都不能碰的来着", "我对什么东西过敏？"):
            found = memory.recall(query, agent="bot", person="u1")
            assert found.hits[0].kind is MemoryKind.FACT and "芒果过敏" in found.hits[0].text, query
        # asked of someone else, or of what one likes, no allergy leads
        assert "slot" not in memory.recall("我妈对什么过敏", agent="bot", person="u1").info


def test_the_plans_still_to_come_answer_what_is_coming_up(tmp_path: Path) -> None:
    """我最近有什么安排 shares no word with 木木下周一（…）飞大阪: the open plans dated ahead lead, soonest first;
    a plan whose day has passed does not."""
    lines = [
        (0, "我明天去看牙医"),  # 3-02: passed by the question, asked on 3-06
        (5, "我下周一飞大阪"),  # 3-11
        (5, "我这周六去爬山"),  # 3-09
        (5, "今天天气真好，出去走了走"),
        (5, "下个月五号我要去面试"),  # 4-05
    ]
    with open_memory(tmp_path) as memory:
        messages = [
            {"id": f"m{i}", "text": text, "time": T0 + timedelta(days=day)} for i, (day, text) in enumerate(lines)
        ]
        memory.add(messages, agent="bot", person="u1", index=True)
        memory.flush(agent="bot", person="u1")
        now = T0 + timedelta(days=5, hours=1)  # 3-06
        for query in ("我最近有什么安排", "我接下来要干嘛"):
            found = memory.recall(query, agent="bot", person="u1", now=now)
            assert [hit.sources for hit in found.hits[:3]] == [["m2"], ["m1"], ["m4"]], query
            assert found.info["slot"] == found.hits[0].id
        week = memory.recall("我下周有什么安排", agent="bot", person="u1", now=now)
        assert week.hits[0].sources == ["m1"] and ["m4"] not in [hit.sources for hit in week.hits[:2]]
        english = memory.recall("What plans do I have coming up?", agent="bot", person="u1", now=now)
        assert english.hits[0].sources == ["m2"]


def test_a_pets_name_question_finds_the_pet_asked_of(tmp_path: Path) -> None:
    """我家狗叫什么 shares 狗 with every line about dogs, and nothing with 豆豆: the asker's pet fact of that
    animal leads; in English too."""
    lines = ["我养了一只猫，叫团子", "我家还有一只狗，叫豆豆", "楼下的狗好吵", "今天遛狗遇到一只大狗"]
    lines.append("I have a dog named Biscuit")
    with open_memory(tmp_path) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(lines)]
        memory.add(messages[:4], agent="bot", person="u1", index=True)
        memory.add(messages[4:], agent="bot", person="u2", index=True)
        memory.flush(agent="bot", person="u1")
        memory.flush(agent="bot", person="u2")
        dog = memory.recall("我家狗叫什么名字来着？", agent="bot", person="u1")
        assert dog.hits[0].kind is MemoryKind.FACT and "豆豆" in dog.hits[0].text and dog.info["slot"]
        cat = memory.recall("我家猫咪叫啥", agent="bot", person="u1")
        assert "团子" in cat.hits[0].text
        english = memory.recall("What's my dog's name again?", agent="bot", person="u2")
        assert "Biscuit" in english.hits[0].text and english.hits[0].kind is MemoryKind.FACT
        assert "slot" not in memory.recall("我家猫是什么品种", agent="bot", person="u1").info
        # a pet of another animal is no answer: the cat's name never leads a question about a rabbit
        assert "slot" not in memory.recall("我家兔子叫什么", agent="bot", person="u1").info
