package memindex

import (
	"sort"
	"sync/atomic"
)

// Budget bounds the memory of a store's loaded namespaces: it keeps each
// one's estimated size (MemoryBytes, plus what the store adds) and when it
// was last used, and names the least recently used ones to evict once
// their sum passes the limit.
//
// It follows the store's locking: Use runs under the read lock (it only
// stores an atomic stamp); every other method under the write lock, which
// is also the only lock under which a store may drop a namespace, so a
// namespace is never evicted while a search holds it. A nil *Budget is an
// unbounded one: every method does nothing.
type Budget struct {
	limit int64
	clock atomic.Int64
	ns    map[string]*budgetUse
	// check is set when a namespace was loaded or changed, or an estimate
	// is not settled, since the last check: Evict checks the sum then.
	check bool
	// warmFull is set when a warm-up had to evict: Warm loads no more.
	warmFull bool
	// Evictions counts the namespaces evicted so far.
	Evictions atomic.Int64
}

type budgetUse struct {
	last  atomic.Int64
	size  int64 // estimate, valid unless dirty
	extra int64 // bytes the store adds to MemoryBytes
	dirty bool
}

// A SizeFunc returns the estimated bytes of loaded namespace ns (-1 when
// the store no longer holds it) and whether that estimate is settled: a
// namespace whose sign sketches are being built, or may be built by the
// store's next step, is estimated again at every check until it is.
type SizeFunc func(ns string) (bytes int64, settled bool)

// NewBudget returns a budget of limit bytes, nil (unbounded) when limit is
// not positive.
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		return nil
	}
	return &Budget{limit: limit, ns: map[string]*budgetUse{}}
}

// Limit returns the bound in bytes (0: none).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Use notes that namespace ns was just used (under the read lock).
func (b *Budget) Use(ns string) {
	if b == nil {
		return
	}
	if u := b.ns[ns]; u != nil {
		u.last.Store(b.clock.Add(1))
	}
}

// Loaded registers namespace ns, just loaded, as the most recently used;
// extra is what the store holds for it beyond its MemoryBytes (say the
// parts of a snapshot it was read from that it does not point into).
func (b *Budget) Loaded(ns string, extra int64) {
	if b == nil {
		return
	}
	u := &budgetUse{extra: extra, dirty: true}
	u.last.Store(b.clock.Add(1))
	b.ns[ns] = u
	b.check = true
}

// Changed notes that a row of namespace ns changed: its size is estimated
// again, and the sum checked, at the next Evict. Estimating is cheap
// (MemoryBytes reads a sample of entries and counters kept by every
// write), so the sum is checked after every batch of rows a store
// applies: growth, an array's capacity doubling on its first write
// included, is accounted as soon as the store's next refresh ends.
func (b *Budget) Changed(ns string) {
	if b == nil {
		return
	}
	if u := b.ns[ns]; u != nil {
		u.dirty = true
		b.check = true
	}
}

// Forget drops namespace ns from the accounting (the store dropped it).
func (b *Budget) Forget(ns string) {
	if b == nil {
		return
	}
	delete(b.ns, ns)
}

// Used returns the estimated bytes of the loaded namespaces, estimating
// again those that changed or whose estimate was not settled; size
// returns the MemoryBytes of a namespace, or -1 when the store no longer
// holds it (it is then forgotten).
func (b *Budget) Used(size SizeFunc) int64 {
	if b == nil {
		return 0
	}
	var sum int64
	for ns, u := range b.ns {
		if u.dirty {
			s, settled := size(ns)
			if s < 0 {
				delete(b.ns, ns)
				continue
			}
			u.size, u.dirty = s+u.extra, !settled
			if !settled {
				b.check = true
			}
		}
		sum += u.size
	}
	return sum
}

// Full reports whether the loaded namespaces use the whole budget (a
// warm-up then loads no more).
func (b *Budget) Full(size SizeFunc) bool {
	return b != nil && b.Used(size) >= b.limit
}

// Evict returns, least recently used first, the namespaces to drop so that
// the rest fit the limit, never keep (the namespace being loaded or used)
// and forgets them; the caller drops them while it still holds the write
// lock. It checks the sum only when a namespace was loaded or changed, or
// an estimate was not settled, since the last check.
func (b *Budget) Evict(keep string, size SizeFunc) []string {
	if b == nil || !b.check {
		return nil
	}
	b.check = false
	used := b.Used(size)
	if used <= b.limit {
		return nil
	}
	type cand struct {
		ns   string
		last int64
		size int64
	}
	var cs []cand
	for ns, u := range b.ns {
		if ns != keep {
			cs = append(cs, cand{ns, u.last.Load(), u.size})
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].last < cs[j].last })
	var out []string
	for _, c := range cs {
		if used <= b.limit {
			break
		}
		out = append(out, c.ns)
		used -= c.size
		delete(b.ns, c.ns)
	}
	b.Evictions.Add(int64(len(out)))
	return out
}

// SizeOf returns the size function Budget takes for the loaded namespaces
// m: a namespace's MemoryBytes, -1 when it is not loaded; the estimate is
// settled unless the namespace's sketches are being built or may be built
// next (see Namespace.Sketch). Call it, and what it returns, under the
// store's write lock.
func SizeOf[K comparable](m map[string]*Namespace[K]) SizeFunc {
	return func(ns string) (int64, bool) {
		if n := m[ns]; n != nil {
			return n.MemoryBytes(), n.build == nil && (n.sketching || n.Len() < sketchAsyncMin)
		}
		return -1, true
	}
}

// EvictFrom drops from m, under the store's write lock, the namespaces
// b.Evict chooses (never keep), marks each Evicted and hands it to
// dropped (nil: nothing more to do).
func EvictFrom[K comparable](b *Budget, m map[string]*Namespace[K], keep string, dropped func(ns string, n *Namespace[K])) {
	for _, ns := range b.Evict(keep, SizeOf(m)) {
		n := m[ns]
		if n == nil {
			continue
		}
		delete(m, ns)
		n.Evicted()
		if dropped != nil {
			dropped(ns, n)
		}
	}
}

// Report is what a store says of its in-memory indexes m bounded by b
// (nil: no bound): the bound (0: none), their estimated bytes, how many
// namespaces are loaded and how many were evicted. Call it under the
// store's lock.
func Report[K comparable](b *Budget, m map[string]*Namespace[K]) (limit, used int64, loaded int, evicted int64) {
	if b == nil {
		for _, n := range m {
			used += n.MemoryBytes()
		}
		return 0, used, len(m), 0
	}
	return b.Limit(), b.Used(SizeOf(m)), len(m), b.Evictions.Load()
}
