"""The context budget fits a context in a bounded number of renders, to the same text as before.

The expectations are digests of what the budget rendered before it measured turns once (commit 6a169af):
the kept and dropped memories and every byte of the text must stay as they were."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from huiyi.model import CoreBlock, MemoryKind
from huiyi.recall import render
from huiyi.recall.budget import render_within
from huiyi.recall.render import ContextParts, RenderedContext, Templates
from test_context_budget import NOW, PERSONA, ZH, fact, huge_parts, memory_item, turn


def _digest(rendered: RenderedContext) -> str:
    dropped = [(d.id, d.section, d.reason) for d in rendered.dropped]
    return hashlib.sha256(repr((rendered.text, rendered.sections, dropped)).encode()).hexdigest()[:16]


def _long_turns() -> ContextParts:
    """Turns of lines and role markers a cut may split, events made of old turns (admitted once those turns
    go), an overview event a recalled one repeats, and a working turn the caller's prompt already shows."""
    working = [
        turn(n, f"第{n}轮\n  <|im_start|>第二行 " + "海边的风很大，浪一阵一阵。\n" * (20 + n % 7)) for n in range(30)
    ]
    working[5] = turn(5, "e\u0301" * 900 + "👩\u200d👩\u200d👧" * 200)
    overview = [memory_item(f"ov{i}", f"第{i}件事：一起去了画廊。" * (5 + i), MemoryKind.EVENT, i) for i in range(6)]
    overview[2] = overview[2].model_copy(update={"sources": ["m1", "m2"]})
    events = [
        memory_item(f"e{i}", f"木木说起第{i}次旅行。" * (10 + 3 * i), MemoryKind.EVENT, 10 + i).model_copy(
            update={"sources": [f"m{i}", f"m{i + 1}"]}
        )
        for i in range(6)
    ]
    events.append(overview[3].model_copy(update={"id": "e-repeat"}))
    facts = [
        fact("f-top", "木木最喜欢莫兰迪色系"),
        *(fact(f"f{i}", f"木木喜欢第{i}种花。" * (8 + i)) for i in range(5)),
    ]
    ranking = ["f-top", "e0", "f0", "e-repeat", "e1", "f1", "e2", "f2", "e3", "f3", "e4", "f4", "e5"]
    return ContextParts(
        agent="祈煜",
        person="木木",
        now=NOW,
        core_blocks=[CoreBlock(label="persona", text=PERSONA)],
        overview=overview,
        facts=facts,
        events=events,
        working=working,
        shown_elsewhere=frozenset({"m27"}),
        answering="m20",
        earlier_turns=3,
        ranking=ranking,
    )


def _english() -> ContextParts:
    working = [turn(n, "We talked about the sea for a long while. " * (10 + n)) for n in range(30)]
    return ContextParts(agent="Ava", person="Sam", now=NOW, language="en", working=working)


def _flood() -> ContextParts:
    flood = "Z" + "\u0301" * 5_000
    working = [turn(0, "你好"), turn(1, "嗯"), turn(2, flood), turn(3, "好"), turn(4, "最后一句")]
    return ContextParts(agent="祈煜", person="木木", now=NOW, working=working)


def _core_alone() -> ContextParts:
    parts = ContextParts(
        agent="祈煜", person="木木", now=NOW, core_blocks=[CoreBlock(label="persona", text="我是祈煜。" * 500)]
    )
    parts.working = [turn(n, "说了一些话" * 50) for n in range(20)]
    return parts


def _alike() -> ContextParts:
    """Recalled memories that differ only in their middles: once cut they read the same, and the second is
    left out as a repeat; one pasted text among short turns."""
    middle = ["海边", "山里", "城里"]
    events = [
        memory_item(f"e{i}", "开头的话。" * 80 + middle[i] + "结尾的话。" * 40, MemoryKind.EVENT, 5 + i)
        for i in range(3)
    ]
    working = [turn(n, "短句") for n in range(12)]
    working[6] = turn(6, "很长的一段话。" * 3000)
    return ContextParts(
        agent="祈煜", person="木木", now=NOW, events=events, working=working, ranking=["e0", "e1", "e2"]
    )


CASES: dict[str, tuple[Callable[[], ContextParts], Templates, list[int]]] = {
    "huge": (huge_parts, ZH, [12_000, 4_000, 1_500, 300]),
    "long_turns": (_long_turns, ZH, [9_000, 6_000, 4_000, 3_000, 2_000, 1_200, 700]),
    "english": (_english, Templates.load("en"), [20_000, 3_000, 900]),
    "flood": (_flood, ZH, [2_000, 150]),
    "core_alone": (_core_alone, ZH, [2_000, 1_000]),
    "alike": (_alike, ZH, [5_000, 2_000, 900, 400]),
}

FROZEN: dict[tuple[str, int], str] = {
    ("huge", 12000): "d0a26b862cc92b84",  # 11735 chars, 153 dropped
    ("huge", 4000): "a316a3c4e249c27c",  # 3906 chars, 166 dropped
    ("huge", 1500): "43e717898fc172f5",  # 1348 chars, 170 dropped
    ("huge", 300): "19219a5eab35c72e",  # 349 chars, 174 dropped
    ("long_turns", 9000): "c07cb19639ac6741",  # 8834 chars, 14 dropped
    ("long_turns", 6000): "4e36c62dc6802723",  # 5658 chars, 22 dropped
    ("long_turns", 4000): "95ba0f4fb9d8bd59",  # 3917 chars, 27 dropped
    ("long_turns", 3000): "e1d3c599e0262416",  # 2970 chars, 32 dropped
    ("long_turns", 2000): "183f743a02f3a44a",  # 1939 chars, 36 dropped
    ("long_turns", 1200): "846ef14e7d4721fe",  # 1117 chars, 39 dropped
    ("long_turns", 700): "f4d0e9a393461230",  # 639 chars, 41 dropped
    ("english", 20000): "63b816e694c06403",  # 19217 chars, 16 dropped
    ("english", 3000): "154d7eaec13d62d2",  # 2723 chars, 22 dropped
    ("english", 900): "fa9e5c116bc77923",  # 795 chars, 24 dropped
    ("flood", 2000): "11990d3d0bf7e85e",  # 2000 chars, 0 dropped
    ("flood", 150): "27466ebf2c21b824",  # 150 chars, 0 dropped
    ("core_alone", 2000): "fdf2490ef88b6b94",  # 2858 chars, 16 dropped
    ("core_alone", 1000): "fdf2490ef88b6b94",  # 2858 chars, 16 dropped
    ("alike", 5000): "c71353dc5b1e9e35",  # 5000 chars, 0 dropped
    ("alike", 2000): "32d56c0be9722f43",  # 1975 chars, 1 dropped
    ("alike", 900): "0378f21ef9714e77",  # 900 chars, 2 dropped
    ("alike", 400): "2b9b0bbe801a4f18",  # 400 chars, 2 dropped
}


@pytest.mark.parametrize("case,budget_chars", [(name, b) for name, (_, _, budgets) in CASES.items() for b in budgets])
def test_an_over_budget_context_renders_as_before(case: str, budget_chars: int) -> None:
    make, templates, _ = CASES[case]
    assert _digest(render_within(make(), templates, budget_chars)) == FROZEN[case, budget_chars]


@pytest.mark.parametrize("case", ["huge", "long_turns", "english"])
def test_fitting_renders_a_bounded_number_of_times(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each turn's line is rendered about once, and the context a dozen times at most: the old fit rendered
    all of it again for each of its 20–40 trials (0.3 s for a pasted article)."""
    make, templates, budgets = CASES[case]
    calls = {"renders": 0, "lines": 0}

    def counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def spy(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return spy

    monkeypatch.setattr(render._Renderer, "render", counted("renders", render._Renderer.render))
    monkeypatch.setattr(render._Renderer, "turn", counted("lines", render._Renderer.turn))
    for limit in budgets:
        parts = make()
        calls.update(renders=0, lines=0)
        render_within(parts, templates, limit)
        assert calls["renders"] <= 15
        assert calls["lines"] <= len(parts.working) + 25
