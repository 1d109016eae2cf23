package postgres

import (
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// Bounded index memory (Options.IndexMemory), as in the SQLite store:
// each loaded namespace's estimated size (memindex.Namespace.MemoryBytes:
// here the filter fields and vectors, since PostgreSQL ranks keywords
// itself) and when it was last read are kept (memindex.Budget), and once
// the sum passes the bound the least recently read namespaces are dropped,
// never the one being loaded. Dropping happens under the write lock, which
// every search's read lock excludes, and withIndex takes the read lock on the
// namespace it loaded before another refresh may run. A dropped namespace
// is loaded again from its rows by its next read, as of that read's
// snapshot of the database.

// indexMemoryBytes returns the estimate of namespace ns (under the write
// lock), -1 when it is not loaded.
func (s *Store) indexMemoryBytes(ns string) int64 {
	b, _ := memindex.SizeOf(s.idx.ns)(ns)
	return b
}

// evict drops the least recently used namespaces but keep while the loaded
// ones pass the bound. It runs under the write lock, at the end of a
// refresh.
func (s *Store) evict(keep string) {
	memindex.EvictFrom(s.idx.budget, s.idx.ns, keep, nil)
}

// IndexMemory reports the bound of the in-memory indexes (0: none), their
// estimated bytes, how many namespaces are loaded and how many were
// evicted since the store was opened.
func (s *Store) IndexMemory() (limit, used int64, loaded int, evicted int64) {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return memindex.Report(s.idx.budget, s.idx.ns)
}

// newBudget returns the budget of Options.IndexMemory (nil: no bound).
func newBudget(limit int64) *memindex.Budget { return memindex.NewBudget(limit) }

// checkIndexMemory validates Options.IndexMemory.
func checkIndexMemory(n int64) error {
	if n < 0 {
		return mnemo.Errorf(mnemo.EINVALID, "postgres: index memory bound %d is negative", n)
	}
	return nil
}
