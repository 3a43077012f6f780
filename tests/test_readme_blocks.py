"""The README and docs/ as a new developer copies them: every Python block runs as a script."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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
