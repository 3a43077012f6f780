"""What a memory is about, as its caller names it: subject, predicate, object and, for a fact, its kind
(seed 000 §7 groups facts by subject; seed 004 create_memory names all four)."""

from __future__ import annotations

from typing import Any

from huiyi.checks import check_name, check_storable
from huiyi.errors import InvalidInput
from huiyi.model import FactData, FactKind, MemoryKind
from huiyi.text.compose import compose

MAX_OBJECT_CHARS = 2000  # as a model-written tool argument


def with_edge(
    text: str,
    kind: MemoryKind,
    data: dict[str, Any] | None,
    subject: str | None,
    predicate: str | None,
    obj: str | None,
    fact_kind: FactKind | str | None,
) -> tuple[str, dict[str, Any] | None]:
    """``text`` (composed from the edge when empty) and ``data`` with the edge written in: a fact's through
    :meth:`FactData.into` (kind attribute unless named), another memory's as plain keys."""
    try:
        kind = MemoryKind(kind)
    except ValueError:
        return text, data  # MemoryItem names the kinds
    if subject is None:
        if predicate is not None or obj is not None or fact_kind is not None:
            raise InvalidInput("name the subject of a predicate, object or fact kind")
        return text, data
    try:
        check_name(subject, "subject")
        for name, value, limit in (("predicate", predicate, 200), ("object", obj, MAX_OBJECT_CHARS)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name} is a text, not {type(value).__name__}")
            if value and len(check_storable(value, name)) > limit:
                raise ValueError(f"{name} has {len(value)} characters; the limit is {limit}")
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    if fact_kind is not None and kind is not MemoryKind.FACT:
        raise InvalidInput(f"a fact kind is for a memory of kind fact, not {kind.value}")
    try:
        edge_kind = FactKind(fact_kind or FactKind.ATTRIBUTE)
    except ValueError:
        kinds = ", ".join(k.value for k in FactKind)
        raise InvalidInput(f"no fact kind {fact_kind!r}; the fact kinds are {kinds}") from None
    subject, predicate, obj = subject.strip(), (predicate or "").strip(), (obj or "").strip()
    if not text.strip() and predicate:
        text = compose(subject, predicate, obj)
    if kind is MemoryKind.FACT:
        return text, FactData(subject=subject, predicate=predicate, object=obj, kind=edge_kind).into(data)
    return text, {**(data or {}), "subject": subject, "predicate": predicate, "object": obj}
