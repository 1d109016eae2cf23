package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
	"github.com/mnemo-dev/mnemo/memindex"
)

// recordColumns are the columns scanRecord reads, in order.
// The access counters are the records table's (as written or imported)
// plus the access table's (bumped by Touch).
const recordColumns = `rowid, id, namespace, layer, kind, scope, text, body, importance, confidence,
	criticality, source, provenance, component, tags, mission, access_level, created_at, updated_at,
	` + accessColumns + `, valid_from, valid_to, superseded_by, deleted_at, tokens, embedding, thread`

// accessColumns reads last_accessed_at and access_count of a row of
// records: one primary-key lookup in access each (max of a NULL is NULL,
// hence the coalesces).
const accessColumns = `coalesce((SELECT coalesce(max(records.last_accessed_at, last), records.last_accessed_at, last)
		FROM access WHERE rid = records.rowid), last_accessed_at),
	access_count + coalesce((SELECT count FROM access WHERE rid = records.rowid), 0)`

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner = storesql.Row

// readRecord reads one row of recordColumns.
func readRecord(row storesql.Row) (*mnemo.Record, error) {
	r, _, err := scanRecord(row)
	return r, err
}

// scanRecord reads one row of recordColumns.
func scanRecord(sc rowScanner) (*mnemo.Record, int64, error) {
	var (
		r                                         mnemo.Record
		rowid                                     int64
		bodyJSON, provJSON, tagsJSON              []byte
		created, updated, accessed, from, to, del *int64
		emb                                       []byte
		layer, kind                               string
	)
	err := sc.Scan(&rowid, &r.ID, &r.Namespace, &layer, &kind, &r.Scope, &r.Text, &bodyJSON,
		&r.Importance, &r.Confidence, &r.Criticality, &r.Source, &provJSON, &r.Component, &tagsJSON,
		&r.Mission, &r.AccessLevel, &created, &updated, &accessed, &r.AccessCount, &from, &to,
		&r.SupersededBy, &del, &r.Tokens, &emb, &r.Thread)
	if err != nil {
		return nil, 0, err
	}
	r.Layer, r.Kind = mnemo.Layer(layer), mnemo.Kind(kind)
	if r.Decision, r.Correction, err = storesql.DecodeBody(bodyJSON); err != nil {
		return nil, 0, fmt.Errorf("decode body of %s: %w", r.ID, err)
	}
	if r.Provenance, err = storesql.DecodeStrings(provJSON); err != nil {
		return nil, 0, fmt.Errorf("decode provenance of %s: %w", r.ID, err)
	}
	if r.Tags, err = storesql.DecodeStrings(tagsJSON); err != nil {
		return nil, 0, fmt.Errorf("decode tags of %s: %w", r.ID, err)
	}
	r.CreatedAt, r.UpdatedAt, r.ValidFrom = storesql.Time(created), storesql.Time(updated), storesql.Time(from)
	r.LastAccessedAt, r.ValidTo, r.DeletedAt = storesql.TimePtr(accessed), storesql.TimePtr(to), storesql.TimePtr(del)
	r.Embedding = storesql.DecodeVector(emb)
	return &r, rowid, nil
}

// recordArgs returns the values of every column except rowid, in the order
// of writeColumns, with seq last.
func recordArgs(r *mnemo.Record, seq int64) []any {
	return []any{r.ID, r.Namespace, string(r.Layer), string(r.Kind), r.Scope, r.Text, storesql.EncodeBody(r),
		storesql.Outcome(r), r.Importance, r.Confidence, r.Criticality, r.Source, storesql.EncodeStrings(r.Provenance),
		r.Component, storesql.EncodeStrings(r.Tags), r.Mission, r.AccessLevel, storesql.Nanos(r.CreatedAt),
		storesql.Nanos(r.UpdatedAt), storesql.NanosPtr(r.LastAccessedAt), r.AccessCount, storesql.Nanos(r.ValidFrom),
		storesql.NanosPtr(r.ValidTo), r.SupersededBy, storesql.NanosPtr(r.DeletedAt), r.Tokens,
		storesql.EncodeVector(r.Embedding), r.Thread, seq}
}

// writeColumns are the columns recordArgs fills.
var writeColumns = []string{"id", "namespace", "layer", "kind", "scope", "text", "body", "outcome",
	"importance", "confidence", "criticality", "source", "provenance", "component", "tags", "mission",
	"access_level", "created_at", "updated_at", "last_accessed_at", "access_count", "valid_from",
	"valid_to", "superseded_by", "deleted_at", "tokens", "embedding", "thread", "seq"}

var (
	insertSQL = `INSERT INTO records (` + strings.Join(writeColumns, ", ") + `) VALUES (?` +
		strings.Repeat(", ?", len(writeColumns)-1) + `) ON CONFLICT (namespace, id) DO NOTHING`
	updateSQL   = `UPDATE records SET ` + updateSets() + ` WHERE id = ? AND namespace = ?`
	revisionSQL = `INSERT INTO revisions (record_id, namespace, at, action, actor, record) VALUES (?, ?, ?, ?, ?, ?)`
)

// updateSets returns the SET list of updateSQL, the columns of
// writeColumns after id and namespace. The access count written is what
// a read returns (accessColumns): the access table's count is taken off
// the one stored in the row, which the record read before the update
// already included.
func updateSets() string {
	sets := make([]string, 0, len(writeColumns)-2)
	for _, c := range writeColumns[2:] {
		if c == "access_count" {
			sets = append(sets, `access_count = ? - coalesce((SELECT count FROM access WHERE rid = records.rowid), 0)`)
			continue
		}
		sets = append(sets, c+" = ?")
	}
	return strings.Join(sets, ", ")
}

// Insert writes new records in one transaction, skipping ids that exist.
func (s *Store) Insert(ctx context.Context, recs []*mnemo.Record, action, actor string) (int, error) {
	for _, r := range recs {
		if err := storesql.CheckRecord(r); err != nil {
			return 0, fmt.Errorf("sqlite: insert: %w", err)
		}
	}
	if len(recs) == 0 {
		return 0, nil
	}
	at := s.now().UnixNano()
	skipped := 0
	rows, err := makeInsertRows(recs)
	if err != nil {
		return 0, fmt.Errorf("sqlite: insert: %w", err)
	}
	s.prepareInserts(ctx, len(recs), insertChunk)
	err = s.writeInserting(ctx, s.prepareIndex(recs, nil), func(tx *sql.Tx, one bool) error {
		seq, err := s.bumpSeq(ctx, tx)
		if err != nil {
			return err
		}
		skipped, err = s.insertTx(ctx, tx, recs, rows, seq, at, action, actor, one)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: insert: %w", err)
	}
	return skipped, nil
}

// insertTx inserts checked records inside tx, stamped seq, and returns how
// many it skipped: with a statement for many records at a time, or with
// one, one at a time (writeInserting).
func (s *Store) insertTx(ctx context.Context, tx *sql.Tx, recs []*mnemo.Record, rows insertRows, seq, at int64, action, actor string, one bool) (int, error) {
	if action == "" {
		action = "create"
	}
	skipped := 0
	for start := 0; start < len(recs); start += insertChunk {
		end := min(start+insertChunk, len(recs))
		part := recs[start:end]
		var n int
		var err error
		if one {
			n, err = s.insertEach(ctx, tx, part, seq, at, action, actor)
		} else {
			nc := len(writeColumns)
			n, err = s.insertMany(ctx, tx, part, insertRows{rows.args[start*nc : end*nc], rows.snaps[start:end]}, seq, at, action, actor)
		}
		if err != nil {
			return 0, err
		}
		skipped += n
	}
	return skipped, nil
}

// insertRows are the statement arguments (writeColumns' values, record
// after record, the seq of each set in the transaction) and the revision
// snapshots of records to insert. They are made before the transaction
// (makeInsertRows), by the caller's goroutine: the single writer
// connection is held for less time, and with several writers at once one
// prepares its rows while another commits.
type insertRows struct {
	args  []any
	snaps []string
}

// makeInsertRows makes the insertRows of recs.
func makeInsertRows(recs []*mnemo.Record) (insertRows, error) {
	rows := insertRows{args: make([]any, 0, len(recs)*len(writeColumns)), snaps: make([]string, len(recs))}
	for i, r := range recs {
		rows.args = append(rows.args, recordArgs(r, 0)...)
		snap, err := json.Marshal(r)
		if err != nil {
			return insertRows{}, err
		}
		rows.snaps[i] = string(snap)
	}
	return rows, nil
}

// writeInserting is writePrepared for a write that inserts records (fn
// calls insertTx with one): first with statements of many records each,
// then, if one of those failed, the whole write again with a statement
// for each record, which says which record failed and why.
func (s *Store) writeInserting(ctx context.Context, pre *indexPrep, fn func(tx *sql.Tx, one bool) error) error {
	err := s.writePrepared(ctx, pre, func(tx *sql.Tx) error { return fn(tx, false) })
	if errors.Is(err, errInsertOne) {
		err = s.writePrepared(ctx, pre, func(tx *sql.Tx) error { return fn(tx, true) })
	}
	return err
}

// insertChunk is how many records one INSERT statement writes (29 values
// each: SQLite takes at most 32,766 per statement).
const insertChunk = 500

// errInsertOne asks for the write to be made again with the records
// inserted one statement each (writeInserting): a statement of many of
// them failed, and SQLite has rolled the transaction back.
var errInsertOne = errors.New("insert one at a time")

// insertMany inserts recs with one INSERT statement and their revisions
// with another, and returns how many it skipped (an id the namespace holds
// already, or one earlier in recs). One statement matters: FTS5 writes its
// pending terms to disk at every statement that changes it, so a statement
// per record leaves a segment per record to merge, most of a write's cost.
// Both statements are INSERT OR ROLLBACK: a statement that may abort
// after writing some of its rows makes SQLite keep a journal of the pages
// it changes, to undo it alone (a tenth of an insert's time at a million
// records, written to a temporary file), where this one rolls the whole
// transaction back. A failure of either is returned as errInsertOne, on
// which nothing more may run in tx: the write is made again record by
// record (insertEach) to say which record failed.
func (s *Store) insertMany(ctx context.Context, tx *sql.Tx, recs []*mnemo.Record, rows insertRows, seq, at int64, action, actor string) (int, error) {
	args := rows.args
	for k := len(writeColumns) - 1; k < len(args); k += len(writeColumns) {
		args[k] = seq // the last column
	}
	ins, err := s.writeStmt(ctx, tx, insertManySQL(len(recs)))
	if err != nil {
		return 0, errInsertOne
	}
	defer ins.Close()
	res, err := ins.QueryContext(ctx, args...)
	if err != nil {
		return 0, errInsertOne
	}
	type key struct{ ns, id string }
	inserted := make(map[key]bool, len(recs))
	for res.Next() {
		var k key
		if err := res.Scan(&k.ns, &k.id); err != nil {
			res.Close()
			return 0, errInsertOne
		}
		inserted[k] = true
	}
	if err := res.Close(); err != nil {
		return 0, errInsertOne
	}
	if err := res.Err(); err != nil {
		return 0, errInsertOne
	}
	skipped := 0
	revs := make([]any, 0, 6*len(recs))
	for i, r := range recs {
		// Of the records of one id, the first was inserted.
		if k := (key{r.Namespace, r.ID}); inserted[k] {
			delete(inserted, k)
		} else {
			skipped++
			continue
		}
		revs = append(revs, r.ID, r.Namespace, at, action, actor, rows.snaps[i])
	}
	if len(revs) > 0 {
		rev, err := s.writeStmt(ctx, tx, revisionManySQL(len(revs)/6))
		if err != nil {
			return 0, errInsertOne
		}
		defer rev.Close()
		if _, err := rev.ExecContext(ctx, revs...); err != nil {
			return 0, errInsertOne
		}
	}
	return skipped, nil
}

// insertEach inserts recs one statement each (see insertMany) and returns
// how many it skipped.
func (s *Store) insertEach(ctx context.Context, tx *sql.Tx, recs []*mnemo.Record, seq, at int64, action, actor string) (int, error) {
	ins, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	rev, err := tx.PrepareContext(ctx, revisionSQL)
	if err != nil {
		return 0, err
	}
	defer rev.Close()
	skipped := 0
	for _, r := range recs {
		res, err := ins.ExecContext(ctx, recordArgs(r, seq)...)
		if err != nil {
			return 0, fmt.Errorf("record %s: %w", r.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			skipped++
			continue
		}
		snap, err := json.Marshal(r)
		if err != nil {
			return 0, err
		}
		if _, err := rev.ExecContext(ctx, r.ID, r.Namespace, at, action, actor, string(snap)); err != nil {
			return 0, err
		}
	}
	return skipped, nil
}

// insertManySQL is the INSERT of n records that returns the namespace and
// id of each it inserted.
func insertManySQL(n int) string {
	row := "(?" + strings.Repeat(", ?", len(writeColumns)-1) + ")"
	return `INSERT OR ROLLBACK INTO records (` + strings.Join(writeColumns, ", ") + `) VALUES ` + row +
		strings.Repeat(", "+row, n-1) + ` ON CONFLICT (namespace, id) DO NOTHING RETURNING namespace, id`
}

// revisionManySQL is revisionSQL for n revisions.
func revisionManySQL(n int) string {
	row := "(?, ?, ?, ?, ?, ?)"
	return `INSERT OR ROLLBACK INTO revisions (record_id, namespace, at, action, actor, record) VALUES ` + row + strings.Repeat(", "+row, n-1)
}

// Update replaces the stored record with rec's namespace and id.
func (s *Store) Update(ctx context.Context, rec *mnemo.Record, action, actor string) error {
	if err := storesql.CheckRecord(rec); err != nil {
		return fmt.Errorf("sqlite: update: %w", err)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		seq, err := s.bumpSeq(ctx, tx)
		if err != nil {
			return err
		}
		return s.updateTx(ctx, tx, rec, seq, action, actor)
	})
	if err != nil {
		return fmt.Errorf("sqlite: update: %w", err)
	}
	return nil
}

// updateTx replaces a checked record inside tx, stamped seq, and appends
// its revision.
func (s *Store) updateTx(ctx context.Context, tx *sql.Tx, rec *mnemo.Record, seq int64, action, actor string) error {
	if action == "" {
		action = "update"
	}
	args := append(recordArgs(rec, seq)[2:], rec.ID, rec.Namespace)
	res, err := tx.ExecContext(ctx, updateSQL, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", rec.ID)
	}
	snap, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, revisionSQL, rec.ID, rec.Namespace, s.now().UnixNano(), action, actor, string(snap))
	return err
}

// Write commits a batch in one transaction (mnemo.WriteBatch): a part that
// fails rolls back every part, and the index is published only after the
// commit, so no search sees part of it.
func (s *Store) Write(ctx context.Context, b mnemo.WriteBatch) (int, error) {
	if err := checkBatch(&b); err != nil {
		return 0, fmt.Errorf("sqlite: write: %w", err)
	}
	if b.Empty() {
		return 0, nil
	}
	at := s.now().UnixNano()
	skipped := 0
	// The rows of records still being completed (b.Ready) are made, part
	// after part as the records are done, by another goroutine (feedInserts)
	// while the transaction inserts the parts before.
	var rows insertRows
	var feed *insertFeed
	if b.Ready != nil && len(b.Insert) > 0 {
		feed = feedInserts(&b)
		defer feed.stop()
	} else {
		var err error
		if rows, err = makeInsertRows(b.Insert); err != nil {
			return 0, fmt.Errorf("sqlite: write: %w", err)
		}
	}
	part := insertChunk
	if feed != nil {
		part = insertPart
	}
	s.prepareInserts(ctx, len(b.Insert), part)
	err := s.writeInserting(ctx, s.prepareIndex(b.Insert, b.WaitReady), func(tx *sql.Tx, one bool) error {
		seq, err := s.bumpSeq(ctx, tx)
		if err != nil {
			return err
		}
		return storesql.ApplyBatch(&b, storesql.BatchSteps{
			Update: func(_ int, u mnemo.RecordUpdate) error {
				return s.updateTx(ctx, tx, u.Record, seq, u.Action, u.Actor)
			},
			Insert: func() (err error) {
				switch {
				case feed == nil:
					skipped, err = s.insertTx(ctx, tx, b.Insert, rows, seq, at, b.InsertAction, b.Actor, one)
				case !one:
					skipped, err = s.insertFed(ctx, tx, b.Insert, feed, seq, at, b.InsertAction, b.Actor)
				default: // again, record by record: every record is done and checked first
					if err = b.WaitReady(len(b.Insert)); err == nil {
						if err = checkRecords(b.Insert); err == nil {
							skipped, err = s.insertTx(ctx, tx, b.Insert, insertRows{}, seq, at, b.InsertAction, b.Actor, true)
						}
					}
				}
				return err
			},
			Embed: func() error { return s.setEmbeddingsTx(ctx, tx, b.Embeddings, seq) },
			Supersede: func(sp mnemo.Supersession) error {
				return s.supersedeTx(ctx, tx, sp, seq, b.Actor)
			},
		})
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: write: %w", err)
	}
	return skipped, nil
}

// insertPart is how many records of a batch still being completed
// (mnemo.WriteBatch.Ready) one INSERT statement writes: the first part
// goes in as soon as it is done, while the rest are completed.
const insertPart = 64

// insertFeed makes the rows of a batch's records still being completed,
// part after part, in order, as the records are done and checked.
type insertFeed struct {
	parts chan fedPart
	quit  chan struct{}
	wg    sync.WaitGroup
}

// fedPart is Insert[lo:hi]'s rows, or the error that stopped the feed.
type fedPart struct {
	lo, hi int
	rows   insertRows
	err    error
}

// feedInserts starts feeding b's inserts; stop ends it.
func feedInserts(b *mnemo.WriteBatch) *insertFeed {
	f := &insertFeed{parts: make(chan fedPart, 2), quit: make(chan struct{})}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer close(f.parts)
		for lo := 0; lo < len(b.Insert); lo += insertPart {
			p := fedPart{lo: lo, hi: min(lo+insertPart, len(b.Insert))}
			if p.err = b.WaitReady(p.hi); p.err == nil {
				if p.err = checkRecords(b.Insert[p.lo:p.hi]); p.err == nil {
					p.rows, p.err = makeInsertRows(b.Insert[p.lo:p.hi])
				}
			}
			select {
			case f.parts <- p:
			case <-f.quit:
				return
			}
			if p.err != nil {
				return
			}
		}
	}()
	return f
}

// stop ends the feed and waits for its goroutine.
func (f *insertFeed) stop() {
	close(f.quit)
	f.wg.Wait()
}

// insertFed inserts the parts of recs that f feeds, in tx, and returns
// how many records it skipped (see insertMany). A part the feed could not
// make fails the write with its error.
func (s *Store) insertFed(ctx context.Context, tx *sql.Tx, recs []*mnemo.Record, f *insertFeed, seq, at int64, action, actor string) (int, error) {
	if action == "" {
		action = "create"
	}
	skipped, fed := 0, 0
	for p := range f.parts {
		if p.err != nil {
			return 0, p.err
		}
		n, err := s.insertMany(ctx, tx, recs[p.lo:p.hi], p.rows, seq, at, action, actor)
		if err != nil {
			return 0, err
		}
		skipped += n
		fed = p.hi
	}
	if fed != len(recs) {
		return 0, fmt.Errorf("%d of %d records fed", fed, len(recs))
	}
	return skipped, nil
}

// checkBatch rejects a batch any part of which the store cannot hold
// (records still being completed are checked as they are done: see
// feedInserts).
func checkBatch(b *mnemo.WriteBatch) error {
	if b.Ready == nil {
		if err := checkRecords(b.Insert); err != nil {
			return err
		}
	}
	for _, u := range b.Updates {
		if err := storesql.CheckRecord(u.Record); err != nil {
			return err
		}
	}
	for k, v := range b.Embeddings {
		if err := storesql.CheckVector(k.ID, v); err != nil {
			return err
		}
	}
	return storesql.CheckSupersessions(b.Supersede)
}

// checkRecords rejects records the store cannot hold.
func checkRecords(recs []*mnemo.Record) error {
	for _, r := range recs {
		if err := storesql.CheckRecord(r); err != nil {
			return err
		}
	}
	return nil
}

// supersedeTx applies a supersession inside tx: the record is read there,
// so the fields the supersession does not set are the stored ones.
func (s *Store) supersedeTx(ctx context.Context, tx *sql.Tx, sp mnemo.Supersession, seq int64, actor string) error {
	r, _, err := scanRecord(tx.QueryRowContext(ctx, `SELECT `+recordColumns+` FROM records WHERE id = ? AND namespace = ?`,
		sp.ID, sp.Scope.Namespace))
	if err == sql.ErrNoRows {
		r, err = nil, nil
	}
	if err != nil {
		return err
	}
	if err := sp.Supersede(r); err != nil {
		return err
	}
	return s.updateTx(ctx, tx, r, seq, "supersede", actor)
}

// Get returns one record visible to sc, deleted ones included.
func (s *Store) Get(ctx context.Context, sc mnemo.Scope, id string) (*mnemo.Record, error) {
	cached := s.cache != nil && s.loaded(sc.Namespace)
	if cached {
		var visible bool
		var r *mnemo.Record
		err := s.withIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
			e := idx.ByID(id)
			visible = e != nil && e.AccessLevel <= sc.Clearance
			if visible {
				r = s.cache.get(sc.Namespace, id, e.Seq)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sqlite: get: %w", err)
		}
		if !visible {
			return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
		}
		if r != nil {
			return r, nil
		}
	}
	row := s.queryRow(ctx, `SELECT seq, `+recordColumns+` FROM records
		WHERE id = ? AND namespace = ? AND access_level <= ?`, id, sc.Namespace, sc.Clearance)
	var seq int64
	r, _, err := scanRecord(seqScanner{row, &seq})
	if err == sql.ErrNoRows {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get: %w", err)
	}
	if cached {
		s.cache.put(r, seq)
	}
	return r, nil
}

// seqScanner reads the row's seq, then the columns scanRecord asks for.
type seqScanner struct {
	rowScanner
	seq *int64
}

func (s seqScanner) Scan(dest ...any) error {
	return s.rowScanner.Scan(append([]any{s.seq}, dest...)...)
}

// loaded reports whether the index of namespace ns is in memory: only then
// does the record cache serve it (its validity rests on the index).
func (s *Store) loaded(ns string) bool {
	s.idx.mu.RLock()
	_, ok := s.idx.ns[ns]
	s.idx.mu.RUnlock()
	return ok
}

// GetMany returns the visible records among ids, skipping missing ones.
// When the namespace index is loaded, the index answers which ids exist
// and are visible, and the record cache serves the unchanged ones.
func (s *Store) GetMany(ctx context.Context, sc mnemo.Scope, ids []string) ([]*mnemo.Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	seen := make(map[string]bool, len(ids))
	if s.cache == nil || !s.loaded(sc.Namespace) {
		return s.getMany(ctx, sc, ids, seen)
	}
	out := make([]*mnemo.Record, 0, len(ids))
	var miss []string
	var keys []int64
	err := s.withIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			e := idx.ByID(id)
			if e == nil || e.AccessLevel > sc.Clearance {
				continue
			}
			if r := s.cache.get(sc.Namespace, id, e.Seq); r != nil {
				out = append(out, r)
			} else if k, ok := idx.Key(id); ok {
				miss, keys = append(miss, id), append(keys, k)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: get many: %w", err)
	}
	if len(miss) == 0 {
		return out, nil
	}
	recs, err := s.getRows(ctx, sc, miss, keys)
	if err != nil {
		return nil, err
	}
	return append(out, recs...), nil
}

// getRows reads into the record cache, and returns, the visible records
// ids whose row keys the namespace index gave as keys (in the same
// order): by rowid, one B-tree descent a row where a search by id takes
// two (the index on namespace and id, then the table). The namespace is
// compared, not searched (+namespace): with hundreds of keys SQLite would
// otherwise walk an index of the whole namespace. A row that no longer
// holds the id the index had for it is skipped, as a missing one.
func (s *Store) getRows(ctx context.Context, sc mnemo.Scope, ids []string, keys []int64) ([]*mnemo.Record, error) {
	var out []*mnemo.Record
	const chunk = 500
	for start := 0; start < len(keys); start += chunk {
		part, partIDs := keys[start:min(start+chunk, len(keys))], ids[start:min(start+chunk, len(ids))]
		want := make(map[int64]string, len(part))
		// The keys padded to a power of two with a key no row has (rowids
		// start at 1), so that the statements number a few and each is
		// prepared once: parsing one took about 175 µs, and a digest reads its
		// rows a window at a time.
		size := 1
		for size < len(part) {
			size *= 2
		}
		args := make([]any, 0, size+2)
		for k, key := range part {
			want[key] = partIDs[k]
			args = append(args, key)
		}
		for range size - len(part) {
			args = append(args, int64(0))
		}
		args = append(args, sc.Namespace, sc.Clearance)
		err := s.queryRecords(ctx, rowsSQL(size), args, func(r *mnemo.Record, rowid, seq int64) {
			if want[rowid] != r.ID || r.ID == "" { // a moved row, or the padding
				return
			}
			if s.cache != nil {
				s.cache.put(r, seq)
			}
			out = append(out, r)
		})
		if err != nil {
			return nil, fmt.Errorf("sqlite: get many: %w", err)
		}
	}
	return out, nil
}

// queryRecords runs q, which selects seq and recordColumns, and calls each
// with every record it returns, its row key and its seq.
func (s *Store) queryRecords(ctx context.Context, q string, args []any, each func(r *mnemo.Record, rowid, seq int64)) error {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		r, rowid, err := scanRecord(seqScanner{rows, &seq})
		if err != nil {
			return err
		}
		each(r, rowid, seq)
	}
	return rows.Err()
}

// rowsSQL selects seq and recordColumns of the rows of n row keys of a
// namespace (the keys, then the namespace and the clearance).
func rowsSQL(n int) string {
	return `SELECT seq, ` + recordColumns + ` FROM records
		WHERE rowid IN (?` + strings.Repeat(",?", n-1) + `) AND +namespace = ? AND access_level <= ?`
}

// getMany reads the visible records among ids from the database (the
// namespace index is not loaded: the record cache does not serve it).
func (s *Store) getMany(ctx context.Context, sc mnemo.Scope, ids []string, seen map[string]bool) ([]*mnemo.Record, error) {
	var out []*mnemo.Record
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[min(start, len(ids)):min(start+chunk, len(ids))]
		args := []any{sc.Namespace, sc.Clearance}
		var marks []string
		for _, id := range part {
			if seen[id] {
				continue
			}
			seen[id] = true
			args = append(args, id)
			marks = append(marks, "?")
		}
		if len(marks) == 0 {
			continue
		}
		for len(marks)&(len(marks)-1) != 0 { // a power of two, as getRows: few statements
			args = append(args, "") // no record has an empty id
			marks = append(marks, "?")
		}
		err := s.queryRecords(ctx, `SELECT seq, `+recordColumns+` FROM records
			WHERE namespace = ? AND access_level <= ? AND id IN (`+strings.Join(marks, ",")+`)`, args,
			func(r *mnemo.Record, _, _ int64) {
				if r.ID != "" { // not the padding, even in a row written around mnemo
					out = append(out, r)
				}
			})
		if err != nil {
			return nil, fmt.Errorf("sqlite: get many: %w", err)
		}
	}
	return out, nil
}

// List returns records matching opt, newest id first (newest created_at
// first with opt.ByTime).
func (s *Store) List(ctx context.Context, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	if err := storesql.CheckList(&opt); err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	if opt.Filter.AsKnownAt != nil {
		return s.listKnownAt(ctx, sc, opt)
	}
	w := whereSQL(sc, opt.Filter, s.now(), opt.IncludeDeleted, opt.IncludeHistory)
	if opt.After != "" {
		w.add("id < ?", opt.After)
	}
	order := ` ORDER BY namespace DESC, id DESC`
	if opt.ByTime {
		order = ` ORDER BY namespace DESC, created_at DESC, id DESC`
	}
	q := `SELECT ` + recordColumns + ` FROM records WHERE ` + w.String() + order + ` LIMIT ?`
	rows, err := s.query(ctx, q, append(w.args, opt.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	defer rows.Close()
	out, err := storesql.Collect(rows, readRecord)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	return out, nil
}

// Count returns the number of live records in a namespace, all clearances.
func (s *Store) Count(ctx context.Context, namespace string) (int, error) {
	now := s.now().UnixNano()
	var n int
	err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE namespace = ? AND deleted_at IS NULL
		AND (valid_from IS NULL OR valid_from <= ?) AND (valid_to IS NULL OR valid_to > ?)`,
		namespace, now, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: count: %w", err)
	}
	return n, nil
}

// History returns a visible record's revisions, oldest first.
func (s *Store) History(ctx context.Context, sc mnemo.Scope, id string) ([]mnemo.Revision, error) {
	var level int
	err := s.rdb.QueryRowContext(ctx, `SELECT access_level FROM records WHERE id = ? AND namespace = ?`,
		id, sc.Namespace).Scan(&level)
	if err == sql.ErrNoRows || (err == nil && level > sc.Clearance) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: history: %w", err)
	}
	out, err := storesql.Read(s.rowsOf(ctx, `SELECT `+storesql.RevisionColumns+` FROM revisions
		WHERE namespace = ? AND record_id = ? ORDER BY seq`, sc.Namespace, id), storesql.ScanRevision)
	if err != nil {
		return nil, fmt.Errorf("sqlite: history: %w", err)
	}
	mnemo.RedactRevisions(out, sc.Clearance)
	return out, nil
}

// Touch bumps the access counters of ids in the access table (a few bytes
// a row, where an update of records would rewrite the whole row). It
// leaves seq alone: counters are no search filter, and this process's
// record cache is bumped below.
func (s *Store) Touch(ctx context.Context, namespace string, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	// One update per distinct id, adding how often it was listed.
	counts := make(map[string]int64, len(ids))
	var distinct []string
	for _, id := range ids {
		if counts[id] == 0 {
			distinct = append(distinct, id)
		}
		counts[id]++
	}
	var touched []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO access (rid, count, last)
			SELECT rowid, ?1, ?2 FROM records WHERE namespace = ?3 AND id = ?4
			ON CONFLICT (rid) DO UPDATE SET count = count + excluded.count, last = max(coalesce(last, 0), excluded.last)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, id := range distinct {
			res, err := st.ExecContext(ctx, counts[id], at.UnixNano(), namespace, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				for range counts[id] {
					touched = append(touched, id)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: touch: %w", err)
	}
	if s.cache != nil {
		s.cache.touch(namespace, touched, at)
	}
	return nil
}
