"""``python -m huiyi``: the same CLI as the ``huiyi`` command, for environments without its script."""

from huiyi.faces.cli import main

if __name__ == "__main__":
    main()
