package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/storetest"
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
	}, mnemo.CapIDF, mnemo.CapTermIDF, mnemo.CapTermKeyword, mnemo.CapRecordTerms, mnemo.CapNextTurn, mnemo.CapRefs, mnemo.CapWarm, mnemo.CapRankFields)
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
	if _, err := s.Insert(bg, []*mnemo.Record{storetest.NewRecord("m", "kept across reopen", nil)}, "", ""); err != nil {
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

// TestTwoStores: two Store instances on one file, as two processes would
// have (a cross-process test is left to the CLI tests).
func TestTwoStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.db")
	a, b := openAt(t, path), openAt(t, path)
	defer a.Close()
	defer b.Close()
	storetest.TwoInstances(t, a, b)
}

func TestFloorQuery(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "f.db"))
	defer s.Close()
	storetest.Floor(t, s, s.FloorQuery)
}
