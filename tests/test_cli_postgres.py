"""The CLI over a PostgreSQL store named by a ``postgresql://`` URL in ``--store``."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, urlencode

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from typer.testing import CliRunner

import pg_server
from huiyi.faces.cli import app
from huiyi.memory import AsyncMemory
from huiyi.store.postgres.schema import MIGRATIONS

runner = CliRunner()


def as_url(dsn: str, password: str | None = None) -> str:
    """The test schema's key=value DSN as a ``postgresql://`` URL (socket directory and options as parameters)."""
    params = {key: str(value) for key, value in conninfo_to_dict(dsn).items() if value is not None}
    user, database = params.pop("user"), params.pop("dbname")
    params.pop("port", None)
    login = f"{user}:{password}" if password else user
    return f"postgresql://{login}@/{database}?{urlencode(params, quote_via=quote)}"


def test_migrate_opens_the_postgresql_url_in_store_and_does_not_print_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where a URL taken for a directory would have become a SQLite store
    dsn = pg_server.fresh_dsn()
    url = as_url(dsn, password="s3cret")  # trust auth: the password is not checked
    result = runner.invoke(app, ["migrate", "--store", url])
    assert result.exit_code == 0, (result.output, result.exception)
    assert list(tmp_path.iterdir()) == []
    assert "schema version" in result.output and "user=postgres" in result.output
    assert "s3cret" not in result.output
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone() == (len(MIGRATIONS),)


def test_an_import_counts_the_extraction_jobs_whoever_ran_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As on SQLite (tests/test_cli_data.py): the jobs are found by when PostgreSQL says they were queued."""
    drain = AsyncMemory.run_jobs

    async def run_by_another(memory: AsyncMemory) -> int:
        await drain(memory)
        return 0  # as when the background worker took every job first: the import said 0 run

    monkeypatch.setattr(AsyncMemory, "run_jobs", run_by_another)
    monkeypatch.chdir(tmp_path)
    demo = Path(__file__).parents[1] / "src" / "huiyi" / "data" / "demo_zh.jsonl"
    args = ["import", str(demo), "--agent", "祈煜", "--person", "木木", "--store", as_url(pg_server.fresh_dsn())]
    result = runner.invoke(app, args, env={"HUIYI_EMBED__PROVIDER": "hash", "HUIYI_WORKER__ENABLED": "false"})
    assert result.exit_code == 0, (result.output, result.exception)
    assert "20 messages stored, 0 already there, 0 memories, 8 extraction jobs run" in result.stdout
