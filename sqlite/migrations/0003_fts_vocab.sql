-- 0003: document frequencies of indexed terms, used to prune very common
-- terms from keyword queries.
CREATE VIRTUAL TABLE records_fts_vocab USING fts5vocab (records_fts, 'row');
