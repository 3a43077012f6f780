"""The README and docs/ as a new developer copies them: every Python block runs as a script, and the CLI's
command list is the app's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.client import Client
from huiyi.faces.cli import app
from huiyi.store.sqlite.schema import MIGRATIONS

ROOT = Path(__file__).parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for number, match in enumerate(re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)):
            found.append((f"{path.name}#{number}", match.group(1)))
    return found


@pytest.mark.parametrize(("name", "source"), python_blocks(), ids=[name for name, _ in python_blocks()])
def test_python_block_compiles_as_a_script(name: str, source: str) -> None:
    # a block pasted into a file must run there: top-level await or async with is a SyntaxError outside a REPL
    compile(source, name, "exec")


def test_cli_list_names_every_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"^`huiyi (demo \|[^`]*)`", readme, re.M | re.S)
    assert listed, "the README's CLI section lists the commands as `huiyi demo | serve | …`"
    names = {name.strip() for name in listed.group(1).split("|")}
    commands = {command.name for command in app.registered_commands}
    groups = {group.name for group in app.registered_groups}
    assert names == commands | groups


def test_health_example_names_this_schema_version() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r'"schema_version":(\d+)', readme)
    assert shown, "the README's HTTP session shows /health"
    assert int(shown.group(1)) == len(MIGRATIONS)


def test_layout_names_every_face() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout") : readme.index("## Development")]
    faces = ROOT / "src" / "huiyi" / "faces"
    modules = {path.stem for path in faces.glob("*.py") if path.stem != "__init__"}
    assert {name for name in modules if not re.search(rf"\b{name}\b", layout)} == set()


def test_client_section_names_every_shared_method() -> None:
    # the Python client is sold as Memory's methods over HTTP: each it shares with Memory should be named
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Clients") : readme.index("**TypeScript**")]
    shared = {name for name in dir(Client) if not name.startswith("_") and hasattr(Memory, name)} - {"close"}
    assert {name for name in shared if not re.search(rf"\b{name}\b", section)} == set()
