"""A group's export carries its members' records: imported elsewhere, a member known by a QQ number alone kept
no name (a helper's finding: the space export held no person line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from huiyi.config import Config
from huiyi.faces.cli import app
from huiyi.memory import Memory

runner = CliRunner()
QQ = Path(__file__).parent / "data" / "imports" / "qq.txt"


@pytest.fixture(autouse=True)
def _hash_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "hash")
    monkeypatch.setenv("HUIYI_WORKER__ENABLED", "false")


def _persons(store: Path) -> dict[str, tuple[str, list[str]]]:
    with Memory(store, config=Config.load()) as memory:
        return {p.id: (p.name, sorted(p.aliases)) for p in memory.store.list_persons("Bot")}


def test_a_spaces_export_imported_elsewhere_keeps_its_members_names(tmp_path: Path) -> None:
    for args in (
        ["import", str(QQ), "-s", str(tmp_path / "a"), "-a", "Bot", "--self", "90000"],
        ["export", "-a", "Bot", "--space", "周末爬山群", "-s", str(tmp_path / "a"), "-o", str(tmp_path / "g.jsonl")],
        ["import", str(tmp_path / "g.jsonl"), "-s", str(tmp_path / "b")],
    ):
        assert runner.invoke(app, args).exit_code == 0, args
    lines = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines if line["type"] == "person"] == ["10001", "10002"]
    assert _persons(tmp_path / "b") == _persons(tmp_path / "a") != {}
