"""One rule groups recalled facts (seed 000 §7) for the prompt and for /query."""

from __future__ import annotations

from huiyi.faces.http import query_response
from huiyi.model import FactData, FactKind, MemoryKind, RecallHit, RecallResult, Scope
from huiyi.recall.facts import Owner, group_facts

SCOPE = Scope.of_person("祈煜", "u1")


def hit(id: str, subject: str, kind: FactKind, obj: str = "", subject_type: str = "客体") -> RecallHit:
    data = FactData.model_validate({"subject": subject, "object": obj, "fact_kind": kind, "subject_type": subject_type})
    return RecallHit(id=id, kind=MemoryKind.FACT, text=f"{subject}…{obj}", score=0.5, scope=SCOPE, data=data.into())


HITS = [
    hit("f1", "玻璃琴", FactKind.ATTRIBUTE, subject_type="具体实体"),
    hit("f2", "木木", FactKind.RELATION, "周杰伦"),
    hit("f3", "祈煜", FactKind.RELATION, "木木", subject_type="主体"),
    hit("f4", "木木", FactKind.PREFERENCE, "咖啡"),
    hit("f5", "苏霓", FactKind.ATTRIBUTE),  # another person: an entity here, whatever her type
    hit("f6", "木木", FactKind.RELATION),  # a relation with no object sits with the attributes
]


def test_groups_follow_seed_000_section_7_and_names_resolve_by_alias() -> None:
    groups = group_facts(
        ((h.id, FactData.from_data(h.data)) for h in HITS), agent="祈煜", person="u1", person_names=["木木"]
    )
    shape = [(g.owner, g.name, g.relation, g.object, g.items) for g in groups]
    assert shape == [
        (Owner.PERSON, "木木", False, "", ["f4", "f6"]),
        (Owner.PERSON, "木木", True, "周杰伦", ["f2"]),
        (Owner.AGENT, "祈煜", True, "木木", ["f3"]),
        (Owner.ENTITY, "玻璃琴", False, "", ["f1"]),
        (Owner.ENTITY, "苏霓", False, "", ["f5"]),
    ]


def test_query_lists_facts_in_the_same_groups_with_their_labels() -> None:
    result = RecallResult(query="q", hits=HITS)
    response = query_response(result, "u1", agent="祈煜", person_names=["木木"])
    listed = [(e.index, e.kind, e.id) for e in response.memory_entities]
    assert listed == [
        ("f4", "用户属性", 0),
        ("f6", "用户属性", 1),
        ("f2", "用户关系", 2),
        ("f3", "主体关系", 3),
        ("f1", "其他属性", 4),
        ("f5", "其他属性", 5),
    ]
    assert response.memory_entities[2].object == "周杰伦" and response.memory_events == []
