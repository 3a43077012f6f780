"""``python -m huiyi.faces.cli``: the same as the ``huiyi`` command."""

from huiyi.faces.cli.app import main

main()
