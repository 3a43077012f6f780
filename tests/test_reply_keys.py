"""A reply in a chat of two is keyword-matched by the question it answers (issue #17, chunk.reply_keys):
"What did you paint?" — "A sunset over the lake" share no word, and the question's words follow the
reply into the keyword index whether messages arrive one by one or a session at a time."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.ingest import asked_part, replies
from huiyi.model import Message, Scope
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2023, 5, 8, 13, 0)
SCOPE = Scope.of_chat("bot", "mel", None)

CHAT = [
    ("Caroline", "Hey Mel! How have you been?"),
    ("Melanie", "Busy with the kids. Wow, is that new? What did you paint last weekend?"),
    ("Caroline", "A sunset over the lake, with my brushes from grandma"),
    ("Melanie", "Lovely colours. I went camping with the family."),
    ("Caroline", "Nice, I love the outdoors"),
]


def message(speaker: str, text: str, role: str = "user") -> Message:
    return Message(
        id=text, agent="bot", space=SCOPE.space_id, scope=SCOPE, speaker=speaker, role=role, text=text, time=T0
    )


@pytest.mark.parametrize(
    ("asked", "reply", "expected"),
    [
        (("Melanie", "What did you paint?"), ("Caroline", "A sunset over the lake"), True),
        (("木木", "医生怎么说？"), ("祈煜", "说是肠胃炎"), True),
        (("祈煜", "托尼老师店在哪"), ("木木", "文二路和学院路交叉口"), True),
        (("Melanie", "I went camping."), ("Caroline", "Nice, I love the outdoors"), False),  # nothing asked
        (("Melanie", "What did you paint?"), ("Melanie", "It was lovely"), False),  # the asker goes on
        (("Melanie", "What did you paint?"), ("Caroline", "Why do you ask?"), False),  # a question back
    ],
)
def test_what_replies_to_a_question(asked: tuple[str, str], reply: tuple[str, str], expected: bool) -> None:
    assert replies(message(*reply), message(*asked)) is expected


def test_the_agents_own_questions_key_nothing() -> None:
    # the agent's follow-up echoes what the user said before it (跑一跑): the user's reply is not keyed by it
    assert not replies(
        message("木木", "风超大，刘海全乱了"), message("祈煜", "周末出去跑一跑。江边风大不大？", "assistant")
    )
    assert replies(message("祈煜", "是文二路那家", "assistant"), message("木木", "那家店在哪？"))


def test_only_the_asking_sentences_are_keys() -> None:
    assert asked_part("Busy with the kids. Wow, is that new? What did you paint?") == (
        "Wow, is that new? What did you paint?"
    )
    assert asked_part("周末出去跑一跑，心情会好很多吧。江边风大不大？") == "江边风大不大？"


def _keyword_rows(directory: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(directory / "huiyi.sqlite") as conn:
        return conn.execute(
            "SELECT m.id, f.words FROM memory_fts f JOIN memories m ON m.rowid = f.rowid"
            " WHERE m.kind = 'chunk' ORDER BY m.id"
        ).fetchall()


def _ingest(directory: Path, reply_keys: bool, one_by_one: bool) -> list[tuple[str, str]]:
    messages = [
        {"id": f"m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
        for i, (who, text) in enumerate(CHAT)
    ]
    config = Config(worker={"enabled": False}, recall={"reinforce": False}, chunk={"reply_keys": reply_keys})
    with Memory(directory, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        for batch in [[m] for m in messages] if one_by_one else [messages]:
            memory.add(batch, agent="bot", person="Caroline", index=True)
    return _keyword_rows(directory)


def test_reply_keys_do_not_depend_on_batching(tmp_path: Path) -> None:
    session = _ingest(tmp_path / "session", reply_keys=True, one_by_one=False)
    single = _ingest(tmp_path / "single", reply_keys=True, one_by_one=True)
    assert session == single
    plain = dict(_ingest(tmp_path / "plain", reply_keys=False, one_by_one=False))
    keyed = dict(session)
    changed = [key for key in keyed if keyed[key] != plain[key]]
    assert len(changed) == 1  # the sunset reply; the camping line answers nothing asked
    assert "paint" in keyed[changed[0]] and "sunset" in keyed[changed[0]]
    assert "kids" not in keyed[changed[0]]  # the asker's other sentences are no keys
