"""huiyi's CSV (a header naming any of agent, person, space, speaker, role, text, time, id; one message a
row) as the JSON lines it stands for, each numbered by the line of the file its row starts on."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterator

from huiyi.errors import InvalidInput

__all__ = ["CSV_FIELDS", "csv_lines"]

CSV_FIELDS = {"agent", "person", "space", "speaker", "role", "text", "time", "id"}


def csv_lines(text: str, name: str) -> list[tuple[int, str]]:
    """Each row as a JSON line (empty cells left out) with the file line it starts on: a quoted cell may
    span lines and a blank line is no row, so a row's count is not its line. Raises ``InvalidInput`` for a
    header without a text column or with a column unknown or named twice, and naming the line of a row
    that is no CSV (a quote left open) or has more cells than the header."""
    rows = _rows(text)
    header = next(rows, (1, []))[1]
    named = Counter(cell.strip() for cell in header)
    if "text" not in named:
        raise InvalidInput(f"{name}: a CSV to import needs a header row with a 'text' column")
    if unknown := named.keys() - CSV_FIELDS:
        known = ", ".join(sorted(CSV_FIELDS))
        # quoted: a trailing comma names a column '' that would print as nothing
        raise InvalidInput(
            f"{name}: unknown CSV columns {', '.join(map(repr, sorted(unknown)))}; the columns are {known}"
        )
    if twice := sorted(column for column, count in named.items() if count > 1):
        # a row keeps one cell a name: the other column's cells would be dropped without a word
        names = ", ".join(map(repr, twice))
        raise InvalidInput(f"{name}: the header names {names} more than once; give each column once")
    columns = [cell.strip() for cell in header]
    lines: list[tuple[int, str]] = []
    for line, cells in rows:
        if not cells:  # a blank line
            continue
        if any(cell.strip() for cell in cells[len(columns) :]):  # an empty cell past the last column is nothing
            raise InvalidInput(f"line {line}: {len(cells)} cells, but the header names {len(columns)} columns")
        record = {column: cell for column, cell in zip(columns, cells, strict=False) if cell}  # a short row: fewer
        lines.append((line, json.dumps(record, ensure_ascii=False)))
    return lines


def _rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each row's line and cells; a row that is no CSV is refused by its line."""
    # newline="": line breaks inside quotes kept as written, and a bare \r ends a line as \n does;
    # strict: a quote left open is refused, not read as one cell holding the rest of the file
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    while True:
        line = reader.line_num + 1  # line_num: the lines read so far, so the next row starts on the next
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # a quote left open, a cell over the csv module's limit
            raise InvalidInput(f"line {line}: not a CSV row this huiyi can read ({exc})") from exc
        yield line, cells
