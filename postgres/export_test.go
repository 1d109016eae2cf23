package postgres

import "context"

// SetPruneBudget sets the keyword pruning budget and returns a function
// that restores it.
func SetPruneBudget(b float64) func() {
	old := pruneBudget
	pruneBudget = b
	return func() { pruneBudget = old }
}

// Exec runs a statement on the store's database.
func (s *Store) Exec(ctx context.Context, sql string) error {
	_, err := s.pool.Exec(ctx, sql)
	return err
}
