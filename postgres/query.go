package postgres

import (
	"context"

	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// rowsOf is sql with its arguments sent on the pool, for storesql.Read.
func (s *Store) rowsOf(ctx context.Context, sql string, args ...any) storesql.Query {
	return func() (storesql.Rows, func(), error) {
		rows, err := s.pool.Query(ctx, sql, args...)
		if err != nil {
			return nil, nil, err
		}
		return rows, rows.Close, nil
	}
}
