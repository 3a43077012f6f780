"""Print the OpenAPI schema of huiyi's HTTP face, which ``npm run generate`` turns into src/schema.d.ts.

    PYTHONPATH=../../src python openapi.py > openapi.json   (npm run schema)

tests/test_ts_client.py fails when the committed openapi.json differs from what this prints.
"""

from __future__ import annotations

import json
import tempfile
from typing import Any

from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder


def schema() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        memory = AsyncMemory(folder, embedder=HashEmbedder(8), config=Config(worker={"enabled": False}))
        try:
            found: dict[str, Any] = create_app(memory).openapi()
        finally:
            memory.store.close()
        return found


if __name__ == "__main__":
    print(json.dumps(schema(), ensure_ascii=False, indent=1))
