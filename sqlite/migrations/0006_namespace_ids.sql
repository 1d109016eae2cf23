-- 0006: record ids are unique per namespace, not across the store: the
-- same id may live in two namespaces, and nothing a namespace does or is
-- told depends on another namespace's ids. SQLite cannot drop a column's
-- UNIQUE constraint, so the table is rebuilt with the same rowids (the
-- full-text index and the in-memory indexes key on them).

DROP TRIGGER records_fts_insert;
DROP TRIGGER records_fts_delete;
DROP TRIGGER records_fts_update;
DROP TRIGGER records_deleted;

CREATE TABLE records_new (
	rowid            INTEGER PRIMARY KEY,
	id               TEXT NOT NULL,
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
	seq              INTEGER NOT NULL,
	thread           TEXT NOT NULL DEFAULT '',
	UNIQUE (namespace, id)
);

INSERT INTO records_new SELECT * FROM records;
DROP TABLE records;
ALTER TABLE records_new RENAME TO records;

CREATE INDEX records_seq ON records (seq);
CREATE INDEX records_namespace_kind_id ON records (namespace, kind, id);
CREATE INDEX records_namespace_thread ON records (namespace, thread, created_at);
CREATE INDEX records_id ON records (id, namespace);

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

CREATE TRIGGER records_deleted AFTER DELETE ON records BEGIN
	UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'seq';
	INSERT INTO deleted_rows (seq, rowid_, namespace)
		VALUES ((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'seq'), old.rowid, old.namespace);
END;
