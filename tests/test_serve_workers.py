"""``huiyi serve --workers 0`` is an API-only replica (docs/scaling.md): it left the store's own background
worker on, so the API process still took folds, called the LLM and ran maintenance (helper)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from huiyi.faces.cli import app


@pytest.mark.parametrize(("workers", "extracts"), [("0", False), ("1", True)])
def test_serve_with_no_workers_extracts_nothing_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str, extracts: bool
) -> None:
    served: list[Any] = []
    monkeypatch.setattr("uvicorn.run", lambda api, **_: served.append(api))  # the app as it would serve
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "hash")
    result = CliRunner().invoke(app, ["serve", "--store", str(tmp_path / "s"), "--workers", workers])
    assert result.exit_code == 0, result.output
    memory = served[0].state.memory
    try:
        assert memory.config.worker.enabled is extracts
    finally:
        asyncio.run(memory.close())
