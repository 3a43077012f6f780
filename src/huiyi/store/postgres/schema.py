"""The PostgreSQL store's schema, as numbered migrations applied in order and never edited once shipped.

``schema_migrations`` records each version applied. Migrations run in one transaction under an
advisory lock, so two processes starting at once neither race nor apply a version twice.

Keyword text is stored as ``tsvector``s of the pre-tokenised words and characters. Words go through
``huiyi_words``: PostgreSQL's default parser with an English Snowball stemmer and no stop words (the
same as SQLite's ``porter unicode61`` tokenizer: "hiking" finds "hike", Chinese words pass unchanged);
characters through ``simple``. ``partitions`` keeps per (agent, scope) document and token counts, so
BM25 reads its collection statistics in O(scopes) instead of scanning the scopes' rows.
"""

from __future__ import annotations

# a constant key for pg_advisory_xact_lock while migrating ("huiyi" in ASCII)
MIGRATION_LOCK = 0x6875697969

VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""

MIGRATIONS: list[str] = [
    # 1: messages, memories with their vectors and keyword text, persons, metadata, partition statistics
    """
    CREATE EXTENSION IF NOT EXISTS vector;

    CREATE TEXT SEARCH DICTIONARY huiyi_english_stem (TEMPLATE = snowball, Language = english);
    CREATE TEXT SEARCH CONFIGURATION huiyi_words (COPY = simple);
    ALTER TEXT SEARCH CONFIGURATION huiyi_words
        ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
        WITH huiyi_english_stem;

    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE persons (
        agent TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        aliases JSONB NOT NULL DEFAULT '[]',
        platform_ids JSONB NOT NULL DEFAULT '{}',
        PRIMARY KEY (agent, id)
    );

    CREATE TABLE messages (
        rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        agent TEXT NOT NULL,
        id TEXT NOT NULL,
        space TEXT NOT NULL,
        scope TEXT NOT NULL,
        speaker TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        text TEXT NOT NULL,
        time TIMESTAMP NOT NULL,
        seq BIGINT NOT NULL,
        indexed BOOLEAN NOT NULL DEFAULT false,
        UNIQUE (agent, id),
        UNIQUE (agent, space, seq)
    );
    CREATE INDEX messages_unindexed ON messages (rowid) WHERE NOT indexed;

    -- one row per (agent, scope): BM25's collection statistics for the scope
    CREATE TABLE partitions (
        part TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        docs BIGINT NOT NULL DEFAULT 0,
        words_total BIGINT NOT NULL DEFAULT 0,
        chars_total BIGINT NOT NULL DEFAULT 0
    );

    CREATE TABLE memories (
        rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        part TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        time TIMESTAMP,
        place TEXT NOT NULL DEFAULT '',
        participants JSONB NOT NULL DEFAULT '[]',
        keywords JSONB NOT NULL DEFAULT '[]',
        insight TEXT NOT NULL DEFAULT '',
        importance DOUBLE PRECISION NOT NULL DEFAULT 0.5,
        strength DOUBLE PRECISION NOT NULL DEFAULT 1.0,
        access_count INTEGER NOT NULL DEFAULT 0,
        last_access TIMESTAMP,
        created_at TIMESTAMP NOT NULL,
        sources JSONB NOT NULL DEFAULT '[]',
        data JSONB NOT NULL DEFAULT '{}',
        words TSVECTOR NOT NULL,
        chars TSVECTOR NOT NULL,
        words_len INTEGER NOT NULL DEFAULT 0,
        chars_len INTEGER NOT NULL DEFAULT 0
    );
    -- every read names its partitions: BM25 and listings run behind this btree
    CREATE INDEX memories_part ON memories (part, kind, time);
    CREATE INDEX memories_agent ON memories (agent);
    CREATE INDEX memories_words ON memories USING gin (words);
    CREATE INDEX memories_chars ON memories USING gin (chars);

    -- vectors apart, in narrow rows, so the exact scan of a scope reads only vector pages. float16
    -- halves the bytes; PLAIN storage keeps them in the row, never compressed or moved to TOAST. No
    -- fixed dimension, so no ANN index on the column itself (see PostgresStore.create_hnsw_index).
    CREATE TABLE memory_vectors (
        rowid BIGINT PRIMARY KEY REFERENCES memories (rowid) ON DELETE CASCADE,
        part TEXT NOT NULL,
        embedding HALFVEC NOT NULL
    );
    ALTER TABLE memory_vectors ALTER COLUMN embedding SET STORAGE PLAIN;
    CREATE INDEX memory_vectors_part ON memory_vectors (part);
    """,
    # 2: durable background jobs and the start of each space's working memory
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        agent TEXT NOT NULL,
        key TEXT NOT NULL UNIQUE,
        payload JSONB NOT NULL DEFAULT '{}',
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT NOT NULL DEFAULT '',
        run_after TIMESTAMP,
        lease_until TIMESTAMP,
        worker TEXT NOT NULL DEFAULT '',
        created_at TIMESTAMP NOT NULL
    );
    CREATE INDEX jobs_runnable ON jobs (created_at, id) WHERE state IN ('pending', 'running');
    CREATE INDEX jobs_agent ON jobs (agent, created_at);

    CREATE TABLE working_memory (
        agent TEXT NOT NULL,
        space TEXT NOT NULL,
        start_seq BIGINT NOT NULL DEFAULT 1,
        PRIMARY KEY (agent, space)
    );
    """,
    # 3: the graph: feedback and validity on memories, entities with their names, merges, links
    """
    ALTER TABLE memories ADD COLUMN feedback DOUBLE PRECISION NOT NULL DEFAULT 0;
    ALTER TABLE memories ADD COLUMN valid_to TIMESTAMP;

    CREATE TABLE entities (
        rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        part TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        aliases JSONB NOT NULL DEFAULT '[]',
        sources JSONB NOT NULL DEFAULT '[]',
        merged_into TEXT,
        vector HALFVEC NOT NULL,
        created_at TIMESTAMP NOT NULL
    );
    ALTER TABLE entities ALTER COLUMN vector SET STORAGE PLAIN;
    CREATE INDEX entities_part ON entities (part, merged_into);

    CREATE TABLE entity_merges (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        at TIMESTAMP NOT NULL,
        undone BOOLEAN NOT NULL DEFAULT false,
        target_aliases JSONB NOT NULL  -- the target's aliases before the merge, for undo
    );
    CREATE INDEX entity_merges_agent ON entity_merges (agent, at);

    CREATE TABLE links (
        agent TEXT NOT NULL,
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        kind TEXT NOT NULL,
        weight DOUBLE PRECISION NOT NULL DEFAULT 1.0,
        PRIMARY KEY (agent, source, target, kind)
    );
    CREATE INDEX links_target ON links (agent, target);
    """,
    # 4: a conversation's space id is its scope tag (person:… or space:…), so a group can never share
    # the log and working memory of a private chat whatever id it was given
    """
    CREATE TEMP TABLE working_moved ON COMMIT DROP AS
        SELECT DISTINCT m.agent AS agent, m.scope AS space, w.start_seq AS start_seq
        FROM working_memory w JOIN messages m ON m.agent = w.agent AND m.space = w.space
        WHERE m.space <> m.scope;
    DELETE FROM working_memory w
        WHERE EXISTS (SELECT 1 FROM messages m WHERE m.agent = w.agent AND m.space = w.space AND m.space <> m.scope);
    INSERT INTO working_memory (agent, space, start_seq)
        SELECT agent, space, MIN(start_seq) FROM working_moved GROUP BY agent, space
        ON CONFLICT (agent, space) DO UPDATE SET start_seq = excluded.start_seq;
    UPDATE jobs SET payload = jsonb_set(payload, '{space}', payload -> 'scope')
        WHERE payload ? 'space' AND payload ? 'scope';
    UPDATE messages SET space = scope WHERE space <> scope;
    UPDATE memories SET data = jsonb_set(data, '{space}', to_jsonb(scope)) WHERE data ? 'space';
    """,
    # 5: core blocks that belong to one person of one agent (the human block), edited by tools
    """
    CREATE TABLE person_blocks (
        agent TEXT NOT NULL,
        person TEXT NOT NULL,
        label TEXT NOT NULL,
        text TEXT NOT NULL,
        updated_at TIMESTAMP NOT NULL,
        PRIMARY KEY (agent, person, label)
    );
    """,
    # 6: indexing is claimed under a lease, so two processes never index one message at once; the
    # duplicate chunks earlier races wrote go (and leave BM25's counters), the oldest of each message stays
    """
    ALTER TABLE messages ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '', ADD COLUMN claim_until TIMESTAMP;
    CREATE TEMP TABLE chunk_copies ON COMMIT DROP AS
        SELECT rowid, id FROM (
            SELECT rowid, id, row_number() OVER (PARTITION BY agent, sources ->> 0 ORDER BY rowid) AS n
            FROM memories WHERE kind = 'chunk' AND sources ->> 0 IS NOT NULL) c
        WHERE n > 1;
    DELETE FROM links WHERE source IN (SELECT id FROM chunk_copies) OR target IN (SELECT id FROM chunk_copies);
    WITH deleted AS (
        DELETE FROM memories WHERE rowid IN (SELECT rowid FROM chunk_copies) RETURNING part, words_len, chars_len
    ), counted AS (
        SELECT part, count(*) AS docs, sum(words_len) AS words, sum(chars_len) AS chars FROM deleted GROUP BY part
    )
    UPDATE partitions p SET docs = p.docs - c.docs, words_total = p.words_total - c.words,
        chars_total = p.chars_total - c.chars
    FROM counted c WHERE p.part = c.part;
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
        seq BIGSERIAL,
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        scope TEXT NOT NULL,
        kind TEXT NOT NULL,
        at TIMESTAMP NOT NULL,
        dry_run BOOLEAN NOT NULL DEFAULT false,
        counts JSONB NOT NULL DEFAULT '{}',
        body JSONB NOT NULL DEFAULT '{}'
    );
    CREATE INDEX IF NOT EXISTS reports_scope ON reports (agent, scope, seq);
    """,
    # 9: when a memory was said, beside the time it is about (``time``: a plan's date, a past
    # trip's); NULL where the two are one, as for every memory written before
    """
    ALTER TABLE memories ADD COLUMN said_at TIMESTAMP;
    """,
    # 10: a chunk's own turn embedded alone, beside its vector with its context turns (recall.anchor);
    # chunks indexed before have none and rank by their vector alone
    """
    CREATE TABLE IF NOT EXISTS memory_own_vectors (
        rowid BIGINT PRIMARY KEY REFERENCES memories (rowid) ON DELETE CASCADE,
        embedding HALFVEC NOT NULL
    );
    ALTER TABLE memory_own_vectors ALTER COLUMN embedding SET STORAGE PLAIN;
    """,
    # 11: a fact's subject is indexed, so recall finds one person's current home or job among all the
    # scope's facts (recall.slots) without reading them
    """
    CREATE INDEX IF NOT EXISTS memories_fact_subject ON memories (part, (data->>'subject')) WHERE kind = 'fact';
    """,
    # 12: who said what, by speaker: whether a member spoke in a group (a global profile reaches only those,
    # recall.absent_profiles) and a person's lines in every group (erasure), without reading the groups
    """
    CREATE INDEX IF NOT EXISTS messages_speaker ON messages (agent, speaker, space);
    """,
    # 13: a fold's space in a column, indexed with agent and state, so every prompt's working memory reads
    # the space's folds not done (fold.working_memory) and none of the agent's others; and the fold whose
    # commit took a failed fold's messages (``folded_by``), recorded then, not sought on every prompt
    """
    ALTER TABLE jobs ADD COLUMN IF NOT EXISTS space TEXT, ADD COLUMN IF NOT EXISTS folded_by TEXT;
    UPDATE jobs SET space = payload->>'space' WHERE payload ? 'space' AND payload ? 'from_seq' AND payload ? 'to_seq';
    CREATE INDEX IF NOT EXISTS jobs_space ON jobs (agent, space, state);
    UPDATE jobs j SET folded_by = (
        SELECT d.id FROM jobs d
        WHERE d.agent = j.agent AND d.space = j.space AND d.state = 'done' AND d.kind = j.kind
        AND (d.created_at, d.id) > (j.created_at, j.id)
        AND (d.payload->>'from_seq')::bigint <= (j.payload->>'to_seq')::bigint
        AND (d.payload->>'to_seq')::bigint >= (j.payload->>'from_seq')::bigint
        ORDER BY d.created_at, d.id LIMIT 1)
    WHERE j.space IS NOT NULL AND j.state <> 'done' AND j.folded_by IS NULL;
    """,
    # 14: a version per partition of its entities, moved by every write to them (any replica, any code path),
    # so a process keeps the entity lists recall reads until another changes them (recall.routes); rows are
    # never deleted: a version starting again could match one another replica kept an erased list under
    """
    CREATE TABLE IF NOT EXISTS entity_versions (part TEXT PRIMARY KEY, version BIGINT NOT NULL);
    CREATE OR REPLACE FUNCTION entities_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO entity_versions AS v (part, version)
            SELECT DISTINCT part, 1 FROM written
            ON CONFLICT (part) DO UPDATE SET version = v.version + 1;
        RETURN NULL;
    END $$;
    DROP TRIGGER IF EXISTS entities_added ON entities;
    DROP TRIGGER IF EXISTS entities_changed ON entities;
    DROP TRIGGER IF EXISTS entities_deleted ON entities;
    CREATE TRIGGER entities_added AFTER INSERT ON entities
        REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION entities_written();
    CREATE TRIGGER entities_changed AFTER UPDATE ON entities
        REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION entities_written();
    CREATE TRIGGER entities_deleted AFTER DELETE ON entities
        REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION entities_written();
    """,
    # 15: a space's speakers in order, so a group fold learns everyone who spoke there (the alias check) with a
    # seek per member, not a walk over every speaker the agent has had in all its chats
    "CREATE INDEX IF NOT EXISTS messages_space_speaker ON messages (agent, space, speaker);",
    # 16: which of a repeated hour's two wall clocks a time is (daylight saving time ending: 01:10 PDT, then
    # 01:10 PST), 1 for the second (``fold``); NULL for the first and in every row written before
    """
    ALTER TABLE messages ADD COLUMN IF NOT EXISTS time_fold SMALLINT;
    ALTER TABLE memories ADD COLUMN IF NOT EXISTS time_fold SMALLINT, ADD COLUMN IF NOT EXISTS said_at_fold SMALLINT;
    """,
    # 17: the failed jobs due to be tried again (the worker's once-a-minute requeue), found without reading
    # every job the store ever ran
    "CREATE INDEX IF NOT EXISTS jobs_failed ON jobs (run_after) WHERE state = 'failed';",
    # 18: maintenance deletes done jobs and reports past their time (bookkeeping): the old ones found without
    # reading the kept, a scope's newest done job of a kind and newest reports by a seek; the last index
    # takes over from reports_scope, whose seq no read orders by
    """
    CREATE INDEX IF NOT EXISTS jobs_aged ON jobs (state, created_at);
    CREATE INDEX IF NOT EXISTS jobs_done_scope ON jobs (agent, kind, (COALESCE(payload->>'scope', '')), created_at, id)
        WHERE state = 'done';
    CREATE INDEX IF NOT EXISTS reports_at ON reports (at);
    CREATE INDEX IF NOT EXISTS reports_newest ON reports (agent, scope, at, id);
    DROP INDEX IF EXISTS reports_scope;
    """,
    # 19: a version per agent of its persons' names, moved by every write that adds, renames or removes one (any
    # replica, any code path), so a process keeps the name index recall reads until another changes it
    # (recall.people); keyed by the agent, never by a person, and never deleted: it only grows
    """
    CREATE TABLE IF NOT EXISTS person_versions (agent TEXT PRIMARY KEY, version BIGINT NOT NULL);
    CREATE OR REPLACE FUNCTION persons_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            INSERT INTO person_versions AS v (agent, version) VALUES (OLD.agent, 1)
                ON CONFLICT (agent) DO UPDATE SET version = v.version + 1;
        END IF;
        IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.agent IS DISTINCT FROM OLD.agent) THEN
            INSERT INTO person_versions AS v (agent, version) VALUES (NEW.agent, 1)
                ON CONFLICT (agent) DO UPDATE SET version = v.version + 1;
        END IF;
        RETURN NULL;
    END $$;
    DROP TRIGGER IF EXISTS persons_added ON persons;
    DROP TRIGGER IF EXISTS persons_renamed ON persons;
    DROP TRIGGER IF EXISTS persons_deleted ON persons;
    CREATE TRIGGER persons_added AFTER INSERT ON persons FOR EACH ROW EXECUTE FUNCTION persons_written();
    CREATE TRIGGER persons_renamed AFTER UPDATE ON persons FOR EACH ROW
        WHEN (OLD.agent IS DISTINCT FROM NEW.agent OR OLD.id IS DISTINCT FROM NEW.id
              OR OLD.name IS DISTINCT FROM NEW.name OR OLD.aliases IS DISTINCT FROM NEW.aliases)
        EXECUTE FUNCTION persons_written();
    CREATE TRIGGER persons_deleted AFTER DELETE ON persons FOR EACH ROW EXECUTE FUNCTION persons_written();
    """,
    # 20: each memory's sources indexed (jsonb_ops answers ``?|``), so an erasure finds the memories made from what it
    # erases (erase) by the ids it erases, not by reading every memory of the agent. fastupdate off: entries left in
    # GIN's pending list (up to 4 MB, until a vacuum) are read whole by every lookup, 0.2 s at 100k memories. Not
    # CONCURRENTLY, which cannot run inside the migration's transaction: writes to memories wait for the build once
    "CREATE INDEX IF NOT EXISTS memories_sources ON memories USING gin (sources) WITH (fastupdate = off);",
    # 21: a space's messages by when they were said: a day's summary read them by paging back from the newest seq,
    # and stopped at history imported after the chat, older lines under newer seqs (helper)
    "CREATE INDEX IF NOT EXISTS messages_space_time ON messages (agent, space, time);",
]
