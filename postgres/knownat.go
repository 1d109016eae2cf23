package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// listKnownAt is List with Filter.AsKnownAt set: the records of the
// namespace as they were known then, read from the revisions — each
// record's latest revision at or before that time, and only records whose
// current row the caller may see as well (a record raised above the
// clearance since shows none of its past). The filter is applied in Go by
// the index's predicate (memindex.ListKnownAt). Each record carries its
// current vector when its text has not changed since (else none). A scan
// of the namespace's revisions: slower than a live List.
func (s *Store) listKnownAt(ctx context.Context, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	at := opt.Filter.AsKnownAt.UnixNano()
	rows, err := s.pool.Query(ctx, `SELECT v.record, r.text, r.embedding FROM
		(SELECT DISTINCT ON (record_id) record_id, record FROM revisions
			WHERE namespace = $1 AND at <= $2 ORDER BY record_id, seq DESC) v
		JOIN records r ON r.namespace = $1 AND r.id = v.record_id AND r.access_level <= $3`,
		sc.Namespace, at, sc.Clearance)
	if err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	defer rows.Close()
	var known []*mnemo.Record
	for rows.Next() {
		var (
			snap []byte
			text string
			emb  []byte
		)
		if err := rows.Scan(&snap, &text, &emb); err != nil {
			return nil, fmt.Errorf("postgres: list: %w", err)
		}
		r := new(mnemo.Record)
		if err := json.Unmarshal(snap, r); err != nil {
			return nil, fmt.Errorf("postgres: list: decode revision: %w", err)
		}
		if r.Text == text {
			r.Embedding = decodeVector(emb)
		}
		known = append(known, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	return memindex.ListKnownAt(known, sc, opt), nil
}

// setOperators sets e.Operators from its tags and the provenance column
// of its row (decoded only when it names an operator).
func setOperators(e *memindex.Entry, prov []byte) error {
	var refs []string
	if bytes.Contains(prov, []byte(mnemo.OperatorRef)) {
		var err error
		if refs, err = decodeStrings(prov); err != nil {
			return fmt.Errorf("decode provenance of %s: %w", e.ID, err)
		}
	}
	e.Operators = mnemo.Operators(e.Tags, refs)
	return nil
}
