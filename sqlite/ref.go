package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// IDsEndingWith returns up to limit ids of the namespace visible to sc that
// end with suffix (mnemo.RefResolver).
func (s *Store) IDsEndingWith(ctx context.Context, sc mnemo.Scope, suffix string, limit int) ([]string, error) {
	if suffix == "" || limit <= 0 {
		return nil, nil
	}
	// GLOB is case-sensitive and has no escape; a suffix with a GLOB
	// metacharacter matches nothing an id may hold anyway.
	if strings.ContainsAny(suffix, "*?[]") {
		return nil, nil
	}
	rows, err := s.query(ctx, `SELECT id FROM records WHERE namespace = ? AND access_level <= ? AND id GLOB ? ORDER BY id LIMIT ?`,
		sc.Namespace, sc.Clearance, "*"+suffix, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: ids ending with: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: ids ending with: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: ids ending with: %w", err)
	}
	return ids, nil
}
