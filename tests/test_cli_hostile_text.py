"""What the CLI prints of chat text is the text as written: never rich markup (``[/bold]`` in a message made
``inspect``, ``recall`` and ``chat`` end in a MarkupError traceback, ``[link=…]`` made a live link) and never
the terminal's own commands (ESC [2J cleared the screen, OSC 52 wrote the clipboard). A helper's finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from huiyi.config import Config
from huiyi.faces.cli import app
from huiyi.memory import Memory

runner = CliRunner()
SAID = [
    "标记 [/bold] 和 [red]红[/red] 还有 [link=https://evil.example]链接[/link]",
    "清屏 \x1b[2J 剪贴板 \x1b]52;c;aGk=\x07 完",
]


@pytest.fixture(autouse=True)
def _hash_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "hash")
    monkeypatch.setenv("HUIYI_WORKER__ENABLED", "false")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    with Memory(tmp_path / "s", config=Config.load()) as memory:
        memory.add(SAID, agent="A", person="P", index=True)
    return tmp_path / "s"


def _printed_as_written(output: str) -> None:
    assert "[/bold]" in output and "[red]红[/red]" in output and "[link=https://evil.example]" in output
    assert "\\x1b[2J" in output and "\\x1b]52;c;aGk=\\x07" in output
    assert "\x1b" not in output and "\x07" not in output


@pytest.mark.parametrize("columns", ["80", "160"])  # lines, or a table
def test_inspect_prints_chat_text_as_written(store: Path, columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    result = runner.invoke(app, ["inspect", "-a", "A", "-p", "P", "-s", str(store)])
    assert result.exit_code == 0, result.output
    if columns == "80":  # a table cell folds long text over lines
        _printed_as_written(result.output)
    assert "\x1b" not in result.output and "[/bold]" in result.output


def test_recall_prints_chat_text_as_written(store: Path) -> None:
    for query in ("标记", "清屏"):
        result = runner.invoke(app, ["recall", query, "-a", "A", "-p", "P", "-s", str(store)])
        assert result.exit_code == 0, result.output
    _printed_as_written(runner.invoke(app, ["recall", "标记 清屏", "-a", "A", "-p", "P", "-s", str(store)]).output)


def test_chat_prints_what_was_typed_and_recalled_as_written(store: Path) -> None:
    typed = "我的昵称是 [/b] 哈\n清屏 \x1b[2J 了吗\n"
    result = runner.invoke(app, ["chat", "-a", "A", "-p", "P", "-s", str(store)], input=typed)
    assert result.exit_code == 0, result.output
    assert "[/b]" in result.output and "\\x1b[2J" in result.output and "\x1b" not in result.output


def test_an_error_that_names_hostile_text_is_one_line_as_written(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the error line is printed with markup: a refused id that held "[/bold]" raised MarkupError in the printer
    import sys

    from huiyi.faces.cli.app import main

    monkeypatch.setattr(sys, "argv", ["huiyi", "inspect", "-a", "A", "-p", "[/bold]\x1b", "-s", str(store)])
    with pytest.raises(SystemExit) as stopped:  # any other exception is the traceback a user saw
        main()
    printed = capsys.readouterr().err
    assert stopped.value.code == 2 and "[/bold]" in printed and "\x1b" not in printed
