"""JSON as small models write it: fenced, wrapped in prose, with trailing commas, single quotes,
Python literals or cut off at the end, parsed into what was meant (:func:`repair_json`).

    >>> repair_json('好的:```json\\n{"a": 1,}\\n```')
    {'a': 1}
"""

from __future__ import annotations

import json
import re
from typing import Any

from huiyi.patterns import lazy

__all__ = ["repair_json", "strip_think"]

_THINK = lazy(r"<think>.*?(</think>|\Z)", re.DOTALL)
_FENCE = lazy(r"```[ \t]*(?:json5?|JSON)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_Stack = tuple[str, "_Stack"] | None


def repair_json(text: str) -> Any:
    """Parse what a model meant as JSON: fenced, wrapped in prose, with trailing commas, single
    quotes or cut off at the end. Raises ``ValueError`` when nothing sensible comes out.

    Each repair is tried only after the gentler ones failed, so valid JSON is never rewritten.
    """
    text = strip_think(text).strip().lstrip("\ufeff")
    candidates = [text]
    fence = _FENCE.search(text)
    if fence:
        candidates.append(fence.group(1).strip())
    first_error = ""
    for candidate in candidates:
        try:
            return _loads(candidate)
        except ValueError as exc:
            first_error = first_error or str(exc)
        for start in _brackets(candidate)[:5]:  # prose before the JSON may hold brackets of its own
            for quotes in (False, True):
                for attempt in _mend(candidate[start:], single_quotes=quotes):
                    try:
                        return _loads(attempt)
                    except ValueError:
                        pass
    raise ValueError(first_error or "empty answer")


def _loads(text: str) -> Any:
    try:
        return json.loads(text, strict=False)
    except RecursionError:  # [[[[… from a looping model: an unusable answer, not a crash of the caller
        raise ValueError("the JSON is nested too deeply") from None


def strip_think(text: str) -> str:
    return _THINK.sub("", text) if "<think>" in text else text


def _brackets(text: str) -> list[int]:
    return [i for i, ch in enumerate(text) if ch in "{["]


def _mend(text: str, *, single_quotes: bool) -> list[str]:
    """Rewrite ``text`` (starting at a bracket) token by token; return the result and, when it was
    cut off, shorter variants that end at an earlier comma."""
    out: list[str] = []
    # open brackets as a linked list (closer, the brackets outside it): a comma keeps the stack as it
    # was in O(1); copying a list there made a long, deeply nested answer take minutes
    stack: _Stack = None
    cuts: list[tuple[int, _Stack]] = []  # (len(out) at a comma, open brackets there)
    i, n = 0, len(text)
    quote = ""  # the quote character of the open string, or ""
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < n:
                nxt = text[i + 1]
                out.append("'" if quote == "'" and nxt == "'" else ch + nxt)
                i += 2
                continue
            if ch == quote:
                out.append('"')
                quote = ""
            elif ch == '"':  # a double quote inside a single-quoted string
                out.append('\\"')
            else:
                out.append(ch)
            i += 1
            continue
        if ch == '"' or (ch == "'" and single_quotes):
            quote = ch
            out.append('"')
        elif ch in "{[":
            stack = ("}" if ch == "{" else "]", stack)
            out.append(ch)
        elif ch in "}]":
            while out and out[-1].strip() in ("", ","):  # trailing comma before the close
                if out.pop().strip() == ",":
                    if cuts and cuts[-1][0] == len(out):
                        cuts.pop()
                    break
            if stack:
                stack = stack[1]
            out.append(ch)
            if not stack:
                return ["".join(out)]  # whatever follows is prose
        elif ch == ",":
            cuts.append((len(out), stack))
            out.append(ch)
        elif ch.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append(_PY_LITERALS.get(word, word))
            i = j
            continue
        else:
            out.append(ch)
        i += 1
    # cut off before the last bracket closed: close what is open. A string cut in half is dropped
    # with its member rather than kept as a shorter, wrong value.
    variants = [] if quote else [_close("".join(out), stack)]
    for at, open_then in reversed(cuts[-3:]):
        variants.append(_close("".join(out[:at]), open_then))
    return variants


def _close(text: str, stack: _Stack) -> str:
    text = text.rstrip().rstrip(",").rstrip()
    if text.endswith(":"):
        text += " null"
    closers = []
    while stack:
        closers.append(stack[0])
        stack = stack[1]
    return text + "".join(closers)
