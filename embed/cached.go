package embed

import (
	"container/list"
	"context"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// DefaultCacheSize is the number of texts NewCached keeps when given none.
const DefaultCacheSize = 1024

// Cached is an embedder that remembers the vectors of the most recently
// embedded texts (LRU), so repeated queries skip the wrapped embedder. It is
// safe for concurrent use.
type Cached struct {
	e    mnemo.Embedder
	size int

	mu    sync.Mutex
	ll    *list.List // front is most recent; values are *cacheEntry
	items map[string]*list.Element
}

type cacheEntry struct {
	text string
	vec  []float32
}

// NewCached wraps e with an LRU cache of up to size texts (DefaultCacheSize
// when size <= 0).
func NewCached(e mnemo.Embedder, size int) mnemo.Embedder {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cached{e: e, size: size, ll: list.New(), items: make(map[string]*list.Element)}
}

// Info returns the wrapped embedder's info.
func (c *Cached) Info() mnemo.EmbedderInfo { return c.e.Info() }

// Local reports whether the wrapped embedder is local
// (mnemo.LocalEmbedder).
func (c *Cached) Local() bool { return mnemo.IsLocal(c.e) }

// Uncached returns the wrapped embedder, which the records of a write are
// embedded with: their texts, each seen once, would neither be found in
// the cache nor leave it anything but evicted query vectors.
func (c *Cached) Uncached() mnemo.Embedder { return c.e }

// Version is the wrapped embedder's version of its rules, "" when it
// names none (see Hash.Version).
func (c *Cached) Version() string {
	if v, ok := c.e.(interface{ Version() string }); ok {
		return v.Version()
	}
	return ""
}

// Embed returns cached vectors where it can and embeds the other texts
// (each distinct text once) with the wrapped embedder in one call. The
// returned vectors are copies: callers may modify them. Errors are the
// wrapped embedder's.
func (c *Cached) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	missAt := map[string][]int{}
	c.mu.Lock()
	for i, t := range texts {
		if el, ok := c.items[t]; ok {
			c.ll.MoveToFront(el)
			out[i] = clone(el.Value.(*cacheEntry).vec)
			continue
		}
		if _, ok := missAt[t]; !ok {
			miss = append(miss, t)
		}
		missAt[t] = append(missAt[t], i)
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vecs, err := c.e.Embed(ctx, miss)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(miss) {
		return nil, mnemo.Errorf(mnemo.EINTERNAL, "embedder %s returned %d vectors for %d texts", c.e.Info().Name, len(vecs), len(miss))
	}
	c.mu.Lock()
	for k, t := range miss {
		v := clone(vecs[k])
		c.put(t, v)
		for _, i := range missAt[t] {
			out[i] = clone(v)
		}
	}
	c.mu.Unlock()
	return out, nil
}

// put stores a vector; c.mu must be held.
func (c *Cached) put(text string, v []float32) {
	if el, ok := c.items[text]; ok {
		el.Value.(*cacheEntry).vec = v
		c.ll.MoveToFront(el)
		return
	}
	c.items[text] = c.ll.PushFront(&cacheEntry{text: text, vec: v})
	for c.ll.Len() > c.size {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).text)
	}
}

// Len returns the number of cached texts.
func (c *Cached) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

func clone(v []float32) []float32 {
	return append([]float32(nil), v...)
}

// EmbedWeighted passes through to the wrapped embedder when it weighs query
// words; it is not cached, since the weights change with the data.
func (c *Cached) EmbedWeighted(ctx context.Context, text string, weight func(stem string) float64) ([]float32, error) {
	if w, ok := c.e.(interface {
		EmbedWeighted(context.Context, string, func(string) float64) ([]float32, error)
	}); ok {
		return w.EmbedWeighted(ctx, text, weight)
	}
	vecs, err := c.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}
