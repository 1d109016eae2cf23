-- 0008: the FTS5 table is built on demand. Keyword search ranks with the
-- in-memory BM25 index (bm25.go); FTS5 only serves Options.FTSKeyword
-- (tests and comparisons) and the benchmarks' floor, yet its triggers
-- indexed every written text, about a quarter of a batched write's CPU.
-- A store that needs it builds it from the rows then (fts.go), and keeps it
-- from that moment on.
DROP TRIGGER IF EXISTS records_fts_insert;
DROP TRIGGER IF EXISTS records_fts_delete;
DROP TRIGGER IF EXISTS records_fts_update;
DROP TABLE IF EXISTS records_fts_vocab;
DROP TABLE IF EXISTS records_fts;
