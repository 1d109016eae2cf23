-- 0004: pinned core records (and every list by kind) are found by index
-- instead of scanning the namespace: a digest asks for them every time.
CREATE INDEX records_namespace_kind_id ON records (namespace, kind, id);
