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
	return s.stmts.get(ctx, s.rdb, q, maxStmts)
}

// maxWriteStmts bounds the write statements kept prepared: the batched
// INSERTs of a few batch sizes.
const maxWriteStmts = 16

// prepareInserts prepares, on the writer connection, the batched INSERTs
// of records and revisions that inserting n records takes (insertMany), so
// that the transaction finds them (writeStmt): the INSERT of 500 records
// has 14,500 parameters, and parsing it anew took a tenth of a batch's
// time. It must run outside a transaction of this store: the writer
// connection is the transaction's until it ends.
func (s *Store) prepareInserts(ctx context.Context, n, part int) {
	for _, k := range []int{min(n, part), n % part} {
		if k > 0 {
			s.wstmts.get(ctx, s.wdb, insertManySQL(k), maxWriteStmts)
			s.wstmts.get(ctx, s.wdb, revisionManySQL(k), maxWriteStmts)
		}
	}
}

// writeStmt returns q for tx: its statement prepared by prepareInserts, or
// else prepared for tx alone. The caller closes it.
func (s *Store) writeStmt(ctx context.Context, tx *sql.Tx, q string) (*sql.Stmt, error) {
	s.wstmts.mu.Lock()
	st := s.wstmts.stmts[q]
	s.wstmts.mu.Unlock()
	if st != nil {
		return tx.StmtContext(ctx, st), nil
	}
	return tx.PrepareContext(ctx, q)
}

// get returns the statement of q prepared on db, preparing it once; nil
// when the cache holds limit statements already or q does not prepare.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, q string, limit int) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.stmts[q]
	full := len(c.stmts) >= limit
	c.mu.Unlock()
	if ok || full {
		return st
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil // the unprepared run reports the error
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.stmts[q]; ok {
		st.Close()
		return prev
	}
	if len(c.stmts) >= limit {
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
