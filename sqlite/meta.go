package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// Embedder returns the embedder recorded for the store (zero if none yet).
func (s *Store) Embedder(ctx context.Context) (mnemo.EmbedderInfo, error) {
	info, err := storesql.ReadEmbedder(s.rdb.QueryRowContext(ctx, storesql.EmbedderSQL), noRows)
	if err != nil {
		return info, fmt.Errorf("sqlite: embedder: %w", err)
	}
	return info, nil
}

// noRows reports whether err means "no row".
func noRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// SetEmbedder records the embedder. A different recorded embedder is an
// EMISMATCH error unless force is set.
func (s *Store) SetEmbedder(ctx context.Context, info mnemo.EmbedderInfo, force bool) error {
	if err := storesql.CheckEmbedder(info); err != nil {
		return fmt.Errorf("sqlite: set embedder: %w", err)
	}
	b, _ := json.Marshal(info)
	err := s.write(ctx, func(tx *sql.Tx) error {
		v, err := storesql.EmbedderRecord(tx.QueryRowContext(ctx, storesql.EmbedderSQL), noRows)
		if err != nil {
			return err
		}
		if write, err := storesql.SwitchEmbedder(v, info, force); !write {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('embedder', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, string(b))
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: set embedder: %w", err)
	}
	return nil
}

// LogRetrieval appends a retrieval log entry.
func (s *Store) LogRetrieval(ctx context.Context, logs ...mnemo.RetrievalLog) error {
	type row struct {
		l           mnemo.RetrievalLog
		ids, scores string
	}
	rows := make([]row, 0, len(logs))
	for _, l := range logs {
		if err := storesql.CheckRetrieval(&l, s.now()); err != nil {
			return fmt.Errorf("sqlite: log retrieval: %w", err)
		}
		ids, _ := json.Marshal(l.IDs)
		scores, _ := json.Marshal(l.Scores)
		rows = append(rows, row{l, string(ids), string(scores)})
	}
	if len(rows) == 0 {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO retrievals (`+storesql.RetrievalColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range rows {
			l := r.l
			if _, err := st.ExecContext(ctx, l.ID, l.Namespace, l.At.UnixNano(), l.Operation, l.Query,
				l.Caller, l.Session, r.ids, r.scores); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: log retrieval: %w", err)
	}
	return nil
}

// Retrievals returns the most recent retrieval log entries of a namespace,
// newest first; limit 0 means 100.
func (s *Store) Retrievals(ctx context.Context, namespace string, limit int) ([]mnemo.RetrievalLog, error) {
	if limit <= 0 {
		limit = 100
	}
	out, err := storesql.Read(s.rowsOf(ctx, `SELECT `+storesql.RetrievalColumns+`
		FROM retrievals WHERE namespace = ? ORDER BY at DESC, rowid DESC LIMIT ?`, namespace, limit),
		func(r storesql.Row) (mnemo.RetrievalLog, error) { return scanRetrieval(r) })
	if err != nil {
		return nil, fmt.Errorf("sqlite: retrievals: %w", err)
	}
	return out, nil
}

// scanRetrieval reads a row of the columns before (if any) and
// storesql.RetrievalColumns, the ids and scores stored as JSON.
func scanRetrieval(sc storesql.Row, before ...any) (mnemo.RetrievalLog, error) {
	var r storesql.Retrieval
	var ids, scores []byte
	if err := sc.Scan(append(before, r.Dest(&ids, &scores)...)...); err != nil {
		return mnemo.RetrievalLog{}, err
	}
	if err := json.Unmarshal(ids, &r.IDs); err != nil {
		return mnemo.RetrievalLog{}, fmt.Errorf("decode ids: %w", err)
	}
	if err := json.Unmarshal(scores, &r.Scores); err != nil {
		return mnemo.RetrievalLog{}, fmt.Errorf("decode scores: %w", err)
	}
	return r.Finish(), nil
}

// EachRecord calls fn with every record of every namespace, deleted
// included, in (id, namespace) order. It reads in pages, so fn may write to
// the store.
func (s *Store) EachRecord(ctx context.Context, fn func(*mnemo.Record) error) error {
	return storesql.EachRecord("sqlite: each record", 500, func(after, afterNS string) storesql.Query {
		return s.rowsOf(ctx, `SELECT `+recordColumns+` FROM records WHERE (id, namespace) > (?, ?)
			ORDER BY id, namespace LIMIT 500`, after, afterNS)
	}, readRecord, fn)
}

// SetEmbeddings replaces the vectors of records, of any namespaces, in one
// transaction. An unknown record is ENOTFOUND and nothing is written.
func (s *Store) SetEmbeddings(ctx context.Context, vecs map[mnemo.RecordKey][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		seq, err := s.bumpSeq(ctx, tx)
		if err != nil {
			return err
		}
		return s.setEmbeddingsTx(ctx, tx, vecs, seq)
	})
	if err != nil {
		return fmt.Errorf("sqlite: set embeddings: %w", err)
	}
	return nil
}

// setEmbeddingsTx replaces vectors inside tx, stamped seq.
func (s *Store) setEmbeddingsTx(ctx context.Context, tx *sql.Tx, vecs map[mnemo.RecordKey][]float32, seq int64) error {
	if len(vecs) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `UPDATE records SET embedding = ?, seq = ? WHERE namespace = ? AND id = ?`)
	if err != nil {
		return err
	}
	defer st.Close()
	for k, v := range vecs {
		res, err := st.ExecContext(ctx, storesql.EncodeVector(v), seq, k.Namespace, k.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", k.ID)
		}
	}
	return nil
}

// Namespaces lists the namespaces that hold records, sorted.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT DISTINCT namespace FROM records ORDER BY namespace`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: namespaces: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var ns string
		if err := rows.Scan(&ns); err != nil {
			return nil, fmt.Errorf("sqlite: namespaces: %w", err)
		}
		out = append(out, ns)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: namespaces: %w", err)
	}
	return out, nil
}

// Existing returns which of ids exist in the namespace, forgotten ones
// included.
func (s *Store) Existing(ctx context.Context, namespace string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool)
	const chunk = 500
	for i := 0; i < len(ids); i += chunk {
		part := ids[i:min(i+chunk, len(ids))]
		args := make([]any, 0, len(part)+1)
		args = append(args, namespace)
		for _, id := range part {
			args = append(args, id)
		}
		rows, err := s.rdb.QueryContext(ctx, `SELECT id FROM records WHERE namespace = ? AND id IN (?`+
			strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: existing: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: existing: %w", err)
			}
			out[id] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("sqlite: existing: %w", err)
		}
	}
	return out, nil
}

// EachRetrieval calls fn with every retrieval of namespace logged in
// [since, until), oldest first, reading 1,000 at a time.
func (s *Store) EachRetrieval(ctx context.Context, namespace string, since, until time.Time, fn func(mnemo.RetrievalLog) error) error {
	return storesql.EachRetrieval("sqlite: each retrieval", since, until, func(c *storesql.RetrievalCursor) storesql.Query {
		return s.rowsOf(ctx, `SELECT rowid, `+storesql.RetrievalColumns+`
			FROM retrievals WHERE namespace = ? AND at < ? AND (at > ? OR (at = ? AND rowid > ?))
			ORDER BY at, rowid LIMIT 1000`, namespace, c.End, c.At, c.At, c.Row)
	}, func(r storesql.Row, rowid *int64) (mnemo.RetrievalLog, error) { return scanRetrieval(r, rowid) }, fn)
}

// Purge hard-deletes the namespace's records forgotten before deletedBefore,
// with their revisions. The delete triggers drop them from the full-text
// index and log them in deleted_rows for the in-memory indexes.
func (s *Store) Purge(ctx context.Context, sc mnemo.Scope, deletedBefore time.Time) (int, error) {
	namespace := sc.Namespace
	if err := storesql.CheckNamespace(namespace); err != nil {
		return 0, fmt.Errorf("sqlite: purge: %w", err)
	}
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		const gone = `namespace = ? AND access_level <= ? AND deleted_at IS NOT NULL AND deleted_at < ?`
		if _, err := tx.ExecContext(ctx, `DELETE FROM revisions WHERE namespace = ? AND record_id IN (SELECT id FROM records WHERE `+gone+`)`,
			namespace, namespace, sc.Clearance, deletedBefore.UnixNano()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE `+gone, namespace, sc.Clearance, deletedBefore.UnixNano())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: purge: %w", err)
	}
	return int(n), nil
}

// settingKey keeps settings apart from the store's own meta keys.
func settingKey(key string) string { return "setting:" + key }

// Setting returns a stored setting.
func (s *Store) Setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.rdb.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, settingKey(key)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sqlite: setting: %w", err)
	}
	return v, true, nil
}

// SetSetting stores a setting.
func (s *Store) SetSetting(ctx context.Context, key, value string) error {
	if key == "" || !utf8.ValidString(key) || !utf8.ValidString(value) {
		return fmt.Errorf("sqlite: set setting: %w", mnemo.Errorf(mnemo.EINVALID, "setting key and value must be UTF-8, the key non-empty"))
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
			settingKey(key), value)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: set setting: %w", err)
	}
	return nil
}

// Threads lists the namespace's threads with live records visible to sc.
func (s *Store) Threads(ctx context.Context, sc mnemo.Scope) ([]mnemo.ThreadInfo, error) {
	w := whereSQL(sc, mnemo.Filter{}, s.now(), false, true)
	w.add("thread <> ''")
	rows, err := s.rdb.QueryContext(ctx, `SELECT thread, count(*), min(created_at), max(created_at) FROM records WHERE `+
		w.String()+` GROUP BY thread ORDER BY max(created_at) DESC, thread`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: threads: %w", err)
	}
	defer rows.Close()
	out := []mnemo.ThreadInfo{}
	for rows.Next() {
		var t mnemo.ThreadInfo
		var first, last int64
		if err := rows.Scan(&t.Name, &t.Records, &first, &last); err != nil {
			return nil, fmt.Errorf("sqlite: threads: %w", err)
		}
		t.First, t.Last = time.Unix(0, first).UTC(), time.Unix(0, last).UTC()
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: threads: %w", err)
	}
	return out, nil
}
