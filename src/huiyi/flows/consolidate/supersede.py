"""Step b: a newer fact that contradicts an older one closes it (``valid_to``); nothing is deleted.

Facts are compared by subject after step a's merges (霓霓 and 苏霓 are one subject), by normalised
predicate, and by object (an entity's canonical key, else the normalised literal). Two valid facts are
*incompatible* when

1. **one value at a time**: same subject, same single-valued predicate (住在, 生日是, 职业是, 名字是,
   最喜欢的…; ``SupersedeConfig.single_valued``), different objects: 住在 上海 → 住在 南京;
2. **opposite polarity**: same subject, same object, one the negation of the other: 喜欢 咖啡 →
   不喜欢/讨厌 咖啡 (preference words on both sides), or P and 不P (是/不是, 养/不养). Objects are
   compared without a leading verb: 喜欢 喝咖啡 and 不喜欢 咖啡 are about one thing.

The older one gets ``valid_to`` = the newer one's time and ``data.superseded_by`` = its id. A fact is
closed by the first later fact that contradicts it, so a history 上海 → 南京 → 上海 closes the first two.
In a group, a member's word about another member or the agent (``told_by``: 阿杰's 小雨住在上海) closes
only others' word of them, never what the subject said of themselves.
Two contradicting facts of the same moment (one fold said both) are left to the LLM: which is newer
is unknown.

With an LLM, the pairs rules cannot decide (same subject and predicate or keyword, different objects:
木木 工作于 字节 vs 木木 上班于 腾讯) go to it (``supersede_<lang>.md``); a pair it calls
``contradicts`` is closed the same way.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass

from huiyi.flows.consolidate.llm import ask
from huiyi.flows.consolidate.state import FactView, State, norm
from huiyi.providers.llm import LLM

__all__ = ["polarity", "supersede_facts"]

log = logging.getLogger(__name__)

SCHEMA = {
    "type": "object",
    "properties": {
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "pair": {"type": "string"},
                    "verdict": {"type": "string", "enum": ["contradicts", "compatible", "same"]},
                    "reason": {"type": "string"},
                },
                "required": ["pair", "verdict"],
            },
        }
    },
    "required": ["pairs"],
}


@dataclass(frozen=True)
class _Words:
    positive: frozenset[str]
    negative: frozenset[str]
    negations: tuple[str, ...]  # longest first
    single: frozenset[str]
    single_prefixes: tuple[str, ...]


def _words(state: State) -> _Words:
    words = state.memo.get("supersede_words")
    if not isinstance(words, _Words):
        config = state.config.supersede
        words = _Words(
            positive=frozenset(norm(w) for w in config.positive),
            negative=frozenset(norm(w) for w in config.negative),
            negations=tuple(sorted((p.lower() for p in config.negation_prefixes), key=len, reverse=True)),
            single=frozenset(norm(p) for p in config.single_valued),
            single_prefixes=tuple(norm(p) for p in config.single_valued_prefixes),
        )
        state.memo["supersede_words"] = words
    return words


def polarity(predicate: str, state: State) -> tuple[int, str, bool]:
    """(+1 or −1, the predicate without its negation, whether it is a preference word).

    >>> from huiyi.config.consolidate import ConsolidateConfig
    >>> class S: config, memo = ConsolidateConfig(), {}
    >>> [polarity(p, S()) for p in ("喜欢", "不喜欢", "讨厌", "不是", "是")]  # doctest: +NORMALIZE_WHITESPACE
    [(1, '喜欢', True), (-1, '喜欢', True), (-1, '讨厌', True), (-1, '是', False), (1, '是', False)]
    """
    known: dict[str, tuple[int, str, bool]] = state.memo.setdefault("polarity", {})
    if predicate not in known:
        known[predicate] = _polarity(predicate, _words(state))
    return known[predicate]


def _polarity(predicate: str, words: _Words) -> tuple[int, str, bool]:
    p = norm(predicate)
    for prefix in words.negations:
        if p.startswith(prefix) and len(p) > len(prefix):
            base = p[len(prefix) :].strip()
            return -1, base, base in words.positive or p in words.negative
    if p in words.negative:
        return -1, p, True
    return 1, p, p in words.positive


def _single_valued(predicate: str, state: State) -> bool:
    words = _words(state)
    return predicate in words.single or predicate.startswith(words.single_prefixes)


def _opposite(a: FactView, b: FactView, state: State) -> bool:
    pa, pb = polarity(a.predicate, state), polarity(b.predicate, state)
    return pa[0] != pb[0] and (pa[1] == pb[1] or (pa[2] and pb[2]))


def _after(new: FactView, old: FactView) -> bool:
    """Whether ``new`` was said later and may close ``old``; two facts of one moment leave the order open
    (for the LLM). A member's word about another (``told_by``) never closes what the subject said."""
    return new.time > old.time and _may_close(new, old)


def _may_close(new: FactView, old: FactView) -> bool:
    return not new.item.data.get("told_by") or bool(old.item.data.get("told_by"))


def _close(state: State, old: FactView, new: FactView, reason: str) -> None:
    moment = new.time
    state.update(old.id, {"valid_to": moment, "data": {**old.item.data, "superseded_by": new.id}})
    state.report.add(
        "supersede",
        "supersede",
        [old.id, new.id],
        {"fact": old.item.text, "valid_to": None},
        {"by": new.item.text, "valid_to": moment.isoformat(sep=" ")},
        reason,
    )


async def supersede_facts(state: State, llm: LLM | None = None) -> int:
    """Close contradicted facts; returns how many were closed."""
    facts = state.valid_facts()  # oldest first
    closed: set[str] = set()
    by_predicate: dict[tuple[str, str], list[FactView]] = defaultdict(list)
    by_object: dict[tuple[str, str], list[FactView]] = defaultdict(list)
    for view in facts:
        if _single_valued(view.predicate, state):
            by_predicate[(view.subject, view.predicate)].append(view)
        if view.topic != "lit:":
            by_object[(view.subject, view.topic)].append(view)
    for (subject, predicate), group in by_predicate.items():
        for i, old in enumerate(group):
            new = next((later for later in group[i + 1 :] if later.object != old.object and _after(later, old)), None)
            if new is not None and old.id not in closed:
                closed.add(old.id)
                was, now = state.display(old.object), state.display(new.object)
                _close(state, old, new, f"{state.display(subject)} {predicate} holds one value: {was} → {now}")
    for (subject, obj), group in by_object.items():
        for i, old in enumerate(group):
            new = next((later for later in group[i + 1 :] if _opposite(old, later, state) and _after(later, old)), None)
            if new is not None and old.id not in closed:
                closed.add(old.id)
                _close(
                    state,
                    old,
                    new,
                    f"{state.display(subject)} {new.predicate} {state.display(obj)} negates {old.predicate}",
                )
    if llm is not None and state.config.supersede.llm_max_pairs:
        await _ask_llm(state, llm, [f for f in facts if f.id not in closed], closed)
    log.info("consolidate %s: %d facts superseded", state.scope.tag, len(closed))
    return len(closed)


def _ambiguous(state: State, facts: list[FactView]) -> list[tuple[FactView, FactView]]:
    """Pairs (older, newer) the rules left open, newest first, at most ``llm_max_pairs``."""
    by_subject: dict[str, list[FactView]] = defaultdict(list)
    for view in facts:
        by_subject[view.subject].append(view)
    pairs: list[tuple[FactView, FactView]] = []
    for group in by_subject.values():
        for j, new in enumerate(group):
            for old in group[:j]:
                same_topic = old.predicate == new.predicate or (old.keyword and old.keyword == new.keyword)
                if not same_topic or (old.predicate == new.predicate and old.object == new.object):
                    continue
                if not _may_close(new, old):
                    continue
                po, pn = polarity(old.predicate, state), polarity(new.predicate, state)
                if po[2] and pn[2] and po[0] == pn[0] and old.object != new.object:
                    continue  # likes coffee, likes cats: both can hold
                pairs.append((old, new))
    pairs.sort(key=lambda pair: (pair[1].time, pair[1].id), reverse=True)
    return pairs[: state.config.supersede.llm_max_pairs]


async def _ask_llm(state: State, llm: LLM, facts: list[FactView], closed: set[str]) -> None:
    pairs = _ambiguous(state, facts)
    if not pairs:
        return
    lines = []
    for index, (old, new) in enumerate(pairs, 1):
        lines.append(f"p{index}")
        for label, view in (("A", old), ("B", new)):
            fact = view.item.fact
            edge = " | ".join((fact.subject, fact.predicate, fact.object))
            lines.append(f"  {label} ({view.time:%Y-%m-%d %H:%M}): {view.item.text} [{edge}]")
    answer = await ask(state, llm, "supersede", {"pairs": "\n".join(lines)}, SCHEMA)
    if answer is None:
        return
    for verdict in answer.get("pairs", []):
        key = str(verdict.get("pair", "")).strip().lower().removeprefix("p")
        if verdict.get("verdict") != "contradicts" or not key.isdigit() or not 1 <= int(key) <= len(pairs):
            continue
        old, new = pairs[int(key) - 1]
        if old.id in closed or new.id in closed:
            continue
        closed.add(old.id)
        _close(state, old, new, f"the LLM judged them contradictory: {verdict.get('reason') or 'no reason given'}")
