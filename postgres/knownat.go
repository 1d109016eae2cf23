package postgres

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
	out, err := storesql.ListKnownAt(s.rowsOf(ctx, `SELECT v.record, r.text, r.embedding FROM
		(SELECT DISTINCT ON (record_id) record_id, record FROM revisions
			WHERE namespace = $1 AND at <= $2 ORDER BY record_id, seq DESC) v
		JOIN records r ON r.namespace = $1 AND r.id = v.record_id AND r.access_level <= $3`,
		sc.Namespace, at, sc.Clearance), sc, opt)
	if err != nil {
		return nil, fmt.Errorf("postgres: list: %w", err)
	}
	return out, nil
}
