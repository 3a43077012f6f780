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
