"""The ``huiyi`` command line: one module per command group, shared options and printers apart.

``app`` (the typer app) and ``main`` (the console script) live in :mod:`.app`.
"""

from huiyi.faces.cli.app import app, main

__all__ = ["app", "main"]
