package sqlite

import (
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
	"github.com/mnemo-dev/mnemo/memindex"
)

// indexPrep is the index's part of a write computed while the write runs:
// the memindex.Prepared of each record the write inserts into a loaded
// namespace, made in another goroutine while SQLite inserts the rows, and
// used by the write's publish after the commit for the rows whose vector
// and text are those it was made from (any other row is applied as read).
type indexPrep struct {
	done chan struct{}
	by   map[mnemo.RecordKey]*memindex.Prepared
}

// prepareIndex starts the indexPrep of recs, or returns nil when none of
// them goes to a loaded namespace (the namespace's first search loads it
// whole).
func (s *Store) prepareIndex(recs []*mnemo.Record, ready func(n int) error) *indexPrep {
	s.idx.mu.RLock()
	var todo []int
	for i, r := range recs {
		if _, ok := s.idx.ns[r.Namespace]; ok {
			todo = append(todo, i)
		}
	}
	s.idx.mu.RUnlock()
	if len(todo) < minIndexPrep {
		return nil
	}
	p := &indexPrep{done: make(chan struct{}), by: make(map[mnemo.RecordKey]*memindex.Prepared, len(todo))}
	go func() {
		defer close(p.done)
		waited := 0 // records known complete
		for k, i := range todo {
			// Records still being completed (mnemo.WriteBatch.Ready) are
			// waited for a part at a time; when they fail, so does the write.
			if ready != nil && (k == 0 || i >= waited) {
				waited = min(i+insertPart, len(recs))
				if ready(waited) != nil {
					return
				}
			}
			r := recs[i]
			p.by[mnemo.RecordKey{Namespace: r.Namespace, ID: r.ID}] = memindex.Prepare(storesql.EncodeVector(r.Embedding), []byte(r.SearchText()))
		}
	}()
	return p
}

// minIndexPrep is the fewest records worth preparing in another
// goroutine: for fewer, the goroutine costs about what it saves.
const minIndexPrep = 16

// get returns the Prepared of the row of record id in namespace ns when it
// was made from exactly emb and text, after waiting for the preparation;
// p may be nil.
func (p *indexPrep) get(ns, id string, emb, text []byte) *memindex.Prepared {
	if p == nil {
		return nil
	}
	<-p.done
	if pr := p.by[mnemo.RecordKey{Namespace: ns, ID: id}]; pr != nil && pr.Matches(emb, text) {
		return pr
	}
	return nil
}
