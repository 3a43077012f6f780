"""The options every ``huiyi`` command shares, and opening the store they name."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.memory import Memory
from huiyi.model import MemoryKind
from huiyi.store import names_postgres
from huiyi.store.sqlite.connection import DB_NAME

__all__ = [
    "AgentOption",
    "ConfigOption",
    "KindOption",
    "PersonOption",
    "SpaceOption",
    "StoreOption",
    "existing",
    "open_memory",
]

StoreOption = Annotated[
    str,
    typer.Option(
        "--store", "-s", help="Store directory, or a postgresql:// URL (import, serve and the like make a new one)."
    ),
]
ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="A TOML config file.")]
AgentOption = Annotated[str, typer.Option("--agent", "-a", help="The character whose memory this is.")]
PersonOption = Annotated[str | None, typer.Option("--person", "-p", help="A person: their private chat and memories.")]
SpaceOption = Annotated[str | None, typer.Option("--space", help="A group space: its chat and memories.")]
KindOption = Annotated[
    list[MemoryKind] | None, typer.Option("--kind", "-k", help="Only memories of this kind (repeatable).")
]


def open_memory(store: str | Path, config: Path | None, *, made: bool = True, **overrides: Any) -> Memory:
    """The store at ``store`` with the config file ``config`` (or the defaults), ``overrides`` on top; with
    ``made``, one that exists (a command that reads or tends a store, given a mistyped folder, made an
    empty store there)."""
    settings = Config.load(config, **overrides)
    if made:
        existing(store, settings)
    return Memory(store, config=settings)


def made_by_opening(store: str | Path, settings: Config) -> Path | None:
    """The outermost folder opening ``store`` would create (None if it exists, or names PostgreSQL)."""
    if names_postgres(store, settings.store):
        return None
    missing = [folder for folder in (Path(store), *Path(store).parents) if not folder.exists()]
    return missing[-1] if missing else None


def existing(store: str | Path, settings: Config) -> None:
    """Raise ``InvalidInput`` if ``store`` names a folder that holds no store (PostgreSQL is not looked at)."""
    if names_postgres(store, settings.store):
        return
    if not (Path(store) / DB_NAME).is_file():
        raise InvalidInput(f"there is no huiyi store in {store} (no {DB_NAME}); `huiyi import` or `serve` makes one")
