package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
	"unique"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
	"github.com/mnemo-dev/mnemo/memindex"
)

// index is the in-memory search index: per namespace, the filter fields of
// every record, its normalised vector and its terms, kept current through
// seq. Namespaces are keyed by rowid.
type index struct {
	mu  sync.RWMutex
	seq int64 // every loaded namespace reflects the database up to seq
	// refreshing admits one refresh at a time (see withIndex).
	refreshing sync.Mutex
	ns         map[string]*memindex.Namespace[int64]
	local      localSeqs          // writes of this process not yet applied by their writers (publish)
	snaps      map[string]*nsSnap // snapshot state of each loaded namespace
	// budget bounds the memory of the loaded namespaces (nil: no bound;
	// see evict.go).
	budget *memindex.Budget
}

func newIndex() *index { return &index{ns: make(map[string]*memindex.Namespace[int64])} }

// indexColumns are the columns scanEntry reads.
const indexColumns = `rowid, id, namespace, layer, kind, scope, component, mission, thread, outcome, tags,
	criticality, access_level, created_at, valid_from, valid_to, deleted_at IS NOT NULL, seq, embedding, text, body, provenance,
	importance, confidence, access_count, coalesce(updated_at, 0), tokens, source = 'extracted'`

// seqSQL reads the change counter.
const seqSQL = `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'seq'`

// dbSeq reads the change counter.
func (s *Store) dbSeq(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, seqSQL).Scan(&seq)
	return seq, err
}

// withIndex brings the index of namespace ns up to date with the database
// and calls fn with it under the index's read lock, released when fn
// returns (or panics). fn must not keep the namespace, nor anything it
// hands out by reference, past its return: a refresh may change it and an
// eviction drop it (evict.go) as soon as the lock is released.
//
// Up to date means: it reflects every change committed before the read
// began, except changes of this process whose writers have not returned
// yet (see publish): those writers bring the index up to date themselves
// before they return, so a read concurrent with them may be answered with
// or without them, and the reads that follow the write see it. Changes of
// other processes are applied here, by the first read that sees them.
func (s *Store) withIndex(ctx context.Context, ns string, fn func(n *memindex.Namespace[int64]) error) error {
	// The calls of one read share one check of the change stamp.
	cur, err := mnemo.ReadSessionFrom(ctx).Stamp(s, func() (int64, error) {
		s.seqReads.Add(1)
		var seq int64
		err := s.queryRow(ctx, seqSQL).Scan(&seq)
		return seq, err
	})
	if err != nil {
		return err
	}
	current := func(strict bool) bool {
		return s.idx.seq >= cur || !strict && s.idx.local.covers(s.idx.seq, cur)
	}
	return s.idx.loaded().Read(ns, current, func() error { return s.refreshIndex(ctx, ns, nil) }, fn)
}

// withCheckedIndex is withIndex for reads of what a snapshot's index
// checks only as it is read (vectors, postings, term lists): when fn found
// a part of it damaged (memindex.Namespace.Corrupt), the namespace is
// loaded from its rows and fn runs again, so that no answer comes from a
// damaged snapshot. fn must set its results afresh each time it runs.
func (s *Store) withCheckedIndex(ctx context.Context, ns string, fn func(n *memindex.Namespace[int64]) error) error {
	for try := 0; ; try++ {
		var idx *memindex.Namespace[int64]
		err := s.withIndex(ctx, ns, func(in *memindex.Namespace[int64]) error {
			idx = in
			if in.Corrupt() && try == 0 {
				return nil // found damaged before: not read at all
			}
			return fn(in)
		})
		if err != nil || idx == nil || !idx.Corrupt() || try > 0 {
			return err
		}
		s.dropSnapshotIndex(ns, idx)
	}
}

// condKey names a store's compiled filters in a read session.
type condKey struct{ s *Store }

// conds are the filters one read compiled.
type conds struct {
	mu sync.Mutex
	cs []*memindex.Cond
}

// compile returns f compiled for sc (memindex.Compile): once per read
// (mnemo.ReadSession), whose searches share the filter the first one
// compiled and the moment it compiled it at.
func (s *Store) compile(ctx context.Context, sc mnemo.Scope, f mnemo.Filter) *memindex.Cond {
	rs := mnemo.ReadSessionFrom(ctx)
	if rs == nil {
		s.compiles.Add(1)
		return memindex.Compile(sc, f, s.now())
	}
	cs := rs.Value(condKey{s}, func() any { return &conds{} }).(*conds)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, c := range cs.cs {
		if c.From(sc, f) {
			return c
		}
	}
	s.compiles.Add(1)
	c := memindex.Compile(sc, f, s.now())
	cs.cs = append(cs.cs, c)
	return c
}

// loaded names the loaded indexes, their locks and bound for memindex.
func (ix *index) loaded() memindex.Loaded[int64] {
	return memindex.Loaded[int64]{Mu: &ix.mu, Refreshing: &ix.refreshing, M: ix.ns, Budget: ix.budget}
}

// localSeqs are the change stamps of this process's writes that are
// committed, or about to be, and not yet applied to the index by their
// writers (publish).
type localSeqs struct {
	mu   sync.Mutex
	seqs map[int64]struct{}
}

func (l *localSeqs) add(seqs ...int64) {
	l.mu.Lock()
	if l.seqs == nil {
		l.seqs = make(map[int64]struct{})
	}
	for _, q := range seqs {
		l.seqs[q] = struct{}{}
	}
	l.mu.Unlock()
}

func (l *localSeqs) remove(seqs []int64) {
	l.mu.Lock()
	for _, q := range seqs {
		delete(l.seqs, q)
	}
	l.mu.Unlock()
}

// covers reports whether every stamp in (from, to] is a local write still
// being published. Stamps moved by anything else (another process, a
// purge's delete trigger) are not in the set, so the reader refreshes.
func (l *localSeqs) covers(from, to int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if to-from > int64(len(l.seqs)) {
		return false
	}
	for q := from + 1; q <= to; q++ {
		if _, ok := l.seqs[q]; !ok {
			return false
		}
	}
	return true
}

// publish brings the loaded indexes up to date with the writes of this
// process that moved the change stamp to seqs, before the write returns;
// until then readers may pass them by (withIndex). It waits for the
// searches in flight without holding up the searches that start meanwhile
// (lockPolitely). When it fails the stamps are dropped from the local set,
// and the next read refreshes the index itself.
func (s *Store) publish(ctx context.Context, seqs []int64, pre *indexPrep) {
	defer s.idx.local.remove(seqs)
	ctx = context.WithoutCancel(ctx) // committed: the index must follow
	s.idx.refreshing.Lock()
	defer s.idx.refreshing.Unlock()
	s.idx.mu.RLock()
	done := len(s.idx.ns) == 0 || s.idx.seq >= slices.Max(seqs)
	s.idx.mu.RUnlock()
	if done {
		// Nothing loaded (the next search loads the namespace whole), or
		// a reader's refresh took these changes already.
		return
	}
	_ = s.refreshIndex(ctx, "", pre)
}

// lockPolitely takes the write lock of the index without holding up the
// searches that start while it waits for those in flight: sync.RWMutex.Lock
// blocks every new reader from the moment it is called, so a refresh after
// every write would stall every search behind the slowest one in flight.
// Past politeWait it queues like Lock.
func (ix *index) lockPolitely() {
	if ix.mu.TryLock() {
		return
	}
	deadline := time.Now().Add(politeWait)
	for pause := 20 * time.Microsecond; time.Now().Before(deadline); pause = min(2*pause, 500*time.Microsecond) {
		time.Sleep(pause)
		if ix.mu.TryLock() {
			return
		}
	}
	ix.mu.Lock()
}

// politeWait is how long lockPolitely lets new searches pass.
const politeWait = 5 * time.Millisecond

// maxPrefetch is the number of changed rows a refresh reads before taking
// the write lock; a larger change (a bulk import by another process) is
// read under the lock, row by row, as a load is.
const maxPrefetch = 512

// change is one changed row read ahead of the write lock.
type change struct {
	rowid     int64
	namespace string
	removed   bool
	e         memindex.Entry
	emb, text []byte
}

// refreshIndex applies the rows changed since s.idx.seq to every loaded
// namespace and, unless ns is empty, loads ns if needed, all from one
// snapshot of the database. Up to maxPrefetch changed rows are read before
// the write lock is taken, so that the lock is held for the in-memory work
// alone; rows of a write of this process are applied from what pre (nil
// for none) prepared of them. It runs under s.idx.refreshing.
func (s *Store) refreshIndex(ctx context.Context, ns string, pre *indexPrep) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	cur, err := s.dbSeq(ctx, tx)
	if err != nil {
		return err
	}
	s.idx.mu.RLock()
	from, loaded := s.idx.seq, len(s.idx.ns) > 0
	s.idx.mu.RUnlock()
	var chs []change
	ahead := false
	if cur > from && loaded {
		if chs, ahead, err = readChanges(ctx, tx, from, cur); err != nil {
			return err
		}
	}
	s.idx.lockPolitely()
	defer s.idx.mu.Unlock()
	if ahead {
		for i := range chs {
			c := &chs[i]
			n := s.idx.ns[c.namespace]
			if n == nil {
				continue
			}
			switch p := pre.get(c.namespace, c.e.ID, c.emb, c.text); {
			case c.removed:
				n.Remove(c.rowid)
			case p != nil:
				n.PutPrepared(c.rowid, c.e, p)
			default:
				n.Put(c.rowid, c.e, c.emb, c.text)
			}
			s.idx.snap(c.namespace).changed++
			s.idx.budget.Changed(c.namespace)
		}
		s.idx.seq = cur
	}
	return s.refresh(ctx, tx, cur, ns)
}

// readChanges reads the rows purged and written in (from, to], in the
// order refresh applies them; ok is false when there are more than
// maxPrefetch of them.
func readChanges(ctx context.Context, tx *sql.Tx, from, to int64) (chs []change, ok bool, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT rowid_, namespace FROM deleted_rows WHERE seq > ? AND seq <= ? LIMIT ?`, from, to, maxPrefetch+1)
	if err != nil {
		return nil, false, err
	}
	for rows.Next() {
		c := change{removed: true}
		if err := rows.Scan(&c.rowid, &c.namespace); err != nil {
			rows.Close()
			return nil, false, err
		}
		chs = append(chs, c)
	}
	err = rows.Err()
	rows.Close()
	if err != nil || len(chs) > maxPrefetch {
		return nil, false, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT `+indexColumns+` FROM records WHERE seq > ? AND seq <= ? LIMIT ?`, from, to, maxPrefetch+1-len(chs))
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var c change
		var emb, text sql.RawBytes
		if err := scanEntry(rows, &c.rowid, &c.e, &c.namespace, &emb, &text); err != nil {
			return nil, false, err
		}
		c.emb, c.text = bytes.Clone(emb), bytes.Clone(text)
		chs = append(chs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return chs, len(chs) <= maxPrefetch, nil
}

// refresh applies the rows changed since s.idx.seq to every loaded
// namespace and loads ns if needed (none when ns is empty), all from one
// snapshot, that of tx, whose change stamp is cur. It runs under the
// write lock.
func (s *Store) refresh(ctx context.Context, tx *sql.Tx, cur int64, ns string) error {
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
				s.idx.budget.Changed(space)
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
				s.idx.budget.Changed(space)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	if ns != "" {
		if _, ok := s.idx.ns[ns]; !ok {
			n, _, err := s.loadSnapshot(ctx, tx, ns, cur)
			if err != nil {
				return err
			}
			if n != nil {
				s.idx.ns[ns] = n
				// The snapshot's entry table stays in memory beside the
				// entries decoded from it.
				s.idx.budget.Loaded(ns, memindex.SnapshotEntryBytes*int64(n.Len()))
			}
		}
		if _, ok := s.idx.ns[ns]; !ok {
			s.idx.snap(ns).seq = 0 // no usable snapshot: write one
			var count, blob int
			// The count from the namespace's index alone; the vectors'
			// size from one row (a namespace's vectors have one size but
			// after a change of embedder, where the slice grows instead).
			// max(length(embedding)) read every row before the load read
			// them all again.
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE namespace = ?`, ns).Scan(&count); err != nil {
				return err
			}
			err := tx.QueryRowContext(ctx, `SELECT length(embedding) FROM records WHERE namespace = ? AND embedding IS NOT NULL LIMIT 1`, ns).Scan(&blob)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			// Size everything once: growing a 100k x 384 slice row by row costs
			// copies, page faults and GC work that dominate a cold start.
			n := memindex.New[int64](count, blob/4)
			rows, err := tx.QueryContext(ctx, loadQuery, ns)
			if err != nil {
				return err
			}
			err = load(n, rows, count)
			rows.Close()
			if err != nil {
				return err
			}
			s.idx.ns[ns] = n
			s.idx.budget.Loaded(ns, 0)
		}
	}
	s.idx.seq = cur
	s.evict(ns)
	for _, n := range s.idx.ns {
		n.Sketch(&s.idx.mu) // a namespace that grew may now be worth sketching
	}
	s.maybeSnapshot()
	return nil
}

// loadQuery reads a namespace's rows in rowid order without sorting the
// rows: the namespace's rowids are sorted (an ephemeral index of 8-byte
// keys) and the rows read by them. ORDER BY rowid on the namespace's own
// index put every row, vector and all, through SQLite's sorter: half of a
// one-shot command's CPU at 1,000 records (TestLoadQueryDoesNotSort).
const loadQuery = `SELECT ` + indexColumns + ` FROM records
	WHERE rowid IN (SELECT rowid FROM records WHERE namespace = ?) ORDER BY rowid`

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
		tags, prov, bodyJSON sql.RawBytes
		created, from, to    *int64
		layer, kind          string
		imp, conf            float64
		tokens               int64
	)
	err := rows.Scan(rowid, &e.ID, ns, &layer, &kind, &e.Scope, &e.Component, &e.Mission, &e.Thread, &e.Outcome,
		&tags, &e.Criticality, &e.AccessLevel, &created, &from, &to, &e.Deleted, &e.Seq, emb, text, &bodyJSON, &prov,
		&imp, &conf, &e.Access, &e.Updated, &tokens, &e.Extracted)
	if err != nil {
		return err
	}
	e.Importance, e.Confidence, e.Tokens = float32(imp), float32(conf), int32(min(tokens, math.MaxInt32))
	e.Speaker = speakerOf(*text)
	// Keyword search also sees the structured body (mnemo.Record.SearchText).
	d, c, err := storesql.DecodeBody(bodyJSON)
	if err != nil {
		return fmt.Errorf("decode body of %s: %w", e.ID, err)
	}
	if extra := mnemo.BodyText(d, c); extra != "" {
		*text = append(append(sql.RawBytes(nil), *text...), extra...)
	}
	return storesql.FinishEntry(e, layer, kind, tags, prov, created, from, to)
}

// Warm loads the in-memory index of a namespace ahead of its first search.
// With a bound on the indexes' memory (Options.IndexMemory) it loads none
// once the loaded ones fill it: the namespaces read first are loaded then.
func (s *Store) Warm(ctx context.Context, namespace string) error {
	err := s.idx.loaded().Warm(namespace, func() error {
		return s.withIndex(ctx, namespace, func(*memindex.Namespace[int64]) error { return nil })
	})
	if err != nil {
		return fmt.Errorf("sqlite: warm: %w", err)
	}
	return nil
}

// speakerOf is the interned speaker label of a row's text
// (mnemo.SpeakerLabel): one copy of each name, however many rows open
// with it.
func speakerOf(text []byte) string {
	i := bytes.IndexByte(text, ':')
	if i <= 0 || i > 40 {
		return ""
	}
	l := mnemo.SpeakerLabel(string(text[:i+1]))
	if l == "" {
		return ""
	}
	return unique.Make(l).Value()
}
