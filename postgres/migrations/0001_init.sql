-- 0001: records, full-text index, revisions, retrieval log, metadata.
--
-- Times are bigint unix nanoseconds (UTC), exact to the nanosecond; NULL
-- means "not set". Identifiers, namespaces and scopes use the "C"
-- collation so ordering and prefix ranges are byte-wise, as in Go.

-- Keyword search configuration: the simple configuration (no stemming, no
-- stopwords) with accents removed by unaccent when the extension is
-- available (Debian ships it in postgresql-contrib, inside postgresql-15).
-- Without it, diacritics are not folded ("cafe" does not find "café").
-- Case is folded by mnemo before the text reaches PostgreSQL, so the
-- database's LC_CTYPE does not matter.
DO $$
BEGIN
	BEGIN
		CREATE EXTENSION IF NOT EXISTS unaccent;
	EXCEPTION WHEN OTHERS THEN
		RAISE WARNING 'mnemo: extension unaccent unavailable (%): keyword search will not fold diacritics', SQLERRM;
	END;
	CREATE TEXT SEARCH CONFIGURATION mnemo (COPY = pg_catalog.simple);
	IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent') THEN
		EXECUTE format('ALTER TEXT SEARCH CONFIGURATION mnemo ALTER MAPPING FOR '
			'asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart '
			'WITH %I.unaccent, pg_catalog.simple',
			(SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'));
	END IF;
END
$$;

CREATE TABLE meta (
	key   text PRIMARY KEY,
	value text NOT NULL
);

-- change_seq stamps every write that changes a record's searchable fields,
-- so in-process vector indexes (also in other processes) load only the
-- delta. Writers take a transaction-level advisory lock before drawing a
-- value, so seq order is commit order.
CREATE SEQUENCE change_seq;

CREATE TABLE records (
	id               text COLLATE "C" PRIMARY KEY,
	namespace        text COLLATE "C" NOT NULL,
	layer            text NOT NULL,
	kind             text NOT NULL,
	scope            text COLLATE "C" NOT NULL,
	text             text NOT NULL,
	body             jsonb,             -- {"decision":{...}} or {"correction":{...}}
	outcome          text NOT NULL DEFAULT '', -- correction outcome, for filtering
	importance       double precision NOT NULL DEFAULT 0,
	confidence       double precision NOT NULL DEFAULT 0,
	criticality      double precision NOT NULL DEFAULT 0,
	source           text NOT NULL DEFAULT '',
	provenance       jsonb,             -- array of strings
	component        text NOT NULL DEFAULT '',
	tags             jsonb,             -- array of strings
	mission          text NOT NULL DEFAULT '',
	access_level     integer NOT NULL DEFAULT 0,
	created_at       bigint,
	updated_at       bigint,
	last_accessed_at bigint,
	access_count     bigint NOT NULL DEFAULT 0,
	valid_from       bigint,
	valid_to         bigint,
	superseded_by    text NOT NULL DEFAULT '',
	deleted_at       bigint,
	tokens           integer NOT NULL DEFAULT 0,
	embedding        bytea,             -- little-endian float32
	-- fts indexes the word tokens mnemo extracts from text (lower-cased
	-- runs of letters, digits and marks), through the mnemo configuration.
	fts              tsvector NOT NULL,
	seq              bigint NOT NULL
);

CREATE INDEX records_namespace_id ON records (namespace, id);
CREATE INDEX records_seq ON records (seq);
CREATE INDEX records_fts ON records USING gin (fts);

CREATE TABLE revisions (
	seq       bigserial PRIMARY KEY,
	record_id text COLLATE "C" NOT NULL,
	namespace text COLLATE "C" NOT NULL,
	at        bigint NOT NULL,
	action    text NOT NULL,
	actor     text NOT NULL DEFAULT '',
	record    jsonb NOT NULL            -- the record after the action
);
CREATE INDEX revisions_record ON revisions (namespace, record_id, seq);

CREATE TABLE retrievals (
	rowid     bigserial PRIMARY KEY,
	id        text NOT NULL,
	namespace text COLLATE "C" NOT NULL,
	at        bigint NOT NULL,
	operation text NOT NULL,
	query     text NOT NULL,
	caller    text NOT NULL DEFAULT '',
	session   text NOT NULL DEFAULT '',
	ids       text[] NOT NULL,
	scores    double precision[] NOT NULL
);
CREATE INDEX retrievals_namespace_at ON retrievals (namespace, at);
