"""Start-up: what `from huiyi import Memory` leaves for a memory's open, through ``huiyi.deferred`` (issue 15).

Module sets, not timings, as in test_startup.
"""

from __future__ import annotations

import sys
from pathlib import Path

from test_startup import loaded, modules_after


def test_importing_the_engine_leaves_asyncio_for_the_first_open(tmp_path: Path) -> None:
    """asyncio (with ssl, socket's selectors and subprocess: ~15 ms) is for an open memory's loop, and
    socket for its worker's host name; the import that only names the engine paid for them (issue 15)."""
    modules = modules_after("from huiyi import AsyncMemory, Config, Memory, RecallResult")
    assert loaded(modules, ("asyncio", "ssl", "subprocess", "socket", "selectors")) == []
    opened = (
        "from huiyi import Config, Memory\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32), config=Config(worker={{'enabled': False}}))\n"
        "m.close()"
    )
    assert {"asyncio", "socket"} <= modules_after(opened)


def test_a_deferred_module_is_imported_at_its_first_use_and_then_stands_in_its_own_place() -> None:
    from huiyi.deferred import deferred

    namespace: dict[str, object] = {}
    namespace["lengths"] = stand_in = deferred("json.decoder", namespace, "lengths")
    namespace["decoder"] = deferred("json.decoder", namespace)
    assert "json.decoder" in repr(stand_in) and namespace["lengths"] is stand_in
    assert stand_in.JSONDecoder().decode("[1]") == [1]
    assert namespace["lengths"] is sys.modules["json.decoder"]  # later reads are the module's own
    assert namespace["decoder"].JSONDecodeError is sys.modules["json.decoder"].JSONDecodeError
