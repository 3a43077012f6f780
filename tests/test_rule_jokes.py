"""A line the speaker takes back as a joke (我喜欢猫，开玩笑的; I live in Paris lol jk) is no fact about them:
the chat model would be told it as true. What is said in earnest, or after the retraction, still is.
Neither is a line laughter closes, sarcasm, or a figure of speech (我是一只小小鸟)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

# one message of 木木 to 祈煜, extracted by the rules
from test_rule_subjects import extract


def described(text: str) -> set[str]:
    return {fact.description for fact in extract(text).facts}


@pytest.mark.parametrize(
    "text",
    [
        "我喜欢猫，开玩笑的",
        "我是医生，骗你的",
        "我住在上海，逗你的",
        "我是秦始皇，开玩笑的",
        "我喜欢加班才怪",
        "我明天去北京，骗你的",
        "I live in Paris lol jk",
        "I'm a doctor, just kidding",
        "I like cats, NOT",
        "I'm a doctor, yeah right",
        "I'm a doctor... not",
        "I'm a doctor. Not!",
        "I'm a billionaire, said no one ever",
        "I'm a doctor /s",
    ],
)
def test_what_a_joke_takes_back_is_no_fact(text: str) -> None:
    assert not extract(text).facts, described(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我喜欢猫", "木木喜欢猫"),
        ("我不是开玩笑的，我喜欢猫", "木木喜欢猫"),
        ("开玩笑的，其实我在杭州上班", "木木在杭州工作"),
        ("我喜欢开玩笑", "木木喜欢开玩笑"),
        ("I'm not kidding. I live in Paris", "木木 lives in Paris"),
        ("I like tea, not coffee", "木木 likes tea, not coffee"),
        ("I like tea. Not coffee.", "木木 likes tea"),
        ("我明天去北京", "木木明天（2024-11-16）去北京"),
    ],
)
def test_what_is_said_in_earnest_still_is(text: str, fact: str) -> None:
    assert fact in described(text)


@pytest.mark.parametrize(
    "text",
    [
        "我是秦始皇哈哈哈",
        "我是亿万富翁哈哈哈哈",
        "我住在火星😂",
        "我是亿万富翁，哈哈哈",
        "我是亿万富翁～哈哈哈",
        "我是秦始皇hhh",
        "我是亿万富翁xswl",
        "我喜欢加班哈哈哈",
        "I'm the king of France lol",
        "I'm a billionaire lol",
        "I'm a billionaire lmao",
        "I live in Paris haha",
        "I live on Mars 😂",
        "I'm a billionaire. lol",
    ],
)
def test_what_laughter_closes_is_no_fact(text: str) -> None:
    assert not extract(text).facts, described(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我是医生", "木木是医生"),
        ("I'm a doctor", "木木 is a doctor"),
        ("哈哈，我住在上海", "木木住在上海"),  # laughter before answers what came before
        ("哈哈哈我是医生", "木木是医生"),
        ("lol I'm a doctor", "木木 is a doctor"),
        ("我是医生哈", "木木是医生"),  # one 哈 is a particle
        ("我住在上海，我是亿万富翁哈哈哈", "木木住在上海"),  # only the clause the laughter closes
    ],
)
def test_what_laughter_does_not_close_still_is(text: str, fact: str) -> None:
    assert fact in described(text)
    assert not any("哈" in f or "富翁" in f for f in described(text))


def test_a_laughed_off_line_reaches_neither_facts_nor_the_portrait(tmp_path: Path) -> None:
    said = datetime(2024, 3, 1, 20, 0)
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: said + timedelta(days=1)) as memory:
        lines = ["我是亿万富翁哈哈哈哈", "我是医生"]
        messages = [{"id": f"m{i}", "text": text, "time": said + timedelta(minutes=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        facts = [fact.text for fact in memory.memories(agent="祈煜", person="木木", kinds=["fact"])]
        assert facts == ["木木是医生"]
        portraits = [s.text for s in memory.summarize(date(2024, 3, 1), agent="祈煜", person="木木")]
        assert any("木木是医生" in text for text in portraits)
        assert not any("木木是亿万富翁" in text for text in portraits), portraits
        # the line itself stays recallable
        assert "亿万富翁" in memory.recall("亿万富翁", agent="祈煜", person="木木").hits[0].text


@pytest.mark.parametrize("text", ["我是一只小小鸟～", "我是一头猪", "我是一条咸鱼", "我是一匹来自北方的狼"])
def test_a_person_counted_as_an_animal_is_a_figure_of_speech(text: str) -> None:
    assert not extract(text).facts, described(text)


@pytest.mark.parametrize(("text", "fact"), [("我是一名护士", "木木是一名护士"), ("我是一个医生", "木木是一个医生")])
def test_a_person_counted_as_a_person_still_is(text: str, fact: str) -> None:
    assert fact in described(text)


def test_a_pet_told_of_is_not_the_speaker_when_its_kind_follows() -> None:
    """我养了一只猫，叫团子，是只橘猫: the last clause, subject left out, is the cat's, not 木木是只橘猫."""
    assert described("我养了一只猫，叫团子，是只橘猫") == {"木木养了一只猫，叫团子", "团子是木木的猫"}


@pytest.mark.parametrize(
    "text",
    [
        "." * 200_000,  # every dot started a run of dots the pattern read to the end: ~15 min
        "jk " * 60_000,  # each retraction searched all the text before it for earnest words: ~4 min
        "a, NOT " * 30_000,
    ],
)
def test_a_hostile_run_of_markers_returns(text: str) -> None:
    from huiyi.flows.extract.rules.jokes import joke_end

    assert joke_end(text) in (0, len(text))


def test_earnest_words_just_before_a_retraction_still_count() -> None:
    from huiyi.flows.extract.rules.jokes import joke_end

    assert joke_end("I live in Paris, I'm not just kidding") == 0
    assert joke_end("我住在上海，" + "真的" * 100 + "，不是开玩笑的") == 0
    assert joke_end("I live in Paris, jk. I live in Rome") == len("I live in Paris, jk.")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm a doctor lol", "木木 is a doctor"),
        ("I'm a nurse, haha", "木木 is a nurse"),
        ("我是老师哈哈哈", "木木是老师"),
    ],
)
def test_an_everyday_job_said_with_a_laugh_is_said_in_earnest(text: str, fact: str) -> None:
    """ "I'm a doctor lol" was no fact: a laugh after a job is a tone, a billionaire's is a joke."""
    assert described(text) == {fact}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm a doctor hahaha", "木木 is a doctor"),
        ("I'm a teacher lmfao", "木木 is a teacher"),
        ("I'm a nurse 😂", "木木 is a nurse"),
        ("I'm an engineer hehe", "木木 is an engineer"),
        ("I'm a teacher xD", "木木 is a teacher"),
        ("I'm a teacher now lol", "木木 is a teacher"),
        ("I'm a nurse these days haha", "木木 is a nurse"),
        ("I'm a teacher again lol", "木木 is a teacher"),
        ("I'm a nurse as well haha", "木木 is a nurse"),
    ],
)
def test_the_laugh_after_a_job_kept_is_not_in_the_job(text: str, fact: str) -> None:
    """ "I'm a doctor hahaha" was kept as 木木 is "a doctor hahaha": the clause was kept for its job, laugh and all."""
    assert described(text) == {fact}
