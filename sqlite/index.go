package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// index is the in-memory search index: per namespace, the filter fields of
// every record, its normalised vector and its terms, kept current through
// seq. Namespaces are keyed by rowid.
type index struct {
	mu  sync.RWMutex
	seq int64 // every loaded namespace reflects the database up to seq
	// refreshing admits one refresh at a time (see acquire).
	refreshing sync.Mutex
	ns         map[string]*memindex.Namespace[int64]
	snaps      map[string]*nsSnap // snapshot state of each loaded namespace
}

func newIndex() *index { return &index{ns: make(map[string]*memindex.Namespace[int64])} }

// indexColumns are the columns scanEntry reads.
const indexColumns = `rowid, id, namespace, layer, kind, scope, component, mission, thread, outcome, tags,
	criticality, access_level, created_at, valid_from, valid_to, deleted_at IS NOT NULL, seq, embedding, text, body`

// dbSeq reads the change counter.
func (s *Store) dbSeq(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'seq'`).Scan(&seq)
	return seq, err
}

// acquire brings the index of namespace ns up to date with the database
// and returns it with the read lock held; the caller must call
// s.idx.mu.RUnlock when done.
func (s *Store) acquire(ctx context.Context, ns string) (*memindex.Namespace[int64], error) {
	// The calls of one read share one check of the change stamp.
	cur, err := mnemo.ReadSessionFrom(ctx).Stamp(s, func() (int64, error) { return s.dbSeq(ctx, s.rdb) })
	if err != nil {
		return nil, err
	}
	s.idx.mu.RLock()
	if n, ok := s.idx.ns[ns]; ok && s.idx.seq >= cur {
		return n, nil
	}
	s.idx.mu.RUnlock()
	// One refresh at a time, and readers that queued behind it find the
	// index fresh under the read lock: taking the write lock waits for
	// every search in flight and holds up every search after it, so after
	// a write it must be taken once, not by every reader that saw it.
	s.idx.refreshing.Lock()
	s.idx.mu.RLock()
	_, ok := s.idx.ns[ns]
	stale := !ok || s.idx.seq < cur
	s.idx.mu.RUnlock()
	if stale {
		err = s.refreshLocked(ctx, ns)
	}
	s.idx.refreshing.Unlock()
	if err != nil {
		return nil, err
	}
	s.idx.mu.RLock()
	n, ok := s.idx.ns[ns]
	if !ok { // dropped in between: cannot happen today, but do not panic
		s.idx.mu.RUnlock()
		return nil, fmt.Errorf("index of namespace %q vanished", ns)
	}
	return n, nil
}

// refreshLocked runs refresh under the write lock, with a connection
// taken before: waiting for one of the pool under the write lock would
// hold up every search.
func (s *Store) refreshLocked(ctx context.Context, ns string) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return s.refresh(ctx, tx, ns)
}

// refresh applies the rows changed since s.idx.seq to every loaded
// namespace and loads ns if needed, all from one snapshot, that of tx (a
// transaction that has read nothing yet). It runs under the write lock.
func (s *Store) refresh(ctx context.Context, tx *sql.Tx, ns string) error {
	cur, err := s.dbSeq(ctx, tx)
	if err != nil {
		return err
	}
	if cur > s.idx.seq && len(s.idx.ns) > 0 {
		// Purged rows first: a row written since may have taken a purged
		// row's rowid.
		rows, err := tx.QueryContext(ctx, `SELECT rowid_, namespace FROM deleted_rows WHERE seq > ? AND seq <= ?`, s.idx.seq, cur)
		if err != nil {
			return err
		}
		for rows.Next() {
			var rowid int64
			var space string
			if err := rows.Scan(&rowid, &space); err != nil {
				rows.Close()
				return err
			}
			if n := s.idx.ns[space]; n != nil {
				n.Remove(rowid)
				s.idx.snap(space).changed++
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `SELECT `+indexColumns+` FROM records WHERE seq > ? AND seq <= ?`, s.idx.seq, cur)
		if err != nil {
			return err
		}
		for rows.Next() {
			var e memindex.Entry
			var rowid int64
			var space string
			var emb, text sql.RawBytes
			if err := scanEntry(rows, &rowid, &e, &space, &emb, &text); err != nil {
				rows.Close()
				return err
			}
			if n := s.idx.ns[space]; n != nil {
				n.Put(rowid, e, emb, text)
				s.idx.snap(space).changed++
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	if _, ok := s.idx.ns[ns]; !ok {
		n, _, err := s.loadSnapshot(ctx, tx, ns, cur)
		if err != nil {
			return err
		}
		if n != nil {
			s.idx.ns[ns] = n
		}
	}
	if _, ok := s.idx.ns[ns]; !ok {
		s.idx.snap(ns).seq = 0 // no usable snapshot: write one
		var count, blob int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(max(length(embedding)), 0) FROM records WHERE namespace = ?`, ns).Scan(&count, &blob); err != nil {
			return err
		}
		// Size everything once: growing a 100k x 384 slice row by row costs
		// copies, page faults and GC work that dominate a cold start.
		n := memindex.New[int64](count, blob/4)
		rows, err := tx.QueryContext(ctx, `SELECT `+indexColumns+` FROM records WHERE namespace = ? ORDER BY rowid`, ns)
		if err != nil {
			return err
		}
		err = load(n, rows, count)
		rows.Close()
		if err != nil {
			return err
		}
		s.idx.ns[ns] = n
	}
	s.idx.ns[ns].Sketch(&s.idx.mu)
	s.idx.seq = cur
	s.maybeSnapshot()
	return nil
}

// pipelineMin is the namespace size from which load indexes the text in a
// second goroutine while the rows are being read (a variable for tests).
var pipelineMin = 2000

// load fills a new namespace index from rows of indexColumns, from
// pipelineMin rows on indexing the text in a second goroutine while the
// rows are being read (see memindex.Loader).
func load(n *memindex.Namespace[int64], rows *sql.Rows, count int) error {
	l := n.Load(count, count >= pipelineMin && runtime.GOMAXPROCS(0) >= 2)
	defer n.CountLevels() // after Close: the Loader does not know the levels
	defer l.Close()
	var rowid int64
	var space string
	var emb, text sql.RawBytes
	for rows.Next() {
		var e memindex.Entry
		if err := scanEntry(rows, &rowid, &e, &space, &emb, &text); err != nil {
			return err
		}
		l.Add(rowid, e, emb, text)
	}
	return rows.Err()
}

// scanEntry reads one row of indexColumns; emb and text are only valid
// until the next call of rows.Next.
func scanEntry(rows *sql.Rows, rowid *int64, e *memindex.Entry, ns *string, emb, text *sql.RawBytes) error {
	var (
		tags              sql.NullString
		created, from, to sql.NullInt64
		layer, kind       string
	)
	var bodyJSON sql.RawBytes
	err := rows.Scan(rowid, &e.ID, ns, &layer, &kind, &e.Scope, &e.Component, &e.Mission, &e.Thread, &e.Outcome,
		&tags, &e.Criticality, &e.AccessLevel, &created, &from, &to, &e.Deleted, &e.Seq, emb, text, &bodyJSON)
	if err != nil {
		return err
	}
	if len(bodyJSON) > 0 {
		// Keyword search also sees the structured body (mnemo.Record.SearchText).
		var b body
		if err := json.Unmarshal(bodyJSON, &b); err != nil {
			return fmt.Errorf("decode body of %s: %w", e.ID, err)
		}
		if extra := mnemo.BodyText(b.Decision, b.Correction); extra != "" {
			*text = append(append(sql.RawBytes(nil), *text...), extra...)
		}
	}
	e.Layer, e.Kind = mnemo.Layer(layer), mnemo.Kind(kind)
	if e.Tags, err = decodeStrings(tags); err != nil {
		return fmt.Errorf("decode tags of %s: %w", e.ID, err)
	}
	e.SetTimes(nullInt(created), nullInt(from), nullInt(to))
	return nil
}

func nullInt(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// Warm loads the in-memory index of a namespace ahead of its first search.
func (s *Store) Warm(ctx context.Context, namespace string) error {
	if _, err := s.acquire(ctx, namespace); err != nil {
		return fmt.Errorf("sqlite: warm: %w", err)
	}
	s.idx.mu.RUnlock()
	return nil
}
