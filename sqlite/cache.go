package sqlite

import (
	"container/list"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// recordCache keeps decoded records for Get and GetMany, least recently
// used first out, within a byte budget.
//
// Validity: an item holds the record as of one row version, the row's seq.
// Every write but Touch bumps the row's seq, and the namespace index
// learns the new seq on its next refresh, which Get and GetMany run first;
// an item is served only while its seq equals the index entry's. So a
// change by this Store or by another process invalidates exactly the rows
// it touched, and a record read from an older snapshot than the index can
// never be served. The cache is only consulted for namespaces whose index
// is loaded. Cached records are never handed out: callers get deep copies
// (the engine edits the records it gets before Update), except the
// embedding, which callers replace but never write into.
//
// Access counters are the exception: Touch runs after every retrieval, and
// bumping seq for it would invalidate exactly the records that are read
// most. Touch through this Store adds its counts to the cached items
// (see touch); counts added by another process show up when the record
// next changes or is read afresh after leaving the cache.
type recordCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	items map[mnemo.RecordKey]*list.Element // -> *cacheItem
	lru   list.List                         // front = most recently used
}

type cacheItem struct {
	key  mnemo.RecordKey
	seq  int64
	rec  *mnemo.Record // never mutated
	size int64
	// Touches since rec was read: added to the copies handed out.
	hits int64
	last time.Time
}

func newRecordCache(maxBytes int64) *recordCache {
	return &recordCache{max: maxBytes, items: make(map[mnemo.RecordKey]*list.Element)}
}

// get returns a copy of the cached record id of namespace ns at version
// seq, or nil.
func (c *recordCache) get(ns, id string, seq int64) *mnemo.Record {
	c.mu.Lock()
	el, ok := c.items[mnemo.RecordKey{Namespace: ns, ID: id}]
	if !ok {
		c.mu.Unlock()
		return nil
	}
	it := el.Value.(*cacheItem)
	if it.seq != seq {
		c.mu.Unlock()
		return nil
	}
	c.lru.MoveToFront(el)
	r, hits, last := it.rec, it.hits, it.last
	c.mu.Unlock()
	out := cloneRecord(r)
	if hits > 0 {
		out.AccessCount += hits
		if out.LastAccessedAt == nil || last.After(*out.LastAccessedAt) {
			out.LastAccessedAt = &last
		}
	}
	return out
}

// vector returns the vector of the cached record id of namespace ns at
// version seq (read-only, shared), or nil.
func (c *recordCache) vector(ns, id string, seq int64) []float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[mnemo.RecordKey{Namespace: ns, ID: id}]
	if !ok || el.Value.(*cacheItem).seq != seq {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheItem).rec.Embedding
}

// touch adds one access at time at to each cached record of ids (an id
// listed twice counts twice), as Touch did to the rows.
func (c *recordCache) touch(ns string, ids []string, at time.Time) {
	at = at.UTC()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if el, ok := c.items[mnemo.RecordKey{Namespace: ns, ID: id}]; ok {
			it := el.Value.(*cacheItem)
			it.hits++
			if at.After(it.last) {
				it.last = at
			}
		}
	}
}

// put stores a copy of r as version seq, replacing an older version.
func (c *recordCache) put(r *mnemo.Record, seq int64) {
	size := recordSize(r)
	if size > c.max/4 {
		return
	}
	key := mnemo.RecordKey{Namespace: r.Namespace, ID: r.ID}
	it := &cacheItem{key: key, seq: seq, rec: cloneRecord(r), size: size}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		old := el.Value.(*cacheItem)
		if old.seq > seq { // keep the newer version
			return
		}
		c.size += size - old.size
		el.Value = it
		c.lru.MoveToFront(el)
	} else {
		c.items[key] = c.lru.PushFront(it)
		c.size += size
	}
	for c.size > c.max {
		el := c.lru.Back()
		old := el.Value.(*cacheItem)
		c.lru.Remove(el)
		delete(c.items, old.key)
		c.size -= old.size
	}
}

// len returns the number of cached records.
func (c *recordCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// recordSize approximates the memory a cached record holds.
func recordSize(r *mnemo.Record) int64 {
	n := 320 + len(r.ID) + len(r.Namespace) + len(r.Scope) + len(r.Text) + len(r.Source) +
		len(r.Component) + len(r.Mission) + len(r.Thread) + len(r.SupersededBy) + 4*len(r.Embedding)
	for _, s := range r.Tags {
		n += 16 + len(s)
	}
	for _, s := range r.Provenance {
		n += 16 + len(s)
	}
	if d := r.Decision; d != nil {
		n += 160 + len(d.Title) + len(d.Context) + len(d.Decision) + len(d.Consequences) + len(d.Principle) + len(d.Status)
		for _, a := range d.Alternatives {
			n += 32 + len(a.Option) + len(a.Reason)
		}
		for _, s := range d.Constrains {
			n += 16 + len(s)
		}
		for _, s := range d.DependsOn {
			n += 16 + len(s)
		}
	}
	if c := r.Correction; c != nil {
		n += 112 + len(c.Class) + len(c.Category) + len(c.Component) + len(c.Outcome) + len(c.Summary) + len(c.RetrievalID)
	}
	return int64(n)
}

// cloneRecord returns a copy of r that shares no mutable memory with it.
func cloneRecord(r *mnemo.Record) *mnemo.Record {
	c := *r
	c.Provenance = slices.Clone(r.Provenance)
	c.Tags = slices.Clone(r.Tags)
	c.Embedding = r.Embedding // read-only by contract (see mnemo.Record): shared, not copied
	if r.Decision != nil {
		d := *r.Decision
		d.Alternatives = slices.Clone(d.Alternatives)
		d.Constrains = slices.Clone(d.Constrains)
		d.DependsOn = slices.Clone(d.DependsOn)
		c.Decision = &d
	}
	if r.Correction != nil {
		x := *r.Correction
		c.Correction = &x
	}
	c.LastAccessedAt = cloneTime(r.LastAccessedAt)
	c.ValidTo = cloneTime(r.ValidTo)
	c.DeletedAt = cloneTime(r.DeletedAt)
	return &c
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	x := *t
	return &x
}
