"""``add``'s reading of a caller's message without pydantic's validator (issue 15): for every input it
gives what ``MessageIn.model_validate`` gives, or the same refusal."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.flows import ingest
from huiyi.flows.message_in import message_in
from huiyi.model import Message, MessageIn, Scope

WHEN = datetime(2024, 5, 1, 20, 15)

INPUTS: list[Any] = [
    "我家猫叫年糕",
    "  spaced  ",
    {"text": "hi"},
    {"content": "hi", "role": "assistant"},
    {"text": "hi", "speaker": "木木", "id": "wx-1", "time": WHEN},
    {"text": "hi", "name": "木木", "time": None, "id": None, "speaker_missing": None},
    {"text": "hi", "speaker": "", "role": "user"},
    {"text": "hi", "time": datetime(2024, 5, 1, 12, tzinfo=UTC)},
    # what the fast path leaves to the validator: refusals, conversions, odd shapes
    "",
    " \u200b ",
    "a\x00b",
    "lone \ud800",
    {"text": ""},
    {"text": "hi", "content": "ho"},
    {"text": "hi", "speaker": "a", "name": "b"},
    {"text": "hi", "role": "system"},
    {"text": "hi", "role": None},
    {"text": "hi", "id": ""},
    {"text": "hi", "id": "a\nb"},
    {"text": "hi", "id": 7},
    {"text": "hi", "speaker": "x" * 10_000},
    {"text": "hi", "speaker": "\x07bell"},
    {"text": "hi", "time": "2024-05-01T20:15:00"},
    {"text": "hi", "time": 1714594500},
    {"text": 5},
    {"text": "hi", "extra": 1},
    {7: "hi"},
    {},
    MessageIn(text="made already", speaker="木木"),
]


def _read(reader: Any, item: Any) -> tuple[str, Any]:
    try:
        message = reader(item)
    except ValidationError as exc:
        return "refused", [(e["loc"], e["msg"]) for e in exc.errors()]
    return "read", (message.model_dump(), message.model_fields_set)


@pytest.mark.parametrize("item", INPUTS, ids=range(len(INPUTS)))
def test_a_message_reads_as_the_validator_reads_it(item: Any) -> None:
    def validated(x: Any) -> MessageIn:
        return MessageIn(text=x) if isinstance(x, str) else MessageIn.model_validate(x)

    assert _read(message_in, item) == _read(validated, item)


def test_prepare_stores_what_the_validated_models_would() -> None:
    config = Config()
    raw = [{"content": "好紧张", "name": "木木", "id": "wx-1", "time": WHEN}, "别紧张"]
    raw.append({"text": "嗯", "role": "assistant"})
    prepared = ingest.prepare(raw, agent="祈煜", person="木木", space=None, now=WHEN, config=config)
    scope = Scope.of_person("祈煜", "木木")
    for message in prepared:
        assert Message.model_validate(message.model_dump()) == message
        assert (message.agent, message.space, message.scope) == ("祈煜", scope.space_id, scope)
    assert [(m.speaker, m.role) for m in prepared] == [("木木", "user"), ("木木", "user"), ("祈煜", "assistant")]
    assert prepared[0].id == "wx-1" and prepared[1].time == WHEN


def test_a_group_message_whose_speaker_is_no_string_is_refused_in_words() -> None:
    with pytest.raises(InvalidInput, match="message 0"):
        ingest.prepare(["hi"], agent="a", person=5, space="g1", now=WHEN, config=Config())  # type: ignore[arg-type]
