"""The ``huiyi`` app: its options, its commands gathered from their modules, and ``main``.

A thin face: every command calls the Python API. Commands are registered here in the order ``--help``
has always listed them.
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from huiyi.errors import HuiyiError
from huiyi.faces.cli import data, maintain, recall, serve
from huiyi.faces.cli.bench import app as bench_app
from huiyi.faces.cli.eval import app as eval_app
from huiyi.faces.cli.jobs import app as jobs_app
from huiyi.faces.cli.merges import app as merges_app
from huiyi.faces.cli.printing import err, shown

__all__ = ["app", "main"]

app = typer.Typer(
    name="huiyi",
    help="回忆 huiyi — long-term memory for LLM characters.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log what happens.")] = False) -> None:
    level = logging.INFO if verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


app.add_typer(eval_app, name="eval", help="Measure recall on public data sets.")
app.add_typer(bench_app, name="bench", help="Measure speed and memory.")
app.command("import")(data.import_command)
app.command("export")(data.export_command)
app.command("inspect")(data.inspect_command)
app.command("recall")(recall.recall_command)
app.command("tools")(serve.tools_command)
app.command("mcp")(serve.mcp_command)
app.command("demo")(recall.demo)
app.command("serve")(serve.serve)
app.command("chat")(serve.chat)
app.command("expand")(recall.expand)
app.command("lexicon-build")(maintain.lexicon_build)
app.command("consolidate")(maintain.consolidate)
app.command("summarize")(maintain.summarize)
app.command("forget")(maintain.forget)
app.command("compact")(maintain.compact)
app.command("migrate")(maintain.migrate)
app.command("worker")(serve.worker)
app.add_typer(jobs_app, name="jobs", help="See background jobs and queue failed ones again.")
app.add_typer(merges_app, name="merges", help="List the entity merges and undo a wrong one.")


def main() -> None:
    """Run the app; a :class:`~huiyi.errors.HuiyiError` becomes its message on stderr and exit code 2.

    stderr, as a failure should: stdout may be what a caller reads (``huiyi mcp``'s JSON-RPC, ``huiyi export``'s lines).
    """
    try:
        app()
    except HuiyiError as exc:
        err.print(f"[red]error:[/red] {shown(exc.message)}", soft_wrap=True)
        raise SystemExit(2) from exc
    except OSError as exc:  # a path that cannot be read or written, a port taken: the user's to fix, no traceback
        where = f": {exc.filename}" if exc.filename else ""
        err.print(f"[red]error:[/red] {shown(exc.strerror or exc)}{shown(where)}", highlight=False, soft_wrap=True)
        raise SystemExit(2) from exc
