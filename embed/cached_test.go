package embed

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// counting wraps a real embedder and counts the texts it is asked for.
type counting struct {
	mnemo.Embedder
	texts atomic.Int64
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

func TestCached(t *testing.T) {
	inner := &counting{Embedder: NewHash(32)}
	c := NewCached(inner, 2)
	ctx := context.Background()
	if c.Info() != inner.Info() {
		t.Errorf("Info() = %+v", c.Info())
	}
	direct, _ := NewHash(32).Embed(ctx, []string{"alpha", "beta", "gamma"})

	got, err := c.Embed(ctx, []string{"alpha", "beta", "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if n := inner.texts.Load(); n != 2 {
		t.Errorf("inner embedded %d texts, want 2 (duplicates once)", n)
	}
	for i, want := range [][]float32{direct[0], direct[1], direct[0]} {
		if cosine(got[i], want) < 0.99999 {
			t.Errorf("vector %d differs from the wrapped embedder's", i)
		}
	}
	// Hits do not call the wrapped embedder; returned vectors are copies.
	got[0][0] = 42
	again, _ := c.Embed(ctx, []string{"alpha"})
	if n := inner.texts.Load(); n != 2 {
		t.Errorf("inner embedded %d texts after a hit, want 2", n)
	}
	if again[0][0] == 42 {
		t.Error("modifying a returned vector changed the cache")
	}
	// "gamma" evicts the least recently used entry, "beta".
	c.Embed(ctx, []string{"gamma"})
	if n := c.(*Cached).Len(); n != 2 {
		t.Errorf("Len() = %d, want 2", n)
	}
	c.Embed(ctx, []string{"alpha"})
	if n := inner.texts.Load(); n != 3 {
		t.Errorf("alpha was evicted: inner embedded %d texts, want 3", n)
	}
	c.Embed(ctx, []string{"beta"})
	if n := inner.texts.Load(); n != 4 {
		t.Errorf("beta was not evicted: inner embedded %d texts, want 4", n)
	}
	// Errors of the wrapped embedder pass through.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Embed(cctx, []string{"delta"}); err == nil {
		t.Error("no error from a cancelled wrapped embedder")
	}
}

func TestCachedConcurrent(t *testing.T) {
	c := NewCached(NewHash(16), 8)
	texts := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if _, err := c.Embed(context.Background(), []string{texts[(g+i)%len(texts)], texts[i%len(texts)]}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := c.(*Cached).Len(); n > 8 {
		t.Errorf("Len() = %d, over the size 8", n)
	}
}
