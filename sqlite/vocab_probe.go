package sqlite

import (
	"context"
	"strings"
)

func (s *Store) VocabProbe(ctx context.Context, q string) (map[string]int, error) {
	out := map[string]int{}
	for _, w := range strings.Fields(q) {
		var n int
		err := s.rdb.QueryRowContext(ctx, `SELECT doc FROM records_fts_vocab WHERE term = ?`, w).Scan(&n)
		if err != nil {
			continue
		}
		out[w] = n
	}
	return out, nil
}
