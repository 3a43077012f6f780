"""``huiyi merges list / undo``: every automatic entity merge, with its reason, and undoing one (issue #13)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from huiyi.errors import InvalidInput
from huiyi.faces.cli.options import AgentOption, ConfigOption, StoreOption, open_memory
from huiyi.faces.cli.printing import out, shown

__all__ = ["app"]

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False)


@app.command("list")
def list_merges(agent: AgentOption, store: StoreOption = ".huiyi", config: ConfigOption = None) -> None:
    """The agent's entity merges, oldest first: which entity went into which, why, and whether undone."""
    with open_memory(store, config) as memory:
        merges = memory.merges(agent=agent)
    table = Table("id", "merged away", "kept", "reason", "at", "undone")
    for merge in merges:
        when = merge.at.isoformat(timespec="seconds") if merge.at else ""
        names = (shown(merge.id), shown(merge.source), shown(merge.target), shown(merge.reason))
        table.add_row(*names, when, "yes" if merge.undone else "")
    out.print(table if merges else "no merges")


@app.command("undo")
def undo(
    merge_id: Annotated[str, typer.Argument(help="The merge's id, from `huiyi merges list`.")],
    agent: AgentOption,
    store: StoreOption = ".huiyi",
    config: ConfigOption = None,
) -> None:
    """Split a merged entity off again: its names and facts are its own once more."""
    with open_memory(store, config) as memory:
        known = {m.id: m for m in memory.merges(agent=agent)}
        if merge_id not in known or known[merge_id].undone:
            raise InvalidInput(f"no merge {merge_id!r} to undo for agent {agent!r}")
        merge = memory.undo_merge(merge_id, agent=agent)
    out.print(f"undone: {shown(merge.source)} is apart from {shown(merge.target)} again")
