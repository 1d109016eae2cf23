package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// recordColumns are the columns scanRecord reads, in order.
const recordColumns = `id, namespace, layer, kind, scope, text, body, importance, confidence,
	criticality, source, provenance, component, tags, mission, access_level, created_at, updated_at,
	last_accessed_at, access_count, valid_from, valid_to, superseded_by, deleted_at, tokens, embedding, thread`

// scanRecord reads one row of recordColumns.
func scanRecord(row pgx.Row) (*mnemo.Record, error) {
	var (
		r                                         mnemo.Record
		bodyJSON, provJSON, tagsJSON              []byte
		created, updated, accessed, from, to, del *int64
		emb                                       []byte
		layer, kind                               string
	)
	err := row.Scan(&r.ID, &r.Namespace, &layer, &kind, &r.Scope, &r.Text, &bodyJSON,
		&r.Importance, &r.Confidence, &r.Criticality, &r.Source, &provJSON, &r.Component, &tagsJSON,
		&r.Mission, &r.AccessLevel, &created, &updated, &accessed, &r.AccessCount, &from, &to,
		&r.SupersededBy, &del, &r.Tokens, &emb, &r.Thread)
	if err != nil {
		return nil, err
	}
	r.Layer, r.Kind = mnemo.Layer(layer), mnemo.Kind(kind)
	if r.Decision, r.Correction, err = storesql.DecodeBody(bodyJSON); err != nil {
		return nil, fmt.Errorf("decode body of %s: %w", r.ID, err)
	}
	if r.Provenance, err = storesql.DecodeStrings(provJSON); err != nil {
		return nil, fmt.Errorf("decode provenance of %s: %w", r.ID, err)
	}
	if r.Tags, err = storesql.DecodeStrings(tagsJSON); err != nil {
		return nil, fmt.Errorf("decode tags of %s: %w", r.ID, err)
	}
	r.CreatedAt, r.UpdatedAt, r.ValidFrom = storesql.Time(created), storesql.Time(updated), storesql.Time(from)
	r.LastAccessedAt, r.ValidTo, r.DeletedAt = storesql.TimePtr(accessed), storesql.TimePtr(to), storesql.TimePtr(del)
	r.Embedding = storesql.DecodeVector(emb)
	return &r, nil
}

// collect reads every row of rows as a record.
func collect(rows pgx.Rows) ([]*mnemo.Record, error) {
	defer rows.Close()
	var out []*mnemo.Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// writeColumns are the columns a write sets from a record, with their SQL
// types (for unnest), in the order of recordValues. fts and seq follow.
var writeColumns = []struct{ name, typ string }{
	{"id", "text"}, {"namespace", "text"}, {"layer", "text"}, {"kind", "text"}, {"scope", "text"},
	{"text", "text"}, {"body", "jsonb"}, {"outcome", "text"}, {"importance", "float8"},
	{"confidence", "float8"}, {"criticality", "float8"}, {"source", "text"}, {"provenance", "jsonb"},
	{"component", "text"}, {"tags", "jsonb"}, {"mission", "text"}, {"access_level", "int4"},
	{"created_at", "int8"}, {"updated_at", "int8"}, {"last_accessed_at", "int8"}, {"access_count", "int8"},
	{"valid_from", "int8"}, {"valid_to", "int8"}, {"superseded_by", "text"}, {"deleted_at", "int8"},
	{"tokens", "int4"}, {"embedding", "bytea"}, {"thread", "text"},
}

// recordValues returns the values of writeColumns for r.
func recordValues(r *mnemo.Record) []any {
	return []any{r.ID, r.Namespace, string(r.Layer), string(r.Kind), r.Scope, r.Text, storesql.EncodeBody(r),
		storesql.Outcome(r), r.Importance, r.Confidence, r.Criticality, r.Source, storesql.EncodeStrings(r.Provenance),
		r.Component, storesql.EncodeStrings(r.Tags), r.Mission, int32(r.AccessLevel), storesql.Nanos(r.CreatedAt),
		storesql.Nanos(r.UpdatedAt), storesql.NanosPtr(r.LastAccessedAt), r.AccessCount, storesql.Nanos(r.ValidFrom),
		storesql.NanosPtr(r.ValidTo), r.SupersededBy, storesql.NanosPtr(r.DeletedAt), int32(r.Tokens),
		storesql.EncodeVector(r.Embedding), r.Thread}
}

// insertSQL inserts the rows of unnest($1...$n), n = len(writeColumns)
// (plus the fts words $n+1 and the revision snapshots $n+2) and records a
// revision for each inserted row; $n+3 is seq, $n+4 at, $n+5 action, $n+6
// actor. It returns the number of rows inserted. It is made on first use
// (as is updateSQL): not at the start of every process.
var insertSQL = sync.OnceValue(func() string {
	var params, names, sel []string
	for i, c := range writeColumns {
		typ := c.typ
		if typ == "jsonb" {
			typ = "text" // sent as text, cast below
		}
		params = append(params, fmt.Sprintf("$%d::%s[]", i+1, typ))
		names = append(names, c.name)
		if c.typ == "jsonb" {
			sel = append(sel, "u."+c.name+"::jsonb")
		} else {
			sel = append(sel, "u."+c.name)
		}
	}
	n := len(writeColumns)
	return fmt.Sprintf(`WITH u AS (
		SELECT * FROM unnest(%s, $%d::text[], $%d::text[]) WITH ORDINALITY AS u(%s, words, snap, ord)
	), ins AS (
		INSERT INTO records (%s, fts, seq)
		SELECT %s, to_tsvector('mnemo', u.words), $%d FROM u ORDER BY u.ord
		ON CONFLICT (namespace, id) DO NOTHING
		RETURNING id, namespace
	), rev AS (
		INSERT INTO revisions (record_id, namespace, at, action, actor, record)
		SELECT u.id, u.namespace, $%d, $%d, $%d, u.snap::jsonb FROM u JOIN ins ON ins.id = u.id AND ins.namespace = u.namespace ORDER BY u.ord
		RETURNING 1
	)
	SELECT count(*) FROM rev`,
		strings.Join(params, ", "), n+1, n+2, strings.Join(names, ", "), strings.Join(names, ", "),
		strings.Join(sel, ", "), n+3, n+4, n+5, n+6)
})

// updateSQL replaces every write column but id and namespace, fts and seq.
var updateSQL = sync.OnceValue(func() string {
	var sets []string
	for i, c := range writeColumns[2:] {
		p := fmt.Sprintf("$%d", i+1)
		if c.typ == "jsonb" {
			p += "::jsonb"
		}
		sets = append(sets, c.name+" = "+p)
	}
	n := len(writeColumns) - 2
	return fmt.Sprintf(`UPDATE records SET %s, fts = to_tsvector('mnemo', $%d), seq = $%d WHERE id = $%d AND namespace = $%d`,
		strings.Join(sets, ", "), n+1, n+2, n+3, n+4)
})

const revisionSQL = `INSERT INTO revisions (record_id, namespace, at, action, actor, record) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`

// checkRecord rejects records the store cannot hold and returns the JSON
// snapshot of the record for its revision.
func checkRecord(r *mnemo.Record) ([]byte, error) {
	if err := validRecord(r); err != nil {
		return nil, err
	}
	snap, err := json.Marshal(r)
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "record %s: %v", r.ID, err)
	}
	// PostgreSQL text and jsonb cannot hold NUL characters.
	if jsonHasNUL(snap) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "record %s: a field contains a NUL character", r.ID)
	}
	return snap, nil
}

// jsonHasNUL reports whether JSON text holds an escaped NUL (\u0000 that
// is not itself an escaped backslash followed by "u0000").
func jsonHasNUL(b []byte) bool {
	for i := 0; i+6 <= len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if string(b[i:i+6]) == `\u0000` {
			return true
		}
		i++ // skip the escaped character
	}
	return false
}

// validRecord is storesql.CheckRecord and what PostgreSQL's columns need
// besides: UTF-8 ids and counts that fit.
func validRecord(r *mnemo.Record) error {
	if err := storesql.CheckRecord(r); err != nil {
		return err
	}
	if !utf8.ValidString(r.ID) || !utf8.ValidString(r.SupersededBy) {
		return mnemo.Errorf(mnemo.EINVALID, "record %q: id or superseded_by is not valid UTF-8", r.ID)
	}
	if r.AccessCount < 0 || r.Tokens < 0 || r.Tokens > math.MaxInt32 {
		return mnemo.Errorf(mnemo.EINVALID, "record %s: negative access count or bad token count", r.ID)
	}
	return nil
}

// insertChunk bounds the rows of one INSERT statement.
const insertChunk = 2000

// Insert writes new records in one transaction, skipping ids that exist.
func (s *Store) Insert(ctx context.Context, recs []*mnemo.Record, action, actor string) (int, error) {
	uniq, snaps, err := checkInserts(recs)
	if err != nil {
		return 0, fmt.Errorf("postgres: insert: %w", err)
	}
	if len(uniq) == 0 {
		return 0, nil
	}
	at := s.now().UnixNano()
	inserted := 0
	err = s.write(ctx, func(tx pgx.Tx, seq int64) error {
		var err error
		inserted, err = insertTx(ctx, tx, uniq, snaps, seq, at, action, actor)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: insert: %w", err)
	}
	return len(recs) - inserted, nil
}

// checkInserts checks records to insert and returns those of distinct ids
// (an id repeated within the batch is skipped like an existing one) with
// their revision snapshots.
func checkInserts(recs []*mnemo.Record) (uniq []*mnemo.Record, snaps [][]byte, err error) {
	uniq = make([]*mnemo.Record, 0, len(recs))
	snaps = make([][]byte, 0, len(recs))
	seen := make(map[string]bool, len(recs))
	for _, r := range recs {
		snap, err := checkRecord(r)
		if err != nil {
			return nil, nil, err
		}
		if !seen[r.ID] {
			seen[r.ID] = true
			uniq = append(uniq, r)
			snaps = append(snaps, snap)
		}
	}
	return uniq, snaps, nil
}

// insertTx inserts checked records of distinct ids inside tx, stamped
// seq, and returns how many it inserted.
func insertTx(ctx context.Context, tx pgx.Tx, uniq []*mnemo.Record, snaps [][]byte, seq, at int64, action, actor string) (int, error) {
	if action == "" {
		action = "create"
	}
	inserted := 0
	for start := 0; start < len(uniq); start += insertChunk {
		end := min(start+insertChunk, len(uniq))
		args := append(insertArgs(uniq[start:end], snaps[start:end]), seq, at, action, actor)
		var n int
		if err := tx.QueryRow(ctx, insertSQL(), args...).Scan(&n); err != nil {
			return 0, err
		}
		inserted += n
	}
	return inserted, nil
}

// insertArgs returns the column arrays of insertSQL for recs: one slice per
// write column, then the fts words and the revision snapshots.
func insertArgs(recs []*mnemo.Record, snapshots [][]byte) []any {
	cols := make([][]any, len(writeColumns))
	for i := range cols {
		cols[i] = make([]any, len(recs))
	}
	words := make([]string, len(recs))
	snaps := make([]string, len(recs))
	for j, r := range recs {
		for i, v := range recordValues(r) {
			cols[i][j] = v
		}
		words[j] = docWords(r.SearchText())
		snaps[j] = string(snapshots[j])
	}
	args := make([]any, 0, len(cols)+2)
	for i, c := range writeColumns {
		args = append(args, typedArray(c.typ, cols[i]))
	}
	return append(args, words, snaps)
}

// typedArray converts a column of values to a typed slice pgx encodes as an
// array of typ.
func typedArray(typ string, col []any) any {
	switch typ {
	case "text", "jsonb":
		out := make([]*string, len(col))
		for i, v := range col {
			switch x := v.(type) {
			case string:
				out[i] = &x
			case *string:
				out[i] = x
			}
		}
		return out
	case "float8":
		out := make([]float64, len(col))
		for i, v := range col {
			out[i] = v.(float64)
		}
		return out
	case "int4":
		out := make([]int32, len(col))
		for i, v := range col {
			out[i] = v.(int32)
		}
		return out
	case "int8":
		out := make([]*int64, len(col))
		for i, v := range col {
			switch x := v.(type) {
			case int64:
				out[i] = &x
			case *int64:
				out[i] = x
			}
		}
		return out
	case "bytea":
		out := make([][]byte, len(col))
		for i, v := range col {
			out[i] = v.([]byte)
		}
		return out
	}
	panic("postgres: unknown column type " + typ)
}

// Update replaces the stored record with rec's namespace and id.
func (s *Store) Update(ctx context.Context, rec *mnemo.Record, action, actor string) error {
	snap, err := checkRecord(rec)
	if err != nil {
		return fmt.Errorf("postgres: update: %w", err)
	}
	err = s.write(ctx, func(tx pgx.Tx, seq int64) error {
		return s.updateTx(ctx, tx, rec, snap, seq, action, actor)
	})
	if err != nil {
		return fmt.Errorf("postgres: update: %w", err)
	}
	return nil
}

// updateTx replaces a checked record (snap its revision snapshot) inside
// tx, stamped seq, and appends its revision.
func (s *Store) updateTx(ctx context.Context, tx pgx.Tx, rec *mnemo.Record, snap []byte, seq int64, action, actor string) error {
	if action == "" {
		action = "update"
	}
	args := append(recordValues(rec)[2:], docWords(rec.SearchText()), seq, rec.ID, rec.Namespace)
	tag, err := tx.Exec(ctx, updateSQL(), args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", rec.ID)
	}
	_, err = tx.Exec(ctx, revisionSQL, rec.ID, rec.Namespace, s.now().UnixNano(), action, actor, string(snap))
	return err
}

// Write commits a batch in one transaction (mnemo.WriteBatch): a part that
// fails rolls back every part.
func (s *Store) Write(ctx context.Context, b mnemo.WriteBatch) (int, error) {
	// Records still being completed are waited for before the transaction.
	if err := b.WaitReady(len(b.Insert)); err != nil {
		return 0, fmt.Errorf("postgres: write: %w", err)
	}
	uniq, snaps, err := checkInserts(b.Insert)
	if err != nil {
		return 0, fmt.Errorf("postgres: write: %w", err)
	}
	updSnaps := make([][]byte, len(b.Updates))
	for i, u := range b.Updates {
		if updSnaps[i], err = checkRecord(u.Record); err != nil {
			return 0, fmt.Errorf("postgres: write: %w", err)
		}
	}
	vecs, err := embeddingArgs(b.Embeddings)
	if err != nil {
		return 0, fmt.Errorf("postgres: write: %w", err)
	}
	if err := storesql.CheckSupersessions(b.Supersede); err != nil {
		return 0, fmt.Errorf("postgres: write: %w", err)
	}
	if b.Empty() {
		return 0, nil
	}
	at := s.now().UnixNano()
	inserted := 0
	err = s.write(ctx, func(tx pgx.Tx, seq int64) error {
		return storesql.ApplyBatch(&b, storesql.BatchSteps{
			Update: func(i int, u mnemo.RecordUpdate) error {
				return s.updateTx(ctx, tx, u.Record, updSnaps[i], seq, u.Action, u.Actor)
			},
			Insert: func() (err error) {
				inserted, err = insertTx(ctx, tx, uniq, snaps, seq, at, b.InsertAction, b.Actor)
				return err
			},
			Embed: func() error { return setEmbeddingsTx(ctx, tx, vecs, seq) },
			Supersede: func(sp mnemo.Supersession) error {
				return s.supersedeTx(ctx, tx, sp, seq, b.Actor)
			},
		})
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: write: %w", err)
	}
	return len(b.Insert) - inserted, nil
}

// supersedeTx applies a supersession inside tx: the record is read there,
// locked, so the fields the supersession does not set are the stored ones.
func (s *Store) supersedeTx(ctx context.Context, tx pgx.Tx, sp mnemo.Supersession, seq int64, actor string) error {
	var r *mnemo.Record
	if textOK(sp.ID) {
		var err error
		r, err = scanRecord(tx.QueryRow(ctx, `SELECT `+recordColumns+` FROM records WHERE id = $1 AND namespace = $2 FOR UPDATE`,
			sp.ID, sp.Scope.Namespace))
		if isNoRows(err) {
			r, err = nil, nil
		}
		if err != nil {
			return err
		}
	}
	if err := sp.Supersede(r); err != nil {
		return err
	}
	snap, err := checkRecord(r)
	if err != nil {
		return err
	}
	return s.updateTx(ctx, tx, r, snap, seq, "supersede", actor)
}

// Get returns one record visible to sc, deleted ones included.
func (s *Store) Get(ctx context.Context, sc mnemo.Scope, id string) (*mnemo.Record, error) {
	if !textOK(id) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
	}
	row := s.pool.QueryRow(ctx, `SELECT `+recordColumns+` FROM records
		WHERE id = $1 AND namespace = $2 AND access_level <= $3`, id, sc.Namespace, sc.Clearance)
	r, err := scanRecord(row)
	if isNoRows(err) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get: %w", err)
	}
	return r, nil
}

// GetMany returns the visible records among ids, skipping missing ones.
func (s *Store) GetMany(ctx context.Context, sc mnemo.Scope, ids []string) ([]*mnemo.Record, error) {
	clean := validIDs(ids)
	if len(clean) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+recordColumns+` FROM records
		WHERE namespace = $1 AND access_level <= $2 AND id = ANY($3::text[])`, sc.Namespace, sc.Clearance, clean)
	if err != nil {
		return nil, fmt.Errorf("postgres: get many: %w", err)
	}
	out, err := collect(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: get many: %w", err)
	}
	return out, nil
}

// validIDs drops duplicates and ids PostgreSQL text cannot hold (they match
// no record).
func validIDs(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if seen[id] || !textOK(id) {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

// List returns records matching opt, newest id first (newest created_at
// first with opt.ByTime).
func (s *Store) List(ctx context.Context, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	if err := storesql.CheckList(&opt); err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	if !textOK(opt.After) {
		return nil, fmt.Errorf("postgres: list: %w", mnemo.Errorf(mnemo.EINVALID, "cursor is not valid UTF-8"))
	}
	if opt.Filter.AsKnownAt != nil {
		return s.listKnownAt(ctx, sc, opt)
	}
	w := &where{}
	whereSQL(w, sc, opt.Filter, s.now(), opt.IncludeDeleted, opt.IncludeHistory)
	if opt.After != "" {
		w.add("id < " + w.arg(opt.After))
	}
	order := ` ORDER BY namespace DESC, id DESC`
	if opt.ByTime {
		order = ` ORDER BY namespace DESC, created_at DESC, id DESC`
	}
	q := `SELECT ` + recordColumns + ` FROM records WHERE ` + w.String() + order + ` LIMIT ` + w.arg(opt.Limit)
	rows, err := s.pool.Query(ctx, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	out, err := collect(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	return out, nil
}

// Count returns the number of live records in a namespace, all clearances.
func (s *Store) Count(ctx context.Context, namespace string) (int, error) {
	now := s.now().UnixNano()
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE namespace = $1 AND deleted_at IS NULL
		AND (valid_from IS NULL OR valid_from <= $2) AND (valid_to IS NULL OR valid_to > $2)`,
		namespace, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: count: %w", err)
	}
	return n, nil
}

// History returns a visible record's revisions, oldest first.
func (s *Store) History(ctx context.Context, sc mnemo.Scope, id string) ([]mnemo.Revision, error) {
	if !textOK(id) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
	}
	var level int
	err := s.pool.QueryRow(ctx, `SELECT access_level FROM records WHERE id = $1 AND namespace = $2`,
		id, sc.Namespace).Scan(&level)
	if isNoRows(err) || (err == nil && level > sc.Clearance) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "record %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: history: %w", err)
	}
	out, err := storesql.Read(s.rowsOf(ctx, `SELECT `+storesql.RevisionColumns+` FROM revisions
		WHERE namespace = $1 AND record_id = $2 ORDER BY seq`, sc.Namespace, id), storesql.ScanRevision)
	if err != nil {
		return nil, fmt.Errorf("postgres: history: %w", err)
	}
	mnemo.RedactRevisions(out, sc.Clearance)
	return out, nil
}

// Touch bumps the access counters of ids (once per occurrence). It does not
// change seq: access counters are not search filters.
func (s *Store) Touch(ctx context.Context, namespace string, ids []string, at time.Time) error {
	var clean []string
	for _, id := range ids {
		if textOK(id) {
			clean = append(clean, id)
		}
	}
	if len(clean) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `UPDATE records r SET access_count = r.access_count + c.n,
			last_accessed_at = greatest(coalesce(r.last_accessed_at, 0), $1)
		FROM (SELECT id, count(*) AS n FROM unnest($3::text[]) AS id GROUP BY id) c
		WHERE r.namespace = $2 AND r.id = c.id`, at.UnixNano(), namespace, clean)
	if err != nil {
		return fmt.Errorf("postgres: touch: %w", err)
	}
	return nil
}

// textOK reports whether PostgreSQL text can hold s: valid UTF-8 without
// NUL. Strings that fail it match no stored value.
func textOK(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
