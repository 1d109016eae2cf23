package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// Embedder returns the embedder recorded for the store (zero if none yet).
func (s *Store) Embedder(ctx context.Context) (mnemo.EmbedderInfo, error) {
	info, err := storesql.ReadEmbedder(s.pool.QueryRow(ctx, storesql.EmbedderSQL), isNoRows)
	if err != nil {
		return info, fmt.Errorf("postgres: embedder: %w", err)
	}
	return info, nil
}

// SetEmbedder records the embedder. A different recorded embedder is an
// EMISMATCH error unless force is set.
func (s *Store) SetEmbedder(ctx context.Context, info mnemo.EmbedderInfo, force bool) error {
	err := storesql.CheckEmbedder(info)
	if err == nil && !textOK(info.Name) {
		err = mnemo.Errorf(mnemo.EINVALID, "embedder name %q is not UTF-8 without NUL", info.Name)
	}
	if err != nil {
		return fmt.Errorf("postgres: set embedder: %w", err)
	}
	b, _ := json.Marshal(info)
	err = s.write(ctx, func(tx pgx.Tx, _ int64) error {
		v, err := storesql.EmbedderRecord(tx.QueryRow(ctx, storesql.EmbedderSQL), isNoRows)
		if err != nil {
			return err
		}
		if write, err := storesql.SwitchEmbedder(v, info, force); !write {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('embedder', $1)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, string(b))
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: set embedder: %w", err)
	}
	return nil
}

// cleanText makes s storable as PostgreSQL text: invalid UTF-8 becomes
// U+FFFD and NUL characters are dropped. It is used for log fields only.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// LogRetrieval appends a retrieval log entry. Text fields that PostgreSQL
// cannot hold (invalid UTF-8, NUL) are cleaned rather than refused: a
// hostile query must not break the log.
func (s *Store) LogRetrieval(ctx context.Context, logs ...mnemo.RetrievalLog) error {
	batch := &pgx.Batch{}
	for _, l := range logs {
		if err := storesql.CheckRetrieval(&l, s.now()); err != nil {
			return fmt.Errorf("postgres: log retrieval: %w", err)
		}
		ids := make([]string, len(l.IDs))
		for i, id := range l.IDs {
			ids[i] = cleanText(id)
		}
		batch.Queue(`INSERT INTO retrievals (`+storesql.RetrievalColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, cleanText(l.ID), l.Namespace, l.At.UnixNano(),
			cleanText(l.Operation), cleanText(l.Query), cleanText(l.Caller), cleanText(l.Session), ids, l.Scores)
	}
	if batch.Len() == 0 {
		return nil
	}
	// One transaction: every entry of the batch or none.
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return fmt.Errorf("postgres: log retrieval: %w", err)
	}
	return nil
}

// Retrievals returns the most recent retrieval log entries of a namespace,
// newest first; limit 0 means 100.
func (s *Store) Retrievals(ctx context.Context, namespace string, limit int) ([]mnemo.RetrievalLog, error) {
	if limit <= 0 {
		limit = 100
	}
	if !textOK(namespace) {
		return nil, nil
	}
	out, err := storesql.Read(s.rowsOf(ctx, `SELECT `+storesql.RetrievalColumns+`
		FROM retrievals WHERE namespace = $1 ORDER BY at DESC, rowid DESC LIMIT $2`, namespace, limit),
		func(r storesql.Row) (mnemo.RetrievalLog, error) { return scanRetrieval(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: retrievals: %w", err)
	}
	return out, nil
}

// scanRetrieval reads a row of the columns before (if any) and
// storesql.RetrievalColumns, the ids and scores stored as arrays.
func scanRetrieval(row storesql.Row, before ...any) (mnemo.RetrievalLog, error) {
	var r storesql.Retrieval
	if err := row.Scan(append(before, r.Dest(&r.IDs, &r.Scores)...)...); err != nil {
		return mnemo.RetrievalLog{}, err
	}
	return r.Finish(), nil
}

// eachPage is the page size of EachRecord.
const eachPage = 500

// EachRecord calls fn with every record of every namespace, deleted
// included, in (id, namespace) order. It reads in pages, so fn may write to
// the store.
func (s *Store) EachRecord(ctx context.Context, fn func(*mnemo.Record) error) error {
	return storesql.EachRecord("postgres: each record", eachPage, func(after, afterNS string) storesql.Query {
		return s.rowsOf(ctx, `SELECT `+recordColumns+` FROM records WHERE (id, namespace) > ($1, $2)
			ORDER BY id, namespace LIMIT $3`, after, afterNS, eachPage)
	}, func(r storesql.Row) (*mnemo.Record, error) { return scanRecord(r) }, fn)
}

// SetEmbeddings replaces the vectors of records, of any namespaces, in one
// transaction. An unknown record is ENOTFOUND and nothing is written.
func (s *Store) SetEmbeddings(ctx context.Context, vecs map[mnemo.RecordKey][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	args, err := embeddingArgs(vecs)
	if err != nil {
		return fmt.Errorf("postgres: set embeddings: %w", err)
	}
	err = s.write(ctx, func(tx pgx.Tx, seq int64) error {
		return setEmbeddingsTx(ctx, tx, args, seq)
	})
	if err != nil {
		return fmt.Errorf("postgres: set embeddings: %w", err)
	}
	return nil
}

// vectorArgs are the checked arguments of setEmbeddingsTx.
type vectorArgs struct {
	ids, nss []string
	blobs    [][]byte
}

// embeddingArgs checks vectors and returns them as setEmbeddingsTx's
// arguments.
func embeddingArgs(vecs map[mnemo.RecordKey][]float32) (vectorArgs, error) {
	a := vectorArgs{ids: make([]string, 0, len(vecs)), nss: make([]string, 0, len(vecs)), blobs: make([][]byte, 0, len(vecs))}
	for k, v := range vecs {
		id := k.ID
		if !textOK(id) || !textOK(k.Namespace) {
			return a, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return a, mnemo.Errorf(mnemo.EINVALID, "record %s: embedding holds NaN or Inf", id)
			}
		}
		a.ids = append(a.ids, id)
		a.nss = append(a.nss, k.Namespace)
		a.blobs = append(a.blobs, storesql.EncodeVector(v))
	}
	return a, nil
}

// setEmbeddingsTx replaces vectors inside tx, stamped seq.
func setEmbeddingsTx(ctx context.Context, tx pgx.Tx, a vectorArgs, seq int64) error {
	if len(a.ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `UPDATE records r SET embedding = u.e, seq = $4
		FROM unnest($1::text[], $2::text[], $3::bytea[]) AS u(id, ns, e) WHERE r.namespace = u.ns AND r.id = u.id
		RETURNING r.id, r.namespace`, a.ids, a.nss, a.blobs, seq)
	if err != nil {
		return err
	}
	found := make(map[mnemo.RecordKey]bool, len(a.ids))
	for rows.Next() {
		var k mnemo.RecordKey
		if err := rows.Scan(&k.ID, &k.Namespace); err != nil {
			rows.Close()
			return err
		}
		found[k] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i, id := range a.ids {
		if !found[mnemo.RecordKey{Namespace: a.nss[i], ID: id}] {
			return mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
		}
	}
	return nil
}

// Namespaces lists the namespaces that hold records, sorted.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT namespace FROM records ORDER BY namespace`)
	if err != nil {
		return nil, fmt.Errorf("postgres: namespaces: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: namespaces: %w", err)
	}
	return out, nil
}

// Existing returns which of ids exist in the namespace, forgotten ones
// included.
func (s *Store) Existing(ctx context.Context, namespace string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool)
	var valid []string
	for _, id := range ids {
		if textOK(id) { // an id PostgreSQL cannot hold cannot exist
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 || !textOK(namespace) {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM records WHERE namespace = $1 AND id = ANY($2::text[])`, namespace, valid)
	if err != nil {
		return nil, fmt.Errorf("postgres: existing: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("postgres: existing: %w", err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: existing: %w", err)
	}
	return out, nil
}

// EachRetrieval calls fn with every retrieval of namespace logged in
// [since, until), oldest first, reading 1,000 at a time.
func (s *Store) EachRetrieval(ctx context.Context, namespace string, since, until time.Time, fn func(mnemo.RetrievalLog) error) error {
	if !textOK(namespace) {
		return nil
	}
	return storesql.EachRetrieval("postgres: each retrieval", since, until, func(c *storesql.RetrievalCursor) storesql.Query {
		return s.rowsOf(ctx, `SELECT rowid, `+storesql.RetrievalColumns+`
			FROM retrievals WHERE namespace = $1 AND at < $2 AND (at > $3 OR (at = $3 AND rowid > $4))
			ORDER BY at, rowid LIMIT 1000`, namespace, c.End, c.At, c.Row)
	}, func(r storesql.Row, rowid *int64) (mnemo.RetrievalLog, error) { return scanRetrieval(r, rowid) }, fn)
}

// Purge hard-deletes the namespace's records forgotten before deletedBefore,
// with their revisions, and logs them in deleted_rows under one stamp.
func (s *Store) Purge(ctx context.Context, sc mnemo.Scope, deletedBefore time.Time) (int, error) {
	namespace := sc.Namespace
	if err := storesql.CheckNamespace(namespace); err != nil {
		return 0, fmt.Errorf("postgres: purge: %w", err)
	}
	var n int64
	err := s.write(ctx, func(tx pgx.Tx, seq int64) error {
		tag, err := tx.Exec(ctx, `WITH gone AS (
				DELETE FROM records WHERE namespace = $1 AND access_level <= $4 AND deleted_at IS NOT NULL AND deleted_at < $2
				RETURNING id, namespace
			), revs AS (
				DELETE FROM revisions r USING gone WHERE r.namespace = gone.namespace AND r.record_id = gone.id
			)
			INSERT INTO deleted_rows (seq, id, namespace) SELECT $3, id, namespace FROM gone`,
			namespace, deletedBefore.UnixNano(), seq, sc.Clearance)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: purge: %w", err)
	}
	return int(n), nil
}

// settingKey keeps settings apart from the store's own meta keys.
func settingKey(key string) string { return "setting:" + key }

// Setting returns a stored setting.
func (s *Store) Setting(ctx context.Context, key string) (string, bool, error) {
	if !textOK(key) {
		return "", false, nil
	}
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, settingKey(key)).Scan(&v)
	if isNoRows(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("postgres: setting: %w", err)
	}
	return v, true, nil
}

// SetSetting stores a setting.
func (s *Store) SetSetting(ctx context.Context, key, value string) error {
	if key == "" || !textOK(key) || !textOK(value) {
		return fmt.Errorf("postgres: set setting: %w", mnemo.Errorf(mnemo.EINVALID, "setting key and value must be UTF-8 without NUL, the key non-empty"))
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		settingKey(key), value)
	if err != nil {
		return fmt.Errorf("postgres: set setting: %w", err)
	}
	return nil
}

// Threads lists the namespace's threads with live records visible to sc.
func (s *Store) Threads(ctx context.Context, sc mnemo.Scope) ([]mnemo.ThreadInfo, error) {
	w := &where{}
	whereSQL(w, sc, mnemo.Filter{}, s.now(), false, true)
	w.add("thread <> ''")
	rows, err := s.pool.Query(ctx, `SELECT thread, count(*), min(created_at), max(created_at) FROM records WHERE `+
		w.String()+` GROUP BY thread ORDER BY max(created_at) DESC, thread`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: threads: %w", err)
	}
	defer rows.Close()
	out := []mnemo.ThreadInfo{}
	for rows.Next() {
		var t mnemo.ThreadInfo
		var n, first, last int64
		if err := rows.Scan(&t.Name, &n, &first, &last); err != nil {
			return nil, fmt.Errorf("postgres: threads: %w", err)
		}
		t.Records = int(n)
		t.First, t.Last = time.Unix(0, first).UTC(), time.Unix(0, last).UTC()
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: threads: %w", err)
	}
	return out, nil
}
