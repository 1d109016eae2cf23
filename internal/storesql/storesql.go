// Package storesql is what the two SQL stores, sqlite and postgres, share
// around their SQL: the encoding of a record's columns (vectors, string
// lists, the structured body, times), the checks of what they are asked to
// write, the reading of retrieval logs and revisions, and paging. The SQL
// itself, which differs between the two dialects, stays in each store.
package storesql

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unique"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// EncodeVector packs v as little-endian float32; nil (NULL) for an empty
// vector.
func EncodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector unpacks EncodeVector's bytes; nil for none.
func DecodeVector(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// EncodeStrings returns a as a JSON array, nil (NULL) when empty.
func EncodeStrings(a []string) *string {
	if len(a) == 0 {
		return nil
	}
	b, _ := json.Marshal(a)
	s := string(b)
	return &s
}

// DecodeStrings reads EncodeStrings's JSON array; nil for NULL or an empty
// array.
func DecodeStrings(b []byte) ([]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// body is the JSON shape of the body column.
type body struct {
	Decision   *mnemo.Decision   `json:"decision,omitempty"`
	Correction *mnemo.Correction `json:"correction,omitempty"`
}

// EncodeBody returns the body column of r (its decision and correction),
// nil (NULL) when it has none.
func EncodeBody(r *mnemo.Record) *string {
	if r.Decision == nil && r.Correction == nil {
		return nil
	}
	b, _ := json.Marshal(body{Decision: r.Decision, Correction: r.Correction})
	s := string(b)
	return &s
}

// DecodeBody reads a body column (empty for NULL) into a record's decision
// and correction.
func DecodeBody(b []byte) (*mnemo.Decision, *mnemo.Correction, error) {
	if len(b) == 0 {
		return nil, nil, nil
	}
	var x body
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, nil, err
	}
	return x.Decision, x.Correction, nil
}

// Outcome is the outcome column of r: its correction's outcome, if any.
func Outcome(r *mnemo.Record) string {
	if r.Correction != nil {
		return r.Correction.Outcome
	}
	return ""
}

// Nanos encodes t as unix nanoseconds, the zero time as nil (NULL).
func Nanos(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	n := t.UnixNano()
	return &n
}

// NanosPtr is Nanos of *t, nil (NULL) for nil.
func NanosPtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	return Nanos(*t)
}

// Time decodes unix nanoseconds as a UTC time, NULL (nil) as the zero time.
func Time(n *int64) time.Time {
	if n == nil {
		return time.Time{}
	}
	return time.Unix(0, *n).UTC()
}

// TimePtr decodes unix nanoseconds as a UTC time, NULL (nil) as nil.
func TimePtr(n *int64) *time.Time {
	if n == nil {
		return nil
	}
	t := time.Unix(0, *n).UTC()
	return &t
}

// CheckNamespace rejects an empty or invalid namespace.
func CheckNamespace(ns string) error {
	if ns == "" {
		return mnemo.Errorf(mnemo.EINVALID, "namespace is empty")
	}
	return mnemo.ValidateNamespace(ns)
}

// CheckRecord rejects a record a store cannot hold: none, one without an
// id or with a bad namespace, one that fails validation (text of any
// length), one whose vector holds NaN or Inf.
func CheckRecord(r *mnemo.Record) error {
	if r == nil {
		return mnemo.Errorf(mnemo.EINVALID, "record is nil")
	}
	if strings.TrimSpace(r.ID) == "" {
		return mnemo.Errorf(mnemo.EINVALID, "record id is empty")
	}
	if err := CheckNamespace(r.Namespace); err != nil {
		return err
	}
	if err := r.Validate(mnemo.Limits{MaxTextBytes: math.MaxInt32}); err != nil {
		return mnemo.Errorf(mnemo.ErrorCode(err), "record %s: %s", r.ID, mnemo.ErrorMessage(err))
	}
	return CheckVector(r.ID, r.Embedding)
}

// CheckVector rejects a vector holding NaN or Inf.
func CheckVector(id string, v []float32) error {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return mnemo.Errorf(mnemo.EINVALID, "record %s: embedding holds NaN or Inf", id)
		}
	}
	return nil
}

// CheckList checks list options and fills their defaults: a negative limit
// is EINVALID and 0 means 100; an id cursor cannot page a list ordered by
// time.
func CheckList(opt *mnemo.ListOptions) error {
	if opt.Limit < 0 {
		return mnemo.Errorf(mnemo.EINVALID, "limit %d is negative", opt.Limit)
	}
	if opt.Limit == 0 {
		opt.Limit = 100
	}
	if opt.ByTime && opt.After != "" {
		return mnemo.Errorf(mnemo.EINVALID, "an id cursor (after) cannot page a list ordered by time")
	}
	return nil
}

// CheckEmbedder rejects an embedder without a name or a positive
// dimension.
func CheckEmbedder(info mnemo.EmbedderInfo) error {
	if info.Name == "" || info.Dim <= 0 {
		return mnemo.Errorf(mnemo.EINVALID, "embedder needs a name and a positive dimension, got %q/%d", info.Name, info.Dim)
	}
	return nil
}

// SwitchEmbedder decides SetEmbedder given the stored embedder record
// (nil when none is recorded yet): write reports whether info must be
// recorded. Another recorded embedder is EMISMATCH unless force is set.
func SwitchEmbedder(recorded []byte, info mnemo.EmbedderInfo, force bool) (write bool, err error) {
	if recorded == nil || force {
		return true, nil
	}
	var old mnemo.EmbedderInfo
	if err := json.Unmarshal(recorded, &old); err != nil {
		return false, fmt.Errorf("decode: %w", err)
	}
	if old == info {
		return false, nil
	}
	return false, mnemo.Errorf(mnemo.EMISMATCH,
		"the store was built with embedder %s (dim %d), not %s (dim %d): re-embed with force to switch",
		old.Name, old.Dim, info.Name, info.Dim)
}

// EmbedderSQL reads the embedder record from the meta table.
const EmbedderSQL = `SELECT value FROM meta WHERE key = 'embedder'`

// EmbedderRecord reads the row of EmbedderSQL: nil when there is none
// (noRows tells the driver's error for no row).
func EmbedderRecord(row Row, noRows func(error) bool) ([]byte, error) {
	var v []byte
	err := row.Scan(&v)
	if noRows(err) {
		return nil, nil
	}
	return v, err
}

// ReadEmbedder decodes the row of EmbedderSQL: the zero info when none is
// recorded yet.
func ReadEmbedder(row Row, noRows func(error) bool) (mnemo.EmbedderInfo, error) {
	var info mnemo.EmbedderInfo
	v, err := EmbedderRecord(row, noRows)
	if err != nil || v == nil {
		return info, err
	}
	if err := json.Unmarshal(v, &info); err != nil {
		return info, fmt.Errorf("decode: %w", err)
	}
	return info, nil
}

// CheckRetrieval fills a retrieval log entry's defaults (At now, empty
// lists of ids and scores) and rejects one without an id or namespace, or
// with a score that is NaN or Inf.
func CheckRetrieval(l *mnemo.RetrievalLog, now time.Time) error {
	if l.ID == "" {
		return mnemo.Errorf(mnemo.EINVALID, "retrieval id is empty")
	}
	if err := CheckNamespace(l.Namespace); err != nil {
		return err
	}
	if l.At.IsZero() {
		l.At = now
	}
	if l.IDs == nil {
		l.IDs = []string{}
	}
	if l.Scores == nil {
		l.Scores = []float64{}
	}
	for _, x := range l.Scores {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return mnemo.Errorf(mnemo.EINVALID, "score is NaN or Inf")
		}
	}
	return nil
}

// RetrievalColumns are the columns of a retrieval log entry, in the order
// Retrieval.Dest gives.
const RetrievalColumns = `id, namespace, at, operation, query, caller, session, ids, scores`

// Retrieval reads one row of RetrievalColumns. The stores keep the ids and
// scores as they can (PostgreSQL as arrays, SQLite as JSON text), so each
// gives their destinations and Finish completes the entry.
type Retrieval struct {
	mnemo.RetrievalLog
	At int64
}

// Dest returns the scan destinations of RetrievalColumns, ids and scores
// into the given ones.
func (r *Retrieval) Dest(ids, scores any) []any {
	l := &r.RetrievalLog
	return []any{&l.ID, &l.Namespace, &r.At, &l.Operation, &l.Query, &l.Caller, &l.Session, ids, scores}
}

// Finish sets the entry's time and its empty lists.
func (r *Retrieval) Finish() mnemo.RetrievalLog {
	l := r.RetrievalLog
	l.At = time.Unix(0, r.At).UTC()
	if l.IDs == nil {
		l.IDs = []string{}
	}
	if l.Scores == nil {
		l.Scores = []float64{}
	}
	return l
}

// RetrievalCursor pages through the retrieval log of [since, until),
// oldest first: End bounds the times (unix nanoseconds), At and Row are the
// time and row id of the last entry read (before the first one at first).
type RetrievalCursor struct{ End, At, Row int64 }

// NewRetrievalCursor starts paging through [since, until); a zero time is
// no bound.
func NewRetrievalCursor(since, until time.Time) *RetrievalCursor {
	c := &RetrievalCursor{End: math.MaxInt64, At: math.MinInt64, Row: -1}
	if !until.IsZero() {
		c.End = until.UnixNano()
	}
	if !since.IsZero() {
		c.At = since.UnixNano()
	}
	return c
}

// Page reads one page, the rows of q: scan reads an entry, the row id into
// the cursor first, and the cursor moves past it.
func (c *RetrievalCursor) Page(q Query, scan func(row Row, rowid *int64) (mnemo.RetrievalLog, error)) ([]mnemo.RetrievalLog, error) {
	return Read(q, func(r Row) (mnemo.RetrievalLog, error) {
		l, err := scan(r, &c.Row)
		c.At = l.At.UnixNano()
		return l, err
	})
}

// EachRecord calls fn with every record of a store in (id, namespace)
// order, reading size at a time, so that fn may write to the store: page
// is the query of the size records after (after, afterNS) and scan reads
// one of its rows. A failed read is an error of what; fn's errors are
// returned as they are.
func EachRecord(what string, size int, page func(after, afterNS string) Query,
	scan func(Row) (*mnemo.Record, error), fn func(*mnemo.Record) error) error {
	after, afterNS := "", ""
	return Pages(size, func() ([]*mnemo.Record, error) {
		out, err := Read(page(after, afterNS), scan)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if len(out) > 0 {
			after, afterNS = out[len(out)-1].ID, out[len(out)-1].Namespace
		}
		return out, nil
	}, fn)
}

// EachRetrieval calls fn with every entry of a retrieval log of [since,
// until), oldest first, reading 1,000 at a time: page is the query of the
// 1,000 after the cursor (the row id, then RetrievalColumns) and scan reads
// one of its rows. A failed read is an error of what; fn's errors are
// returned as they are.
func EachRetrieval(what string, since, until time.Time, page func(*RetrievalCursor) Query,
	scan func(row Row, rowid *int64) (mnemo.RetrievalLog, error), fn func(mnemo.RetrievalLog) error) error {
	c := NewRetrievalCursor(since, until)
	return Pages(1000, func() ([]mnemo.RetrievalLog, error) {
		out, err := c.Page(page(c), scan)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return out, nil
	}, fn)
}

// RevisionColumns are the columns of the revisions table ScanRevision
// reads.
const RevisionColumns = `seq, at, action, actor, record`

// ScanRevision reads one row of RevisionColumns: a record's revision, its
// snapshot JSON.
func ScanRevision(row Row) (mnemo.Revision, error) {
	var (
		at   int64
		snap []byte
	)
	rev := mnemo.Revision{Record: new(mnemo.Record)}
	if err := row.Scan(&rev.Seq, &at, &rev.Action, &rev.Actor, &snap); err != nil {
		return rev, err
	}
	rev.At = time.Unix(0, at).UTC()
	if err := json.Unmarshal(snap, rev.Record); err != nil {
		return rev, fmt.Errorf("decode revision %d: %w", rev.Seq, err)
	}
	return rev, nil
}

// ListKnownAt is List with Filter.AsKnownAt set, given the query of each
// record's latest revision at or before that time whose current row the
// caller may see (its JSON snapshot, the current text and the current
// vector): the records as they were known then, filtered in Go by the
// index's predicate (memindex.ListKnownAt). Each carries its current
// vector when its text has not changed since (else none).
func ListKnownAt(q Query, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	known, err := Read(q, func(row Row) (*mnemo.Record, error) {
		var (
			snap, emb []byte
			text      string
		)
		if err := row.Scan(&snap, &text, &emb); err != nil {
			return nil, err
		}
		r := new(mnemo.Record)
		if err := json.Unmarshal(snap, r); err != nil {
			return nil, fmt.Errorf("decode revision: %w", err)
		}
		if r.Text == text {
			r.Embedding = DecodeVector(emb)
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return memindex.ListKnownAt(known, sc, opt), nil
}

// Row is one row of a result: *sql.Row, *sql.Rows, pgx.Row or pgx.Rows.
type Row interface {
	Scan(dest ...any) error
}

// Rows is a result of many rows, *sql.Rows or pgx.Rows.
type Rows interface {
	Row
	Next() bool
	Err() error
}

// Query is a query a store sends in its own SQL through its own driver:
// it returns the rows and what closes them.
type Query func() (rows Rows, done func(), err error)

// Read sends q, reads every row with scan and closes the rows.
func Read[T any](q Query, scan func(Row) (T, error)) ([]T, error) {
	rows, done, err := q()
	if err != nil {
		return nil, err
	}
	defer done()
	return Collect(rows, scan)
}

// Collect reads every row of rows with scan; the caller closes rows.
func Collect[T any](rows Rows, scan func(Row) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// Pages reads in pages of size: fetch returns the next page, read whole
// (so fn may write to the store), until one is shorter than size; fn is
// called with every item.
func Pages[T any](size int, fetch func() ([]T, error), fn func(T) error) error {
	for {
		page, err := fetch()
		if err != nil {
			return err
		}
		for _, x := range page {
			if err := fn(x); err != nil {
				return err
			}
		}
		if len(page) < size {
			return nil
		}
	}
}

// FinishEntry completes an index entry read from a row: its layer and
// kind, its tags (a JSON list), its operators (from the tags and from the
// provenance column, a JSON list decoded only when it names an operator or
// an author), its authors (mnemo.Authors)
// and its times (unix nanoseconds, nil for NULL).
func FinishEntry(e *memindex.Entry, layer, kind string, tags, prov []byte, created, from, to *int64) error {
	e.Layer, e.Kind = mnemo.Layer(layer), mnemo.Kind(kind)
	var err error
	if e.Tags, err = DecodeStrings(tags); err != nil {
		return fmt.Errorf("decode tags of %s: %w", e.ID, err)
	}
	var refs []string
	if bytes.Contains(prov, []byte(mnemo.OperatorRef)) || bytes.Contains(prov, []byte(mnemo.AuthorRef)) ||
		bytes.Contains(prov, []byte(mnemo.SpeakerRef)) {
		if refs, err = DecodeStrings(prov); err != nil {
			return fmt.Errorf("decode provenance of %s: %w", e.ID, err)
		}
	}
	e.Operators = mnemo.Operators(e.Tags, refs)
	e.Authors = mnemo.Authors(refs)
	for i, a := range e.Authors {
		e.Authors[i] = unique.Make(a).Value() // one copy of each name
	}
	e.SetTimes(created, from, to)
	return nil
}
