"""Write ``src/huiyi/data/confusables.json``: each confusable character's prototype (UTS #39), derived from
``confusable_homoglyphs``'s copy of Unicode's table (a dev dependency). Reading that library's 884 kB table
took ~45 ms at a process's first user line; huiyi reads this 7.7k-entry derivation in ~1 ms instead.

Run again when the library's table changes: ``python scripts/confusables_table.py``.
tests/test_lookalike_table.py checks the shipped file against the library.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "src" / "huiyi" / "data" / "confusables.json"
_DISPLAY_MARK = "\u200e"  # the library spells right-to-left characters between these marks, for display


def prototypes() -> dict[str, str]:
    """Each confusable character's prototype (a character or, as for ``m`` → ``rn``, a string). The library
    keeps each pair both ways (each source beside its prototype, each prototype beside all its sources);
    the prototype is read back from that shape."""
    from confusable_homoglyphs.utils import load

    near = {
        key.replace(_DISPLAY_MARK, ""): [entry["c"].replace(_DISPLAY_MARK, "") for entry in entries]
        for key, entries in load("confusables.json").items()
    }
    found: dict[str, str] = {}
    for char, others in near.items():
        if len(char) > 1 or len(others) > 1:
            continue  # a prototype: a source is one character with one prototype
        other = others[0]
        if len(other) > 1 or len(near.get(other, ())) > 1:
            found[char] = other
        else:  # a pair alone: either may be the prototype, so both go to one
            found[char] = min(char, other)
    return {char: proto for char, proto in sorted(found.items()) if char != proto}


def table_text() -> str:
    return json.dumps(prototypes(), ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n"


if __name__ == "__main__":
    TABLE.write_text(table_text(), encoding="utf-8")
    print(f"wrote {TABLE} ({len(prototypes())} characters)", file=sys.stderr)
