"""What one consolidation changed: every change with its ids, before and after, and why.

>>> from datetime import datetime
>>> from huiyi.model import Scope
>>> report = Report(scope=Scope.of_person("祈煜", "木木"), now=datetime(2024, 5, 1), dry_run=True)
>>> _ = report.add("supersede", "supersede", ["fa_1", "fa_2"], {"valid_to": None}, {"valid_to": "2024-04-30"},
...                "住在 is single-valued: 上海 → 南京")
>>> print(report)  # doctest: +NORMALIZE_WHITESPACE
consolidate person:木木 of 祈煜 at 2024-05-01 00:00 (dry run: nothing written)
supersede: 1 change
  supersede fa_1, fa_2: {'valid_to': None} → {'valid_to': '2024-04-30'} (住在 is single-valued: 上海 → 南京)
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from huiyi.model import Scope

__all__ = ["STEPS", "Change", "Report", "Step"]

Step = Literal["entities", "supersede", "describe", "links", "strength", "forget"]
STEPS: tuple[Step, ...] = ("entities", "supersede", "describe", "links", "strength", "forget")


class Change(BaseModel):
    """One change: ``kind`` says what (merge_entity, supersede, merge_facts, link, strength, decay, delete)."""

    model_config = ConfigDict(extra="forbid")

    step: Step
    kind: str
    ids: list[str]
    before: Any = None
    after: Any = None
    reason: str = ""

    def line(self) -> str:
        text = f"{self.kind} {', '.join(self.ids)}"
        if self.before is not None or self.after is not None:
            text += f": {self.before!r} → {self.after!r}"
        return text + (f" ({self.reason})" if self.reason else "")


class Report(BaseModel):
    """Every change one consolidation made (or, in a dry run, would make), in the order made."""

    model_config = ConfigDict(extra="forbid")

    scope: Scope
    now: datetime
    dry_run: bool = False
    changes: list[Change] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)  # e.g. an LLM that failed; the rules' answer was kept
    llm_calls: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def add(
        self, step: Step, kind: str, ids: list[str], before: Any = None, after: Any = None, reason: str = ""
    ) -> Change:
        change = Change(step=step, kind=kind, ids=ids, before=before, after=after, reason=reason)
        self.changes.append(change)
        return change

    def of(self, kind: str) -> list[Change]:
        """The changes of one kind (or of one step, when ``kind`` names a step)."""
        return [c for c in self.changes if kind in (c.kind, c.step)]

    def counts(self) -> dict[str, int]:
        """How many changes of each kind."""
        return dict(Counter(c.kind for c in self.changes))

    def render(self, limit: int | None = 50) -> str:
        """Readable lines, grouped by step; at most ``limit`` changes shown per step (None: all)."""
        head = f"consolidate {self.scope.tag} of {self.scope.agent} at {self.now:%Y-%m-%d %H:%M}"
        lines = [head + (" (dry run: nothing written)" if self.dry_run else "")]
        for step in STEPS:
            changes = [c for c in self.changes if c.step == step]
            if not changes:
                continue
            lines.append(f"{step}: {len(changes)} change{'s' if len(changes) != 1 else ''}")
            shown = changes if limit is None else changes[:limit]
            lines.extend(f"  {c.line()}" for c in shown)
            if len(shown) < len(changes):
                lines.append(f"  … and {len(changes) - len(shown)} more")
        lines.extend(f"error: {e}" for e in self.errors)
        if len(lines) == 1:
            lines.append("nothing to change")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()
