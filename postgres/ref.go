package postgres

import (
	"context"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

// IDsEndingWith returns up to limit ids of the namespace visible to sc that
// end with suffix (mnemo.RefResolver).
func (s *Store) IDsEndingWith(ctx context.Context, sc mnemo.Scope, suffix string, limit int) ([]string, error) {
	if suffix == "" || limit <= 0 || !textOK(suffix) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM records WHERE namespace = $1 AND access_level <= $2
		AND right(id, $3) = $4 ORDER BY id LIMIT $5`, sc.Namespace, sc.Clearance, len([]rune(suffix)), suffix, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: ids ending with: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("postgres: ids ending with: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: ids ending with: %w", err)
	}
	return ids, nil
}
