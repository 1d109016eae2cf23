package sqlite

import (
	"context"

	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// rowsOf is q with its arguments sent on the read pool, for storesql.Read.
func (s *Store) rowsOf(ctx context.Context, q string, args ...any) storesql.Query {
	return func() (storesql.Rows, func(), error) {
		rows, err := s.rdb.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, nil, err
		}
		return rows, func() { rows.Close() }, nil
	}
}
