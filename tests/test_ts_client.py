"""The TypeScript client (clients/ts): its generated types match the server's schema, and its tests
pass against a live ``huiyi serve`` under node's built-in test runner (no npm install needed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from huiyi_serve import HuiyiServe

TS = Path(__file__).resolve().parents[1] / "clients" / "ts"


def test_the_committed_schema_is_the_servers() -> None:
    import runpy

    schema = runpy.run_path(str(TS / "openapi.py"))["schema"]()
    committed = json.loads((TS / "openapi.json").read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(schema)), (
        "the HTTP API changed: in clients/ts run `npm run schema && npm run generate` and commit both files"
    )


def test_the_package_pins_its_generator_and_has_no_runtime_dependency() -> None:
    package = json.loads((TS / "package.json").read_text(encoding="utf-8"))
    assert "dependencies" not in package
    version = package["devDependencies"]["openapi-typescript"]
    assert version[0].isdigit(), "pin the generator to an exact version"
    assert (TS / "src" / "schema.d.ts").read_text(encoding="utf-8").startswith("/**\n * This file was auto-generated")
    assert (TS / "package-lock.json").exists()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_ts_client_against_a_live_server(tmp_path: Path) -> None:
    with HuiyiServe(tmp_path / "serve") as server:
        env = {**os.environ, "HUIYI_URL": server.url, "HUIYI_KEY": server.key}
        done = subprocess.run(
            ["node", "--test", "test/"], cwd=TS, env=env, capture_output=True, text=True, timeout=120, check=False
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout and "# pass 19" in done.stdout
