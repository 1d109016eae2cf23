-- 0001: records, full-text index, revisions, retrieval log, metadata.
--
-- Times are INTEGER unix nanoseconds (UTC); NULL means "not set".
-- JSON columns hold arrays or objects encoded by encoding/json.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- seq is the store-wide change counter: every write transaction that
-- changes a record's searchable fields bumps it and stamps the rows it
-- wrote, so in-memory indexes (also in other processes) load only the delta.
INSERT INTO meta (key, value) VALUES ('seq', '0');

CREATE TABLE records (
	rowid            INTEGER PRIMARY KEY,
	id               TEXT NOT NULL UNIQUE,
	namespace        TEXT NOT NULL,
	layer            TEXT NOT NULL,
	kind             TEXT NOT NULL,
	scope            TEXT NOT NULL,
	text             TEXT NOT NULL,
	body             TEXT,              -- {"decision":{...}} or {"correction":{...}}
	outcome          TEXT NOT NULL DEFAULT '', -- correction outcome, for filtering
	importance       REAL NOT NULL DEFAULT 0,
	confidence       REAL NOT NULL DEFAULT 0,
	criticality      REAL NOT NULL DEFAULT 0,
	source           TEXT NOT NULL DEFAULT '',
	provenance       TEXT,              -- JSON array
	component        TEXT NOT NULL DEFAULT '',
	tags             TEXT,              -- JSON array
	mission          TEXT NOT NULL DEFAULT '',
	access_level     INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER,
	updated_at       INTEGER,
	last_accessed_at INTEGER,
	access_count     INTEGER NOT NULL DEFAULT 0,
	valid_from       INTEGER,
	valid_to         INTEGER,
	superseded_by    TEXT NOT NULL DEFAULT '',
	deleted_at       INTEGER,
	tokens           INTEGER NOT NULL DEFAULT 0,
	embedding        BLOB,              -- little-endian float32
	seq              INTEGER NOT NULL
);

CREATE INDEX records_namespace_id ON records (namespace, id);
CREATE INDEX records_seq ON records (seq);

-- Full-text index over text, kept in sync by the triggers below.
-- unicode61 with remove_diacritics 2 folds case for every script
-- (Cyrillic included) and matches "café" with "cafe".
CREATE VIRTUAL TABLE records_fts USING fts5 (
	text,
	content = 'records',
	content_rowid = 'rowid',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
	INSERT INTO records_fts (rowid, text) VALUES (new.rowid, new.text);
END;

CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;

CREATE TRIGGER records_fts_update AFTER UPDATE OF text ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
	INSERT INTO records_fts (rowid, text) VALUES (new.rowid, new.text);
END;

-- Hard deletes (none today; a future purge) are logged so that in-memory
-- indexes can drop the rows.
CREATE TABLE deleted_rows (
	seq       INTEGER NOT NULL,
	rowid_    INTEGER NOT NULL,
	namespace TEXT NOT NULL
);
CREATE INDEX deleted_rows_seq ON deleted_rows (seq);

CREATE TRIGGER records_deleted AFTER DELETE ON records BEGIN
	UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'seq';
	INSERT INTO deleted_rows (seq, rowid_, namespace)
		VALUES ((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'seq'), old.rowid, old.namespace);
END;

CREATE TABLE revisions (
	seq       INTEGER PRIMARY KEY,
	record_id TEXT NOT NULL,
	namespace TEXT NOT NULL,
	at        INTEGER NOT NULL,
	action    TEXT NOT NULL,
	actor     TEXT NOT NULL DEFAULT '',
	record    TEXT NOT NULL            -- JSON of the record after the action
);
CREATE INDEX revisions_record ON revisions (namespace, record_id, seq);

CREATE TABLE retrievals (
	rowid     INTEGER PRIMARY KEY,
	id        TEXT NOT NULL,
	namespace TEXT NOT NULL,
	at        INTEGER NOT NULL,
	operation TEXT NOT NULL,
	query     TEXT NOT NULL,
	caller    TEXT NOT NULL DEFAULT '',
	session   TEXT NOT NULL DEFAULT '',
	ids       TEXT NOT NULL,           -- JSON array
	scores    TEXT NOT NULL            -- JSON array
);
CREATE INDEX retrievals_namespace_at ON retrievals (namespace, at);
