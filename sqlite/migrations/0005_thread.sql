-- 0005: records name the conversation or session they belong to; the write
-- path reads the latest records of a thread to give a new one its context.
ALTER TABLE records ADD COLUMN thread TEXT NOT NULL DEFAULT '';
CREATE INDEX records_namespace_thread ON records (namespace, thread, created_at);
