"""The confusables table huiyi ships is the one ``scripts/confusables_table.py`` derives from
``confusable_homoglyphs`` (a dev dependency): a newer library's table shows here, not as a silent drift."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from huiyi.text.lookalike import load_table, name_key

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "confusables_table.py"


def test_the_shipped_table_is_the_librarys_derivation() -> None:
    pytest.importorskip("confusable_homoglyphs")
    spec = importlib.util.spec_from_file_location("confusables_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules["confusables_table"] = script
    spec.loader.exec_module(script)
    assert load_table() == script.prototypes()
    assert script.TABLE.read_text(encoding="utf-8") == script.table_text()


def test_names_that_print_alike_share_a_key_and_others_do_not() -> None:
    assert name_key("Ava") == name_key("Аva") == name_key("ΑVA") == name_key("ａｖａ")
    assert name_key("Aval") == name_key("AvaI")
    assert len({name_key(name) for name in ("祈煜", "祈昱", "祁煜", "Avai", "Av4")}) == 5
