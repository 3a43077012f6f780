"""JSON as both stores write it into their columns."""

from __future__ import annotations

import json
import uuid
from typing import Any

from huiyi.checks import INT64_MAX, INT64_MIN

__all__ = ["json_text"]


def json_text(value: Any) -> str:
    """JSON as both stores write it: readable non-ASCII, anything unknown as its string. A whole float
    Python writes with an exponent (1e+16) is written with its digits and ".0": jsonb keeps no exponent
    and gave 1e16 back as an integer.

    >>> json_text({"n": 1e16, "s": "1e+16", "x": [2.5, 9e18]})
    '{"n": 10000000000000000.0, "s": "1e+16", "x": [2.5, 9000000000000000000.0]}'
    """
    text = json.dumps(value, ensure_ascii=False, default=str)
    if "e+" not in text:  # nearly always: no float of 1e16 or more
        return text
    marks: dict[str, str] = {}
    marked = json.dumps(_whole_floats_marked(value, marks, uuid.uuid4().hex), ensure_ascii=False, default=str)
    for mark, digits in marks.items():
        marked = marked.replace(json.dumps(mark), digits)
    return marked


def _whole_floats_marked(value: Any, marks: dict[str, str], salt: str) -> Any:
    """``value`` with each whole float of 64 bits that Python writes with an exponent as a string mark
    (its written digits in ``marks``); a larger one the PostgreSQL loader reads as a float already."""
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1e16 and INT64_MIN <= value <= INT64_MAX:
        mark = f"{salt}:{len(marks)}"
        marks[mark] = f"{int(value)}.0"
        return mark
    if isinstance(value, dict):
        return {key: _whole_floats_marked(item, marks, salt) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_whole_floats_marked(item, marks, salt) for item in value]
    return value
