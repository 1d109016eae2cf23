package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo/internal/storesql"
	"github.com/mnemo-dev/mnemo/memindex"
)

// index is the in-memory vector index: per namespace, the filter fields of
// every record and its normalised vector, kept current through seq.
// Namespaces are keyed by record id; purged rows are logged in deleted_rows
// with the purge's stamp.
type index struct {
	mu  sync.RWMutex
	seq int64 // every loaded namespace reflects the database up to seq
	// refreshing admits one refresh at a time (see withIndex).
	refreshing sync.Mutex
	ns         map[string]*memindex.Namespace[string]
	// budget bounds the memory of the loaded namespaces (nil: no bound;
	// see evict.go).
	budget *memindex.Budget
}

func newIndex() *index { return &index{ns: make(map[string]*memindex.Namespace[string])} }

// indexColumns are the columns scanEntry reads.
const indexColumns = `id, namespace, layer, kind, scope, component, mission, thread, outcome, tags,
	criticality, access_level, created_at, valid_from, valid_to, deleted_at IS NOT NULL, embedding, provenance`

// maxSeqSQL reads the newest change stamp: an index-only scan of records_seq.
const maxSeqSQL = `SELECT greatest((SELECT coalesce(max(seq), 0) FROM records), (SELECT coalesce(max(seq), 0) FROM deleted_rows))`

// withIndex brings the index of namespace ns up to date with the database
// and calls fn with it under the index's read lock, released when fn
// returns (or panics). fn must not keep the namespace, nor anything it
// hands out by reference, past its return: a refresh may change it and an
// eviction drop it (evict.go) as soon as the lock is released.
func (s *Store) withIndex(ctx context.Context, ns string, fn func(n *memindex.Namespace[string]) error) error {
	var cur int64
	if err := s.pool.QueryRow(ctx, maxSeqSQL).Scan(&cur); err != nil {
		return err
	}
	refresh := func() error {
		s.idx.mu.Lock()
		defer s.idx.mu.Unlock()
		return s.refresh(ctx, ns)
	}
	return s.idx.loaded().Read(ns, func(bool) bool { return s.idx.seq >= cur }, refresh, fn)
}

// loaded names the loaded indexes, their locks and bound for memindex.
func (ix *index) loaded() memindex.Loaded[string] {
	return memindex.Loaded[string]{Mu: &ix.mu, Refreshing: &ix.refreshing, M: ix.ns, Budget: ix.budget}
}

// refresh applies the rows changed since s.idx.seq to every loaded
// namespace and loads ns if needed, all from one snapshot. It runs under
// the write lock. Writers draw seq under an advisory lock held until they
// commit, so a snapshot that sees seq N sees every write stamped <= N.
func (s *Store) refresh(ctx context.Context, ns string) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var cur int64
		if err := tx.QueryRow(ctx, maxSeqSQL).Scan(&cur); err != nil {
			return err
		}
		if cur > s.idx.seq && len(s.idx.ns) > 0 {
			rows, err := tx.Query(ctx, `SELECT `+indexColumns+` FROM records WHERE seq > $1 AND seq <= $2`, s.idx.seq, cur)
			if err != nil {
				return err
			}
			err = eachEntry(rows, func(e memindex.Entry, space string, emb []byte) {
				if n := s.idx.ns[space]; n != nil {
					n.Put(e.ID, e, emb, nil)
					s.idx.budget.Changed(space)
				}
			})
			if err != nil {
				return err
			}
			gone, err := tx.Query(ctx, `SELECT id, namespace FROM deleted_rows WHERE seq > $1 AND seq <= $2`, s.idx.seq, cur)
			if err != nil {
				return err
			}
			for gone.Next() {
				var id, space string
				if err := gone.Scan(&id, &space); err != nil {
					gone.Close()
					return err
				}
				if n := s.idx.ns[space]; n != nil {
					n.Remove(id)
					s.idx.budget.Changed(space)
				}
			}
			gone.Close()
			if err := gone.Err(); err != nil {
				return err
			}
		}
		if _, ok := s.idx.ns[ns]; !ok {
			var count, blob int
			if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(max(length(embedding)), 0) FROM records WHERE namespace = $1`, ns).Scan(&count, &blob); err != nil {
				return err
			}
			// Size everything once: growing a 100k x 384 slice row by row
			// costs copies and GC work that dominate a cold start.
			n := memindex.New[string](count, blob/4)
			rows, err := tx.Query(ctx, `SELECT `+indexColumns+` FROM records WHERE namespace = $1 ORDER BY id`, ns)
			if err != nil {
				return err
			}
			if err := eachEntry(rows, func(e memindex.Entry, _ string, emb []byte) { n.Put(e.ID, e, emb, nil) }); err != nil {
				return err
			}
			s.idx.ns[ns] = n
			s.idx.budget.Loaded(ns, 0)
		}
		s.idx.ns[ns].Sketch(&s.idx.mu)
		s.idx.seq = cur
		s.evict(ns)
		return nil
	})
}

// eachEntry scans rows of indexColumns and calls fn with each.
func eachEntry(rows pgx.Rows, fn func(e memindex.Entry, ns string, emb []byte)) error {
	defer rows.Close()
	for rows.Next() {
		var (
			e                 memindex.Entry
			ns                string
			tags, emb, prov   []byte
			created, from, to *int64
			layer, kind       string
		)
		err := rows.Scan(&e.ID, &ns, &layer, &kind, &e.Scope, &e.Component, &e.Mission, &e.Thread, &e.Outcome,
			&tags, &e.Criticality, &e.AccessLevel, &created, &from, &to, &e.Deleted, &emb, &prov)
		if err != nil {
			return err
		}
		if err := storesql.FinishEntry(&e, layer, kind, tags, prov, created, from, to); err != nil {
			return err
		}
		fn(e, ns, emb)
	}
	return rows.Err()
}

// Warm loads the in-memory index of a namespace ahead of its first search.
// With a bound on the indexes' memory (Options.IndexMemory) it loads none
// once the loaded ones fill it: the namespaces read first are loaded then.
func (s *Store) Warm(ctx context.Context, namespace string) error {
	err := s.idx.loaded().Warm(namespace, func() error {
		return s.withIndex(ctx, namespace, func(*memindex.Namespace[string]) error { return nil })
	})
	if err != nil {
		return fmt.Errorf("postgres: warm: %w", err)
	}
	return nil
}
