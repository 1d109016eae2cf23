package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/storetest"
	"github.com/oklog/ulid/v2"
)

var bg = context.Background()

func openAt(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(bg, sqlite.Options{Path: path})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		return openAt(t, filepath.Join(t.TempDir(), "sub", "mnemo.db"))
	}, mnemo.CapIDF, mnemo.CapTermIDF, mnemo.CapTermKeyword, mnemo.CapRefs, mnemo.CapWarm)
}

func newRecord(ns, text string, v []float32) *mnemo.Record {
	r := &mnemo.Record{ID: ulid.Make().String(), Namespace: ns, Kind: mnemo.KindFact, Text: text, Embedding: v}
	r.Normalize(testNow())
	return r
}

func TestOpenInvalid(t *testing.T) {
	if _, err := sqlite.Open(bg, sqlite.Options{}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("empty path: %v", err)
	}
}

func TestMigrationsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s := openAt(t, path)
	v1, err := s.SchemaVersion(bg)
	if err != nil || v1 < 1 {
		t.Fatalf("schema version = %d, %v", v1, err)
	}
	if _, err := s.Insert(bg, []*mnemo.Record{newRecord("m", "kept across reopen", nil)}, "", ""); err != nil {
		t.Fatal(err)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q", s.Path())
	}
	s.Close()
	for range 2 {
		s = openAt(t, path)
		v2, err := s.SchemaVersion(bg)
		if err != nil || v2 != v1 {
			t.Errorf("schema version after reopen = %d, %v; want %d", v2, err, v1)
		}
		if n, _ := s.Count(bg, "m"); n != 1 {
			t.Errorf("count after reopen = %d", n)
		}
		s.Close()
	}
}

// TestTwoStores checks that two Store instances on one file (as two
// processes would have) see each other's writes in Vector and Keyword, and
// can write concurrently. A cross-process test is left to the CLI tests.
func TestTwoStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.db")
	a, b := openAt(t, path), openAt(t, path)
	defer a.Close()
	defer b.Close()
	sc := mnemo.Scope{Namespace: "two"}
	v := []float32{1, 0, 0, 0}
	first := newRecord("two", "first heron", v)
	if _, err := a.Insert(bg, []*mnemo.Record{first}, "", ""); err != nil {
		t.Fatal(err)
	}
	// Warm b's index, then write through a and expect b to see it.
	if hits, err := b.Vector(bg, sc, v, mnemo.Filter{}, 10); err != nil || len(hits) != 1 {
		t.Fatalf("b sees %v, %v", hits, err)
	}
	second := newRecord("two", "second heron", []float32{0.9, 0.1, 0, 0})
	if _, err := a.Insert(bg, []*mnemo.Record{second}, "", ""); err != nil {
		t.Fatal(err)
	}
	hits, err := b.Vector(bg, sc, v, mnemo.Filter{}, 10)
	if err != nil || len(hits) != 2 {
		t.Fatalf("after a's insert b sees %v, %v", hits, err)
	}
	first.DeletedAt = &first.CreatedAt
	if err := a.Update(bg, first, "forget", ""); err != nil {
		t.Fatal(err)
	}
	hits, _ = b.Vector(bg, sc, v, mnemo.Filter{}, 10)
	if len(hits) != 1 || hits[0].ID != second.ID {
		t.Errorf("after a's forget b sees %v", hits)
	}
	if kw, _ := b.Keyword(bg, sc, "heron", mnemo.Filter{}, 10); len(kw) != 1 {
		t.Errorf("keyword through b sees %v", kw)
	}

	// Concurrent writers on both instances.
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i, s := range []*sqlite.Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				r := newRecord("two", fmt.Sprintf("writer %d record %d", i, j), []float32{0, 1, 0, 0})
				if _, err := s.Insert(bg, []*mnemo.Record{r}, "", ""); err != nil {
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
	for _, s := range []*sqlite.Store{a, b} {
		hits, _ := s.Vector(bg, sc, []float32{0, 1, 0, 0}, mnemo.Filter{}, 100)
		if len(hits) != 41 {
			t.Errorf("a store sees %d vectors, want 41", len(hits))
		}
	}
}

// TestFloorQuery checks the bare BM25 baseline.
func TestFloorQuery(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "f.db"))
	defer s.Close()
	recs := []*mnemo.Record{newRecord("f", "kestrel kestrel", nil), newRecord("f", "a kestrel and more words", nil),
		newRecord("g", "kestrel elsewhere", nil)}
	if _, err := s.Insert(bg, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	hits, err := s.FloorQuery(bg, "f", `"kestrel" NEAR(`, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != recs[0].ID || hits[0].Score <= hits[1].Score {
		t.Errorf("floor hits = %v", hits)
	}
}

func testNow() time.Time { return time.Now() }
