"""Step c: merge the descriptions a subject accumulated over time (seed 000 §八 记忆的清理 2).

Valid facts are grouped by subject (after step a's merges), by attribute vs impression (seed 000 reads
属性 and 印象 separately: opinions and preferences are impressions) and by keyword (the predicate when
there is none). A merge writes **one new fact** whose sources are the union of its members' sources and
whose ``data.merged_from`` lists the members; each member is closed (``valid_to`` = now,
``data.merged_into`` = the new id). Nothing is deleted, so provenance is never lost.

- **Without an LLM** only the same claim said more than once merges (same predicate, or two preference
  words of one polarity, and the same object): its wording is the most recent one, ties going to the
  best supported (most sources). Different claims (喜欢 咖啡, 喜欢 猫) stay apart.
- **With an LLM** (``describe_<lang>.md``) each group of two or more is shown to it, and it writes one
  deduplicated description for the facts that say the same or belong together; facts it leaves out
  stay as they are, and then the rule above still merges repeated claims among them. A description not in
  the facts' language (English for Chinese facts) is ignored, as is one the facts do not support.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from typing import Any

from huiyi.flows.consolidate.llm import ask
from huiyi.flows.consolidate.state import FactView, State
from huiyi.flows.consolidate.supersede import polarity
from huiyi.model import MemoryItem, MemoryKind
from huiyi.providers.llm import LLM
from huiyi.text.tokens import has_cjk

__all__ = ["merge_descriptions"]

log = logging.getLogger(__name__)

_IMPRESSION = {"opinion", "preference"}
_BATCH_FACTS = 60  # facts per LLM call

SCHEMA = {
    "type": "object",
    "properties": {
        "merged": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "facts": {"type": "array", "items": {"type": "string"}},
                    "description": {"type": "string"},
                    "predicate": {"type": "string"},
                    "object": {"type": "string"},
                },
                "required": ["facts", "description"],
            },
        }
    },
    "required": ["merged"],
}


def _groups(state: State) -> list[list[FactView]]:
    groups: dict[tuple[str, bool, str], list[FactView]] = defaultdict(list)
    for view in state.valid_facts():
        groups[(view.subject, view.fact_kind in _IMPRESSION, view.keyword or view.predicate)].append(view)
    return [g for g in groups.values() if len(g) >= 2]


async def merge_descriptions(state: State, llm: LLM | None = None) -> int:
    """Merge accumulated descriptions; returns how many new facts were written."""
    groups = _groups(state)
    written = 0
    if llm is not None and state.config.describe.llm_max_groups:
        newest_first = sorted(groups, key=lambda g: max(v.time for v in g), reverse=True)
        asked = [
            g[-state.config.describe.llm_group_size :] for g in newest_first[: state.config.describe.llm_max_groups]
        ]
        written += await _with_llm(state, llm, asked)
        groups = _groups(state)  # what the LLM merged is closed now
    for group in groups:
        claims: dict[tuple[int, str, str], list[FactView]] = defaultdict(list)
        for view in group:
            sign, base, preference = polarity(view.predicate, state)
            claims[(sign, "" if preference else base, view.object)].append(view)
        for members in claims.values():
            if len(members) < 2:
                continue
            best = max(members, key=lambda v: (v.time, len(v.item.sources), v.id))
            _write(
                state, members, best.item.text, {}, f"the same claim said {len(members)} times; kept the latest wording"
            )
            written += 1
    log.info("consolidate %s: %d merged descriptions", state.scope.tag, written)
    return written


async def _with_llm(state: State, llm: LLM, groups: list[list[FactView]]) -> int:
    written = 0
    batch: list[list[FactView]] = []
    for group in [*groups, []]:
        if group and sum(map(len, batch)) + len(group) <= _BATCH_FACTS:
            batch.append(group)
            continue
        if batch:
            written += await _ask(state, llm, batch)
        batch = [group] if group else []
    return written


async def _ask(state: State, llm: LLM, groups: list[list[FactView]]) -> int:
    labels: dict[str, tuple[int, FactView]] = {}
    lines: list[str] = []
    for g, group in enumerate(groups, 1):
        first = group[0].item.fact
        lines.append(f"g{g}: {first.subject} / {first.keyword or first.predicate}")
        for view in group:
            label = f"f{len(labels) + 1}"
            labels[label] = (g, view)
            lines.append(f"  {label} ({view.time:%Y-%m-%d}): {view.item.text}")
    answer = await ask(state, llm, "describe", {"facts": "\n".join(lines)}, SCHEMA)
    if answer is None:
        return 0
    used: set[str] = set()
    written = 0
    for entry in answer.get("merged", []):
        picked = [str(x).strip().lower() for x in entry.get("facts", [])]
        picked = list(dict.fromkeys(x if x.startswith("f") else f"f{x}" for x in picked))
        description = str(entry.get("description", "")).strip()
        if len(picked) < 2 or not description or any(p not in labels or p in used for p in picked):
            state.report.errors.append(f"describe: ignored a merge the facts do not support: {entry!r}")
            continue
        if len({labels[p][0] for p in picked}) != 1:
            state.report.errors.append(f"describe: ignored a merge across groups: {picked}")
            continue
        if any(has_cjk(labels[p][1].item.text) for p in picked) and not has_cjk(description):
            # a translated fact would be recalled by no Chinese query, and it closes the facts it merges
            state.report.errors.append(
                f"describe: ignored a description not in Chinese, the facts' language: {description!r}"
            )
            continue
        used.update(picked)
        edge = {k: str(entry[k]).strip() for k in ("predicate", "object") if str(entry.get(k) or "").strip()}
        _write(state, [labels[p][1] for p in picked], description, edge, "the LLM merged the descriptions")
        written += 1
    return written


def _write(state: State, members: list[FactView], description: str, edge: dict[str, Any], reason: str) -> None:
    members = sorted(members, key=lambda v: (v.time, v.id))
    newest, ids = members[-1], [v.id for v in members]
    digest = hashlib.blake2b("\x1f".join(sorted(ids)).encode(), digest_size=10).hexdigest()
    items = [v.item for v in members]
    confidences = [c for c in (item.fact.confidence for item in items) if c is not None]
    fact = newest.item.fact.model_copy(
        update={**edge, "valid_from": members[0].time, "confidence": max(confidences, default=None)}
    )
    kept = {"space": newest.item.data["space"]} if "space" in newest.item.data else {}
    told = [names for item in items if isinstance(names := item.data.get("told_by"), list) and names]
    if len(told) == len(items):  # still only others' word of the subject
        kept["told_by"] = list(dict.fromkeys(name for names in told for name in names))
    data = fact.into({**kept, "merged_from": ids})
    merged = MemoryItem(
        id=f"fm_{digest}",
        scope=state.scope,
        kind=MemoryKind.FACT,
        text=description,
        time=newest.time,
        keywords=list(dict.fromkeys(k for item in items for k in item.keywords)),
        importance=max(item.importance for item in items),
        strength=max(item.strength for item in items),
        access_count=sum(item.access_count for item in items),
        last_access=max((item.last_access for item in items if item.last_access), default=None),
        created_at=state.store.clock(),  # zone-less UTC, as the store stamps every row; now is wall clock
        sources=list(dict.fromkeys(s for item in items for s in item.sources)),
        data=data,
    )
    state.insert(merged)
    for view in members:
        state.update(view.id, {"valid_to": state.now, "data": {**view.item.data, "merged_into": merged.id}})
    state.report.add("describe", "merge_facts", [merged.id, *ids], [v.item.text for v in members], description, reason)
