"""Erasure on PostgreSQL down to the bytes: the relation files of the store's tables, TOAST and indexes."""

from __future__ import annotations

from pathlib import Path

import pytest

import pg_server
from huiyi import Memory
from huiyi.model import Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.rows import partition_key
from test_erasure import ALICE, BOB, QUIET, _fill

# the store's tables, their TOAST tables and the indexes of both
_RELATIONS = """
WITH own AS (SELECT oid, reltoastrelid FROM pg_class WHERE relnamespace = current_schema()::regnamespace),
tables AS (SELECT oid FROM own UNION SELECT reltoastrelid FROM own WHERE reltoastrelid <> 0)
SELECT c.relname, c.relkind, pg_relation_filepath(c.oid) FROM pg_class c
WHERE c.relkind IN ('r', 't', 'i') AND (c.oid IN (SELECT oid FROM tables)
    OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM tables)))
"""
_INDEXES_OF_MEMORIES = "SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'memories'::regclass"


def _relation_files_holding(dsn: str, needles: list[str], kinds: str = "rti") -> list[tuple[str, str]]:
    """The needles (as written, or lower-cased as the keyword index keeps words) anywhere in the files of
    the store's relations of ``kinds`` (r table, t TOAST, i index), free space and dead rows included:
    read after a checkpoint wrote every page."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        home = Path(str(conn.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
        relations = conn.execute(_RELATIONS).fetchall()
    found = []
    for name, kind, relative in relations:
        if kind not in kinds or relative is None:
            continue
        first = home / relative
        data = b"".join(path.read_bytes() for path in [first, *first.parent.glob(f"{first.name}.*")])
        found += [(name, n) for n in needles if n.encode() in data or n.lower().encode() in data]
    return found


def test_no_index_keeps_a_word_of_a_forgotten_person() -> None:
    """The keyword indexes are GIN: vacuum takes an erased row's entries from a key's list, never the key,
    so a word only the erased person said stayed in the index for good."""
    dsn = pg_server.fresh_dsn()
    with Memory(dsn, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        assert ("memories_words", BOB[0]) in _relation_files_holding(dsn, [BOB[0]], kinds="i")
        assert memory.forget_person("bob", agent="a", purge="wait").purged
        assert _relation_files_holding(dsn, [*BOB, "QZXBOBALIAS5"], kinds="i") == []
        assert _relation_files_holding(dsn, [ALICE], kinds="i")  # alice's words are still found
        hits = memory.recall(ALICE, agent="a", space="g1", person="alice", limit=10).hits
        assert any(ALICE in hit.text for hit in hits)


def test_a_keyword_index_rebuild_a_kill_cut_short_leaves_no_copy_behind() -> None:
    """A process killed inside REINDEX CONCURRENTLY leaves an invalid copy of the index holding every word:
    the next erasure drops it before rebuilding."""
    import psycopg

    dsn = pg_server.fresh_dsn()
    with Memory(dsn, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        with psycopg.connect(dsn, autocommit=True) as conn, pytest.raises(psycopg.errors.UniqueViolation):
            # a build that fails half way leaves its index invalid, as a killed rebuild does
            conn.execute("CREATE UNIQUE INDEX CONCURRENTLY memories_words_ccnew ON memories (agent)")
        memory.forget_person("bob", agent="a", purge="wait")
        with psycopg.connect(dsn, autocommit=True) as conn:
            names = {str(row[0]) for row in conn.execute(_INDEXES_OF_MEMORIES).fetchall()}
        assert "memories_words" in names and not {n for n in names if "_cc" in n}


def test_a_compaction_leaves_no_byte_of_a_forgotten_person_in_any_file_of_the_store() -> None:
    """A vacuum frees the erased rows' space without zeroing it: their bytes stay on the table's pages until
    overwritten, and in the b-trees' (their partition's key). The operator's compaction rewrites them."""
    dsn = pg_server.fresh_dsn()
    bobs_part = partition_key("a", Scope.of_person("a", "bob", stored=True))
    with Memory(dsn, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        memory.add([{"text": f"别人的话 {ALICE}"}], agent="a", person="carol")  # a row of hers in every table
        memory.forget_person("bob", agent="a")
        assert _relation_files_holding(dsn, BOB, kinds="r")  # freed, not wiped (where no new row overwrote it)
        memory.compact()
        assert _relation_files_holding(dsn, [*BOB, "QZXBOBALIAS5", bobs_part]) == []
        assert {name for name, _ in _relation_files_holding(dsn, [ALICE])} >= {"messages", "memories"}
        hits = memory.recall(ALICE, agent="a", person="carol", limit=10).hits
        assert any(ALICE in hit.text for hit in hits)


@pytest.mark.slow  # the default embedder loads
def test_the_cli_compacts_after_forgetting() -> None:
    from typer.testing import CliRunner

    from huiyi.faces.cli import app

    dsn = pg_server.fresh_dsn()
    with Memory(dsn, config=QUIET) as memory:  # the CLI opens it with the default embedder
        memory.add([f"我的秘密是 {BOB[0]}", f"还有 {ALICE}"], agent="a", person="bob")
        memory.add([f"别人的话 {ALICE}"], agent="a", person="carol")
    done = CliRunner().invoke(app, ["forget", "-a", "a", "-p", "bob", "--yes", "--compact", "-s", dsn])
    assert done.exit_code == 0 and "messages 2" in done.stdout, done.output
    assert _relation_files_holding(dsn, [BOB[0]]) == []
    assert CliRunner().invoke(app, ["compact", "-s", dsn]).exit_code == 0
