"""Common English given names (Sarah, Tom, Lily), from ``data/given_names_en.txt`` (its header and
``scripts/given_names_table.py`` name the sources: the 1990 US Census and the SSA's and ONS's lists of
children's names, all public domain). A capitalised word that is one is more likely someone than a show, a
game or a shop: "I'm watching Lily" minds a child, "I'm starting at Sarah's" goes to her house.

    >>> given_name("Sarah"), given_name("LILY"), given_name("Liam"), given_name("Succession"), given_name("sarah")
    (True, True, True, False, False)
"""

from __future__ import annotations

import functools

from huiyi.prompts import packaged_lines

__all__ = ["given_name"]


@functools.cache
def _names() -> frozenset[str]:
    return frozenset(name.casefold() for name in packaged_lines("data", "given_names_en.txt"))


def given_name(word: str) -> bool:
    """Whether ``word``, capitalised as a name is written (a lower-case "will" or "grace" is a word), is a common
    English given name."""
    return word[:1].isupper() and word.casefold() in _names()
