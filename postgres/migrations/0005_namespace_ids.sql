-- 0005: record ids are unique per namespace, not across the store: the
-- same id may live in two namespaces, and nothing a namespace does or is
-- told depends on another namespace's ids.
ALTER TABLE records DROP CONSTRAINT records_pkey;
ALTER TABLE records ADD PRIMARY KEY (namespace, id);
DROP INDEX records_namespace_id;
CREATE INDEX records_id ON records (id, namespace);
