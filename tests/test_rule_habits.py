"""What a companion's user eats, drinks and cannot, as facts (issue #13): 我只喝三分糖的, 我从小芒果过敏,
我吃不了辣; and a plan with its date, said in a private chat."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope, ScopeKind

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")


def extract(text: str, when: datetime = datetime(2024, 3, 3, 16, 24)) -> Extraction:
    message = Message(
        id="m0", agent="祈煜", space="person:木木", scope=SCOPE, speaker="木木", role="user", text=text, time=when
    )
    return RuleExtractor().extract_sync(
        Fold(agent="祈煜", space="person:木木", scope=SCOPE, messages=[message], person="木木")
    )


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我只喝三分糖的，全糖那种甜得嗓子疼", "木木只喝三分糖的"),
        ("甜品是芒果西米露，我从小芒果过敏，只能看着别人吃", "木木对芒果过敏"),
        ("我对猫毛过敏", "木木对猫毛过敏"),
        ("对了，火锅我可能不太行，我吃不了辣", "木木吃不了辣"),
        ("我不吃香菜", "木木不吃香菜"),
        ("跟你说个事，我报了四月二十一号的无锡半马，中签了！", "木木报了四月二十一号（2024-04-21）的无锡半马"),
        ("对了，我还打算七月考日语N2", "木木还打算七月（2024-07-01～2024-07-31）考日语N2"),
    ],
)
def test_read(text: str, fact: str) -> None:
    assert fact in {f.description for f in extract(text).facts}


@pytest.mark.parametrize("text", ["我不吃了", "我只吃了一口", "我吃不了那么多吗", "我昨天只喝了一杯"])
def test_not_read(text: str) -> None:
    assert not [f for f in extract(text).facts if f.keyword in ("饮食", "计划")], extract(text).facts
