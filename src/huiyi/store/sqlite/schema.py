"""The embedded store's schema, as numbered migrations applied in order and never edited once shipped.

``statements`` cuts a migration script into the statements SQLite executes one at a time. Scripts may
call ``huiyi_scoped(part, text)`` (``fts.scoped_for_part``) and ``huiyi_docsize_tokens(sz)``
(``fts.docsize_tokens``), which the migrating connection defines.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

MIGRATIONS: list[str] = [
    # 1: messages, memories with their vectors and keyword index, persons, metadata
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE persons (
        agent TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        aliases TEXT NOT NULL DEFAULT '[]',
        platform_ids TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (agent, id)
    );

    CREATE TABLE messages (
        rowid INTEGER PRIMARY KEY,
        agent TEXT NOT NULL,
        id TEXT NOT NULL,
        space TEXT NOT NULL,
        scope TEXT NOT NULL,
        speaker TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        text TEXT NOT NULL,
        time REAL NOT NULL,
        seq INTEGER NOT NULL,
        indexed INTEGER NOT NULL DEFAULT 0,
        UNIQUE (agent, id)
    );
    CREATE INDEX messages_space ON messages (agent, space, seq);
    CREATE INDEX messages_unindexed ON messages (indexed) WHERE indexed = 0;

    -- one row per (agent, scope); its version changes with every write, so caches know when to reload
    CREATE TABLE partitions (
        part TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        UNIQUE (agent, scope)
    );

    CREATE TABLE memories (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        part TEXT NOT NULL REFERENCES partitions (part),
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        time REAL,
        place TEXT NOT NULL DEFAULT '',
        participants TEXT NOT NULL DEFAULT '[]',
        keywords TEXT NOT NULL DEFAULT '[]',
        insight TEXT NOT NULL DEFAULT '',
        importance REAL NOT NULL DEFAULT 0.5,
        strength REAL NOT NULL DEFAULT 1.0,
        access_count INTEGER NOT NULL DEFAULT 0,
        last_access REAL,
        created_at REAL NOT NULL,
        sources TEXT NOT NULL DEFAULT '[]',
        data TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX memories_part ON memories (part, kind, time);

    -- float16 on disk halves the bytes per memory; search runs in float32 in memory
    CREATE TABLE memory_vectors (
        rowid INTEGER PRIMARY KEY REFERENCES memories (rowid) ON DELETE CASCADE,
        part TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE INDEX memory_vectors_part ON memory_vectors (part);

    -- pre-tokenised text; "part" holds the partition token so a MATCH can stay inside scopes
    CREATE VIRTUAL TABLE memory_fts USING fts5 (
        part, words, chars, tokenize = 'porter unicode61 remove_diacritics 2'
    );
    """,
    # 2: durable background jobs and the start of each space's working memory
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        agent TEXT NOT NULL,
        key TEXT NOT NULL UNIQUE,
        payload TEXT NOT NULL DEFAULT '{}',
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT NOT NULL DEFAULT '',
        run_after REAL,
        lease_until REAL,
        worker TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );
    CREATE INDEX jobs_runnable ON jobs (state, run_after);

    CREATE TABLE working_memory (
        agent TEXT NOT NULL,
        space TEXT NOT NULL,
        start_seq INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (agent, space)
    );
    """,
    # 3: the graph — feedback and validity on memories, entities with their names, merges, links
    """
    ALTER TABLE memories ADD COLUMN feedback REAL NOT NULL DEFAULT 0;
    ALTER TABLE memories ADD COLUMN valid_to REAL;

    CREATE TABLE entities (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        part TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        aliases TEXT NOT NULL DEFAULT '[]',
        sources TEXT NOT NULL DEFAULT '[]',
        merged_into TEXT,
        vector BLOB NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX entities_part ON entities (part, merged_into);

    CREATE TABLE entity_merges (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        at REAL NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0,
        target_aliases TEXT NOT NULL  -- the target's aliases before the merge, for undo
    );

    CREATE TABLE links (
        agent TEXT NOT NULL,
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        kind TEXT NOT NULL,
        weight REAL NOT NULL DEFAULT 1.0,
        PRIMARY KEY (agent, source, target, kind)
    );
    CREATE INDEX links_target ON links (agent, target);
    """,
    # 4: a conversation's space id is its scope tag (person:… or space:…), so a group can never share
    # the log and working memory of a private chat whatever id it was given
    """
    CREATE TEMP TABLE working_moved AS
        SELECT DISTINCT m.agent AS agent, m.scope AS space, w.start_seq AS start_seq
        FROM working_memory w JOIN messages m ON m.agent = w.agent AND m.space = w.space
        WHERE m.space <> m.scope;
    DELETE FROM working_memory
        WHERE EXISTS (SELECT 1 FROM messages m WHERE m.agent = working_memory.agent AND m.space = working_memory.space
                      AND m.space <> m.scope);
    INSERT OR REPLACE INTO working_memory (agent, space, start_seq)
        SELECT agent, space, MIN(start_seq) FROM working_moved GROUP BY agent, space;
    DROP TABLE working_moved;
    UPDATE jobs SET payload = json_set(payload, '$.space', json_extract(payload, '$.scope'))
        WHERE json_extract(payload, '$.space') IS NOT NULL AND json_extract(payload, '$.scope') IS NOT NULL;
    UPDATE messages SET space = scope WHERE space <> scope;
    UPDATE memories SET data = json_set(data, '$.space', scope) WHERE json_extract(data, '$.space') IS NOT NULL;
    """,
    # 5: core blocks that belong to one person of one agent (the human block), edited by tools
    """
    CREATE TABLE person_blocks (
        agent TEXT NOT NULL,
        person TEXT NOT NULL,
        label TEXT NOT NULL,
        text TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (agent, person, label)
    );
    """,
    # 6: indexing is claimed under a lease, so two processes never index one message at once; the
    # duplicate chunks earlier races wrote go, the oldest chunk of each message stays
    """
    ALTER TABLE messages ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
    ALTER TABLE messages ADD COLUMN claim_until REAL;
    CREATE TEMP TABLE chunk_copies AS
        SELECT row, id, part FROM (
            SELECT rowid AS row, id, part, ROW_NUMBER() OVER (
                PARTITION BY agent, json_extract(sources, '$[0]') ORDER BY rowid) AS n
            FROM memories WHERE kind = 'chunk' AND json_extract(sources, '$[0]') IS NOT NULL)
        WHERE n > 1;
    DELETE FROM links WHERE source IN (SELECT id FROM chunk_copies) OR target IN (SELECT id FROM chunk_copies);
    DELETE FROM memory_fts WHERE rowid IN (SELECT row FROM chunk_copies);
    DELETE FROM memory_vectors WHERE rowid IN (SELECT row FROM chunk_copies);
    DELETE FROM memories WHERE rowid IN (SELECT row FROM chunk_copies);
    UPDATE partitions SET version = version + 1 WHERE part IN (SELECT part FROM chunk_copies);
    DROP TABLE chunk_copies;
    """,
    # 7: a job's claims apart from its attempts, so a worker killed mid-run costs the job no attempt;
    # until now every claim counted as an attempt
    """
    ALTER TABLE jobs ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;
    UPDATE jobs SET claims = attempts;
    """,
    # 8: the reports of maintenance runs (consolidations, dry runs, summaries), newest read first;
    # IF NOT EXISTS, so a store rolled back to an older version (as tests do) migrates again
    """
    CREATE TABLE IF NOT EXISTS reports (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        kind TEXT NOT NULL,
        at REAL NOT NULL,
        dry_run INTEGER NOT NULL DEFAULT 0,
        counts TEXT NOT NULL DEFAULT '{}',
        body TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX IF NOT EXISTS reports_scope ON reports (agent, scope);
    """,
    # 9: when a memory was said, beside the time it is about (``time``: a plan's date, a past
    # trip's); NULL where the two are one, as for every memory written before
    """
    ALTER TABLE memories ADD COLUMN said_at REAL;
    """,
    # 10: every keyword token carries a code of its partition (``fts``), so a term's postings are one
    # scope's and keyword search costs what the scope holds, not the store; the index is built again
    # from its own text through huiyi_scoped(part, text), which leaves prefixed tokens as they are
    """
    CREATE TEMP TABLE fts_old AS SELECT rowid AS row, part, words, chars FROM memory_fts;
    DROP TABLE memory_fts;
    CREATE VIRTUAL TABLE memory_fts USING fts5 (
        part, words, chars, tokenize = 'porter unicode61 remove_diacritics 2'
    );
    INSERT INTO memory_fts (rowid, part, words, chars)
        SELECT row, part, huiyi_scoped(part, words), huiyi_scoped(part, chars) FROM fts_old ORDER BY row;
    DROP TABLE fts_old;
    """,
    # 11: a chunk's own turn embedded alone, beside its vector with its context turns (recall.anchor);
    # chunks indexed before have none and rank by their vector alone
    """
    CREATE TABLE IF NOT EXISTS memory_own_vectors (
        rowid INTEGER PRIMARY KEY REFERENCES memories (rowid) ON DELETE CASCADE,
        vector BLOB NOT NULL
    );
    """,
    # 12: a fact's subject is indexed, so recall finds one person's current home or job among all the
    # scope's facts (recall.slots) without reading them
    """
    CREATE INDEX IF NOT EXISTS memories_fact_subject ON memories (part, json_extract(data, '$.subject'))
        WHERE kind = 'fact';
    """,
    # 13: who said what, by speaker: whether a member spoke in a group (a global profile reaches only those,
    # recall.absent_profiles) and a person's lines in every group (erasure), without reading the groups
    """
    CREATE INDEX IF NOT EXISTS messages_speaker ON messages (agent, speaker, space);
    """,
    # 14: a fold's space in a column, indexed with agent and state, so every prompt's working memory reads
    # the space's folds not done (fold.working_memory) and none of the agent's others; and the fold whose
    # commit took a failed fold's messages (``folded_by``), recorded then, not sought on every prompt
    """
    ALTER TABLE jobs ADD COLUMN space TEXT;
    ALTER TABLE jobs ADD COLUMN folded_by TEXT;
    UPDATE jobs SET space = json_extract(payload, '$.space')
        WHERE json_extract(payload, '$.space') IS NOT NULL AND json_extract(payload, '$.from_seq') IS NOT NULL
        AND json_extract(payload, '$.to_seq') IS NOT NULL;
    CREATE INDEX IF NOT EXISTS jobs_space ON jobs (agent, space, state);
    UPDATE jobs SET folded_by = (
        SELECT d.id FROM jobs d
        WHERE d.agent = jobs.agent AND d.space = jobs.space AND d.state = 'done' AND d.kind = jobs.kind
        AND (d.created_at, d.id) > (jobs.created_at, jobs.id)
        AND json_extract(d.payload, '$.from_seq') <= json_extract(jobs.payload, '$.to_seq')
        AND json_extract(d.payload, '$.to_seq') >= json_extract(jobs.payload, '$.from_seq')
        ORDER BY d.created_at, d.id LIMIT 1)
    WHERE space IS NOT NULL AND state <> 'done';
    """,
    # 15: a version per partition of its entities, moved by every write to them (any process, any code path),
    # so a process keeps the entity lists recall reads until another changes them (recall.routes); rows are
    # never deleted: a version starting again could match one another process kept an erased list under
    """
    CREATE TABLE IF NOT EXISTS entity_versions (part TEXT PRIMARY KEY, version INTEGER NOT NULL);
    CREATE TRIGGER IF NOT EXISTS entities_added AFTER INSERT ON entities BEGIN
        INSERT INTO entity_versions (part, version) VALUES (NEW.part, 1)
            ON CONFLICT (part) DO UPDATE SET version = version + 1;
    END;
    CREATE TRIGGER IF NOT EXISTS entities_changed AFTER UPDATE ON entities BEGIN
        INSERT INTO entity_versions (part, version) VALUES (NEW.part, 1)
            ON CONFLICT (part) DO UPDATE SET version = version + 1;
    END;
    CREATE TRIGGER IF NOT EXISTS entities_deleted AFTER DELETE ON entities BEGIN
        INSERT INTO entity_versions (part, version) VALUES (OLD.part, 1)
            ON CONFLICT (part) DO UPDATE SET version = version + 1;
    END;
    """,
    # 16: FTS5's BM25 with the statistics of the caller's scopes (sqlite.keyword): each row's partition
    # and tokens over all its columns, as FTS5 counted them (a narrow table: the route reads it once per
    # hit, at a third of the cost of a memories row), each partition's documents and tokens, and the
    # index's token instances by term
    """
    CREATE TABLE memory_fts_lengths (
        rowid INTEGER PRIMARY KEY,
        part TEXT NOT NULL,
        tokens INTEGER NOT NULL
    );
    INSERT INTO memory_fts_lengths (rowid, part, tokens)
        SELECT m.rowid, m.part, huiyi_docsize_tokens(d.sz) FROM memories m JOIN memory_fts_docsize d ON d.id = m.rowid;
    ALTER TABLE partitions ADD COLUMN docs INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE partitions ADD COLUMN fts_total INTEGER NOT NULL DEFAULT 0;
    UPDATE partitions SET (docs, fts_total) = (
        SELECT count(*), COALESCE(sum(tokens), 0) FROM memory_fts_lengths l WHERE l.part = partitions.part);
    CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts_instances USING fts5vocab (memory_fts, instance);
    """,
    # 17: a space's speakers in order, so a group fold learns everyone who spoke there (the alias check) with a
    # seek per member, not a walk over every speaker the agent has had in all its chats
    "CREATE INDEX IF NOT EXISTS messages_space_speaker ON messages (agent, space, speaker);",
    # 18: which of a repeated hour's two wall clocks a time is (daylight saving time ending: 01:10 PDT, then
    # 01:10 PST), 1 for the second (``fold``); NULL for the first and in every row written before
    """
    ALTER TABLE messages ADD COLUMN time_fold INTEGER;
    ALTER TABLE memories ADD COLUMN time_fold INTEGER;
    ALTER TABLE memories ADD COLUMN said_at_fold INTEGER;
    """,
    # 19: maintenance deletes done jobs and reports past their time (bookkeeping): the old ones found without
    # reading the kept (jobs_aged whole: with no statistics the planner took jobs_runnable's state over a
    # partial index), a scope's newest done job of a kind and newest reports by a seek; the last index
    # takes over from reports_scope, of which it is a longer form
    """
    CREATE INDEX IF NOT EXISTS jobs_aged ON jobs (state, created_at);
    CREATE INDEX IF NOT EXISTS jobs_done_scope ON jobs (agent, kind, COALESCE(json_extract(payload, '$.scope'), ''),
        created_at, id) WHERE state = 'done';
    CREATE INDEX IF NOT EXISTS reports_at ON reports (at);
    CREATE INDEX IF NOT EXISTS reports_newest ON reports (agent, scope, at, id);
    DROP INDEX IF EXISTS reports_scope;
    """,
    # 20: a version per agent of its persons' names, moved by every write that adds, renames or removes one (any
    # process, any code path), so a process keeps the name index recall reads until another changes it
    # (recall.people); keyed by the agent, never by a person, and never deleted: it only grows
    """
    CREATE TABLE IF NOT EXISTS person_versions (agent TEXT PRIMARY KEY, version INTEGER NOT NULL);
    CREATE TRIGGER IF NOT EXISTS persons_added AFTER INSERT ON persons BEGIN
        INSERT INTO person_versions (agent, version) VALUES (NEW.agent, 1)
            ON CONFLICT (agent) DO UPDATE SET version = version + 1;
    END;
    CREATE TRIGGER IF NOT EXISTS persons_renamed AFTER UPDATE ON persons
        WHEN OLD.agent IS NOT NEW.agent OR OLD.id IS NOT NEW.id OR OLD.name IS NOT NEW.name
            OR OLD.aliases IS NOT NEW.aliases BEGIN
        INSERT INTO person_versions (agent, version) VALUES (OLD.agent, 1)
            ON CONFLICT (agent) DO UPDATE SET version = version + 1;
        INSERT INTO person_versions (agent, version) VALUES (NEW.agent, 1)
            ON CONFLICT (agent) DO UPDATE SET version = version + 1;
    END;
    CREATE TRIGGER IF NOT EXISTS persons_deleted AFTER DELETE ON persons BEGIN
        INSERT INTO person_versions (agent, version) VALUES (OLD.agent, 1)
            ON CONFLICT (agent) DO UPDATE SET version = version + 1;
    END;
    """,
    # 21: each memory's sources by source id, so an erasure finds the memories made from what it erases (erase) by a
    # seek per erased id, not by reading every memory of the agent; written with the memory (SQLiteMemories.apply),
    # changed and deleted by triggers. No insert trigger: it would open a statement savepoint per memory, at which
    # FTS5 writes a keyword segment (19 times the segment writes of an add)
    """
    CREATE TABLE IF NOT EXISTS memory_sources (
        agent TEXT NOT NULL,
        source TEXT NOT NULL,
        memory INTEGER NOT NULL,
        PRIMARY KEY (agent, source, memory)
    ) WITHOUT ROWID;
    INSERT OR IGNORE INTO memory_sources (agent, source, memory)
        SELECT m.agent, s.value, m.rowid FROM memories m, json_each(m.sources) s;
    CREATE TRIGGER IF NOT EXISTS memory_sources_changed AFTER UPDATE OF agent, sources ON memories BEGIN
        DELETE FROM memory_sources WHERE agent = OLD.agent AND memory = OLD.rowid
            AND source IN (SELECT value FROM json_each(OLD.sources));
        INSERT OR IGNORE INTO memory_sources (agent, source, memory)
            SELECT NEW.agent, value, NEW.rowid FROM json_each(NEW.sources);
    END;
    CREATE TRIGGER IF NOT EXISTS memory_sources_deleted AFTER DELETE ON memories BEGIN
        DELETE FROM memory_sources WHERE agent = OLD.agent AND memory = OLD.rowid
            AND source IN (SELECT value FROM json_each(OLD.sources));
    END;
    """,
    # 22: a space's messages by when they were said: a day's summary read them by paging back from the newest seq,
    # and stopped at history imported after the chat, older lines under newer seqs (helper)
    "CREATE INDEX IF NOT EXISTS messages_space_time ON messages (agent, space, time);",
    # 23: the merge step after each write (fts.merge_step) merges any level of two keyword segments, not of four
    "INSERT INTO memory_fts (memory_fts, rank) VALUES ('usermerge', 2);",
]


def statements(script: str) -> Iterator[str]:
    """The complete statements of a script, in order, without its comment lines."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()
