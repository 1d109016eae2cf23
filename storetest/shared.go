package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// NewRecord returns a live fact of namespace ns with a fresh id, the given
// text and vector, normalised now: what the stores' own tests write.
func NewRecord(ns, text string, v []float32) *mnemo.Record {
	r := &mnemo.Record{ID: newID(), Namespace: ns, Kind: mnemo.KindFact, Text: text, Embedding: v}
	r.Normalize(time.Now())
	return r
}

// TwoInstances checks that two instances of a store on one database (as two
// processes or machines have) see each other's writes in Vector and
// Keyword, and can write and search concurrently. The caller closes both.
func TwoInstances(t *testing.T, a, b mnemo.Store) {
	sc := mnemo.Scope{Namespace: "two"}
	v := []float32{1, 0, 0, 0}
	first := NewRecord("two", "first heron", v)
	if _, err := a.Insert(bg, []*mnemo.Record{first}, "", ""); err != nil {
		t.Fatal(err)
	}
	// b's index is loaded now; a's writes must reach it.
	if hits, err := b.Vector(bg, sc, v, mnemo.Filter{}, 10); err != nil || len(hits) != 1 {
		t.Fatalf("b sees %v, %v", hits, err)
	}
	second := NewRecord("two", "second heron", []float32{0.9, 0.1, 0, 0})
	if _, err := a.Insert(bg, []*mnemo.Record{second}, "", ""); err != nil {
		t.Fatal(err)
	}
	if hits, err := b.Vector(bg, sc, v, mnemo.Filter{}, 10); err != nil || len(hits) != 2 {
		t.Fatalf("after a's insert b sees %v, %v", hits, err)
	}
	first.DeletedAt = &first.CreatedAt
	if err := a.Update(bg, first, "forget", ""); err != nil {
		t.Fatal(err)
	}
	if hits, _ := b.Vector(bg, sc, v, mnemo.Filter{}, 10); len(hits) != 1 || hits[0].ID != second.ID {
		t.Errorf("after a's forget b sees %v", hits)
	}
	if kw, _ := b.Keyword(bg, sc, "heron", mnemo.Filter{}, 10); len(kw) != 1 {
		t.Errorf("keyword through b sees %v", kw)
	}
	// Concurrent writers and readers on both instances.
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for i, s := range []mnemo.Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				r := NewRecord("two", fmt.Sprintf("writer %d record %d", i, j), []float32{0, 1, 0, 0})
				if _, err := s.Insert(bg, []*mnemo.Record{r}, "", ""); err != nil {
					errs <- err
				}
				if _, err := s.Vector(bg, sc, []float32{0, 1, 0, 0}, mnemo.Filter{}, 5); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, s := range []mnemo.Store{a, b} {
		if hits, _ := s.Vector(bg, sc, []float32{0, 1, 0, 0}, mnemo.Filter{}, 100); len(hits) != 41 {
			t.Errorf("a store sees %d vectors, want 41", len(hits))
		}
	}
}

// Floor checks a store's bare keyword baseline (FloorQuery, what the
// benchmarks compare against): it ranks by term frequency within the
// namespace and takes any text as a query, query syntax included.
func Floor(t *testing.T, s mnemo.Store, floor func(ctx context.Context, ns, query string, n int) ([]mnemo.Hit, error)) {
	recs := []*mnemo.Record{NewRecord("f", "kestrel kestrel", nil), NewRecord("f", "a kestrel and more words", nil),
		NewRecord("g", "kestrel elsewhere", nil)}
	if _, err := s.Insert(bg, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	hits, err := floor(bg, "f", `"kestrel" NEAR(`, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != recs[0].ID || hits[0].Score <= hits[1].Score {
		t.Errorf("floor hits = %v", hits)
	}
}
