-- 0002: API keys for the server. Only the SHA-256 of a key's secret is
-- stored.
CREATE TABLE api_keys (
	id         text COLLATE "C" PRIMARY KEY,
	name       text NOT NULL DEFAULT '',
	hash       text NOT NULL UNIQUE,
	namespaces text[] NOT NULL,
	role       text NOT NULL,
	clearance  integer NOT NULL DEFAULT 0,
	created_at bigint NOT NULL,
	revoked_at bigint
);
