-- 0004: purged (hard-deleted) records are logged with the change stamp of
-- the purge, so that every process's in-memory index drops them.
CREATE TABLE deleted_rows (
	seq       bigint NOT NULL,
	id        text COLLATE "C" NOT NULL,
	namespace text COLLATE "C" NOT NULL
);
CREATE INDEX deleted_rows_seq ON deleted_rows (seq);
