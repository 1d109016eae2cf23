package sqlite

import (
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// Bounded index memory (Options.IndexMemory).
//
// Namespaces are loaded on their first read, as always; with a bound, the
// index also keeps each loaded namespace's estimated size
// (memindex.Namespace.MemoryBytes) and when it was last read
// (memindex.Budget), and once the sum passes the bound it drops the least
// recently read namespaces, never the one being loaded. Dropping happens
// under the write lock, which every search's read lock excludes, so no
// search ever holds a dropped namespace; withIndex takes the read lock on the
// namespace it loaded before it lets another refresh run, so that one is
// never dropped before its reader gets it. A dropped namespace is loaded
// again by its next read, from its snapshot when it has a usable one (a
// stale one is written in the background as it is dropped) and otherwise
// from its rows: the same state either way, so it answers as before.
//
// The record cache needs nothing: it is consulted only for loaded
// namespaces, and an item is served only while its row version equals the
// index entry's, which a reloaded namespace reads afresh.
//
// With a bound, snapshots are read into memory instead of being mapped: a
// namespace read from a mapping points into it (ids included, which
// searches hand out), so the mapping could never be released, and every
// reload would map the file again.

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
	memindex.EvictFrom(s.idx.budget, s.idx.ns, keep, s.snapshotEvicted)
}

// snapshotEvicted writes, in the background, the snapshot of namespace ns
// just dropped when its snapshot is missing or stale, so that its next
// load reads it instead of every row. n is no longer reachable by any
// search or refresh: nothing changes it, so it is written without a lock.
func (s *Store) snapshotEvicted(ns string, n *memindex.Namespace[int64]) {
	if s.noSnapshots {
		return
	}
	st := s.idx.snap(ns)
	if st.bad || !snapshotStale(st, n.Len()) {
		return
	}
	st.writing = true
	seq := s.idx.seq
	s.snapWG.Add(1)
	go func() {
		defer s.snapWG.Done()
		token, err := s.writeSnapshotFile(ns, n, seq)
		if err == nil {
			err = s.recordSnapshot(s.closing, ns, token)
		}
		s.idx.mu.Lock()
		defer s.idx.mu.Unlock()
		st.writing, st.last = false, time.Now()
		if err == nil {
			if _, loaded := s.idx.ns[ns]; !loaded {
				st.seq, st.changed = seq, 0
			}
		}
	}()
}

// snapshotData returns the bytes of a snapshot file of size bytes: mapped
// without a bound (see mapSnapshot), read into memory with one.
func (s *Store) snapshotData(f *os.File, size int) (data []byte, grow memindex.SnapshotGrow, release func(), err error) {
	if s.idx.budget == nil {
		return mapSnapshot(f, size)
	}
	// Allocated as 8-byte words: the sections are read in place as arrays
	// of up to 8-byte elements.
	words := make([]uint64, (size+7)/8)
	data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 8*len(words))[:size]
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, nil, err
	}
	return data, nil, func() {}, nil
}

// IndexMemory reports the bound of the in-memory indexes (0: none), their
// estimated bytes, how many namespaces are loaded and how many were
// evicted since the store was opened.
func (s *Store) IndexMemory() (limit, used int64, loaded int, evicted int64) {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return memindex.Report(s.idx.budget, s.idx.ns)
}

// checkIndexMemory validates Options.IndexMemory.
func checkIndexMemory(n int64) error {
	if n < 0 {
		return mnemo.Errorf(mnemo.EINVALID, "sqlite: index memory bound %d is negative", n)
	}
	return nil
}
