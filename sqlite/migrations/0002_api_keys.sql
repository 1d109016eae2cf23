-- 0002: API keys for the server. Only the SHA-256 of a key's secret is
-- stored; namespaces is a JSON array of the namespaces the key is bound to.

CREATE TABLE api_keys (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL DEFAULT '',
	hash       TEXT NOT NULL UNIQUE,
	namespaces TEXT NOT NULL,
	role       TEXT NOT NULL,
	clearance  INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
) WITHOUT ROWID;
