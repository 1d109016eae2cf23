package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// maxStmts bounds the read statements kept prepared: the texts of the
// queries on the read path (a few dozen, some per filter shape).
const maxStmts = 256

// stmtCache keeps the statements of the read path prepared on the reader
// pool, by query text: parsing and planning a query costs SQLite more than
// running the small ones the index leaves to it (the change stamp, a page
// of records by id or by kind).
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// stmt returns the prepared statement of q, preparing it once; nil when
// the cache is full (the caller then runs q unprepared).
func (s *Store) stmt(ctx context.Context, q string) *sql.Stmt {
	c := &s.stmts
	c.mu.Lock()
	st, ok := c.stmts[q]
	full := len(c.stmts) >= maxStmts
	c.mu.Unlock()
	if ok || full {
		return st
	}
	st, err := s.rdb.PrepareContext(ctx, q)
	if err != nil {
		return nil // the unprepared run reports the error
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.stmts[q]; ok {
		st.Close()
		return prev
	}
	if len(c.stmts) >= maxStmts {
		st.Close()
		return nil
	}
	if c.stmts == nil {
		c.stmts = make(map[string]*sql.Stmt)
	}
	c.stmts[q] = st
	return st
}

// query runs a read query through its prepared statement.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := s.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return s.rdb.QueryContext(ctx, q, args...)
}

// queryRow is query for one row.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := s.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.rdb.QueryRowContext(ctx, q, args...)
}

// close closes the prepared statements.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.stmts {
		st.Close()
		delete(c.stmts, q)
	}
}
