package memindex

import (
	"fmt"
	"sync"
)

// Loaded is a store's set of loaded namespace indexes as its searches read
// them: the indexes m, kept current through the store's change stamp,
// under mu (searches hold the read lock; refreshing, loading and evicting
// take the write lock), with refreshing admitting one refresh at a time
// and the bound b (nil: none). The stores' fields are named here, not
// kept here: each store keeps more beside them under the same lock.
type Loaded[K comparable] struct {
	Mu         *sync.RWMutex
	Refreshing *sync.Mutex
	M          map[string]*Namespace[K]
	Budget     *Budget
}

// Read brings the index of namespace ns up to date and calls fn with it
// under the read lock, released when fn returns (or panics). fn must not
// keep the namespace, nor anything it hands out by reference, past its
// return: a refresh may change it and an eviction drop it as soon as the
// lock is released.
//
// current, called under the read lock, reports whether the loaded indexes
// reflect the store as this read must see it (strict: as of the change
// stamp the read saw; else the store may also accept, say, its own writes
// that are being published by their writers). refresh brings them up to
// date and loads ns, taking the write lock itself.
func (l Loaded[K]) Read(ns string, current func(strict bool) bool, refresh func() error, fn func(*Namespace[K]) error) error {
	n, err := l.acquire(ns, current, refresh)
	if err != nil {
		return err
	}
	defer l.Mu.RUnlock()
	return fn(n)
}

// acquire is Read's first half: it returns the up-to-date index of ns
// with the read lock held, which Read releases.
func (l Loaded[K]) acquire(ns string, current func(strict bool) bool, refresh func() error) (*Namespace[K], error) {
	l.Mu.RLock()
	if n, ok := l.M[ns]; ok && current(false) {
		l.Budget.Use(ns)
		return n, nil
	}
	l.Mu.RUnlock()
	// One refresh at a time, and readers that queued behind it find the
	// index fresh under the read lock: taking the write lock waits for
	// every search in flight and holds up every search after it, so after
	// a write it must be taken once, not by every reader that saw it.
	l.Refreshing.Lock()
	l.Mu.RLock()
	_, ok := l.M[ns]
	stale := !ok || !current(true)
	l.Mu.RUnlock()
	var err error
	if stale {
		err = refresh()
	}
	if err != nil {
		l.Refreshing.Unlock()
		return nil, err
	}
	// The read lock is taken before the next refresh may run: a refresh
	// may evict namespaces, never the one it loads, and this one must
	// still be there when its reader gets it.
	l.Mu.RLock()
	l.Refreshing.Unlock()
	n, ok := l.M[ns]
	if !ok { // cannot happen (see above), but do not panic
		l.Mu.RUnlock()
		return nil, fmt.Errorf("index of namespace %q vanished", ns)
	}
	l.Budget.Use(ns)
	return n, nil
}

// Warm loads namespace ns ahead of its first search (load is the store's
// first read of it) unless the bound is full: once the loaded namespaces
// fill it no namespace is warmed, so the ones read first are loaded then,
// and a warm-up that had to evict ends warming (more would only evict what
// was warmed before). Without a bound it just loads.
func (l Loaded[K]) Warm(ns string, load func() error) error {
	b := l.Budget
	if b == nil {
		return load()
	}
	l.Mu.Lock()
	_, loaded := l.M[ns]
	full := !loaded && (b.warmFull || b.Full(SizeOf(l.M)))
	l.Mu.Unlock()
	if full {
		return nil
	}
	evicted := b.Evictions.Load()
	if err := load(); err != nil {
		return err
	}
	if b.Evictions.Load() > evicted {
		l.Mu.Lock()
		b.warmFull = true
		l.Mu.Unlock()
	}
	return nil
}
