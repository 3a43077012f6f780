"""The options every ``huiyi`` command shares, and opening the store they name."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from huiyi.config import Config
from huiyi.memory import Memory
from huiyi.model import MemoryKind

__all__ = [
    "AgentOption",
    "ConfigOption",
    "KindOption",
    "PersonOption",
    "SpaceOption",
    "StoreOption",
    "open_memory",
]

StoreOption = Annotated[
    str, typer.Option("--store", "-s", help="Store directory (created if missing), or a postgresql:// URL.")
]
ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="A TOML config file.")]
AgentOption = Annotated[str, typer.Option("--agent", "-a", help="The character whose memory this is.")]
PersonOption = Annotated[str | None, typer.Option("--person", "-p", help="A person: their private chat and memories.")]
SpaceOption = Annotated[str | None, typer.Option("--space", help="A group space: its chat and memories.")]
KindOption = Annotated[
    list[MemoryKind] | None, typer.Option("--kind", "-k", help="Only memories of this kind (repeatable).")
]


def open_memory(store: str | Path, config: Path | None, **overrides: Any) -> Memory:
    """The store at ``store`` with the config file ``config`` (or the defaults), ``overrides`` on top."""
    return Memory(store, config=Config.load(config, **overrides))
