package sqlite

import (
	"context"
	"fmt"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// listKnownAt is List with Filter.AsKnownAt set (storesql.ListKnownAt):
// a scan of the namespace's revisions, slower than a live List.
func (s *Store) listKnownAt(ctx context.Context, sc mnemo.Scope, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	at := opt.Filter.AsKnownAt.UnixNano()
	// SQLite's bare columns of an aggregate come from the row of max(seq).
	out, err := storesql.ListKnownAt(s.rowsOf(ctx, `SELECT v.record, r.text, r.embedding FROM
		(SELECT record_id, record, max(seq) FROM revisions WHERE namespace = ? AND at <= ? GROUP BY record_id) v
		JOIN records r ON r.namespace = ? AND r.id = v.record_id AND r.access_level <= ?`,
		sc.Namespace, at, sc.Namespace, sc.Clearance), sc, opt)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list: %w", err)
	}
	return out, nil
}
