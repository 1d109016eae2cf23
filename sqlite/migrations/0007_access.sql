-- 0007: access counters get a table of their own. Bumping them in the
-- records table rewrote each retrieved record's whole row (text and
-- embedding, about 2 KB) and its 8 KiB page, so a busy server's counter
-- updates wrote megabytes a second and held the writer for hundreds of
-- milliseconds. A row here is a few bytes. Reads add it to the counters
-- the records table holds (as imported or written before this migration);
-- a purged record takes its row with it, so a rowid used again starts
-- from zero.

CREATE TABLE access (
	rid   INTEGER PRIMARY KEY, -- records.rowid
	count INTEGER NOT NULL DEFAULT 0,
	last  INTEGER              -- unix nanoseconds of the latest retrieval
);

CREATE TRIGGER records_access_delete AFTER DELETE ON records BEGIN
	DELETE FROM access WHERE rid = old.rowid;
END;
