package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func hasFTS(t *testing.T, s *Store) bool {
	t.Helper()
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'records_fts%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// TestFTSOnDemand: a store's writes maintain no FTS5 table until one is
// asked for; FloorQuery builds it from the rows already written, later
// writes, edits and purges keep it current, DropFTS takes it away, and a
// store opened with FTSKeyword has it from the start.
func TestFTSOnDemand(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fts.db")
	s := openTest(t, path, Options{})
	now := time.Now()
	if _, err := s.Insert(ctx, []*mnemo.Record{textRecord("f", "a", "heron nesting report", now),
		textRecord("f", "b", "otter habitat survey", now)}, "", ""); err != nil {
		t.Fatal(err)
	}
	if hasFTS(t, s) {
		t.Fatal("a new store maintains an FTS5 table")
	}
	hits, err := s.FloorQuery(ctx, "f", "otter", 5)
	if err != nil || len(hits) != 1 || hits[0].ID != "b" {
		t.Fatalf("floor query on rows written before the table: %v %v", hits, err)
	}
	if _, err := s.Insert(ctx, []*mnemo.Record{textRecord("f", "c", "otter cubs seen at dawn", now)}, "", ""); err != nil {
		t.Fatal(err)
	}
	if hits, err := s.FloorQuery(ctx, "f", "otter", 5); err != nil || len(hits) != 2 {
		t.Fatalf("a write after the build is not in the table: %v %v", hits, err)
	}
	if err := s.DropFTS(ctx); err != nil || hasFTS(t, s) {
		t.Fatalf("drop: %v, table left: %v", err, hasFTS(t, s))
	}
	if _, err := s.Insert(ctx, []*mnemo.Record{textRecord("f", "d", "otter tracks by the weir", now)}, "", ""); err != nil {
		t.Fatalf("a write after the drop: %v", err)
	}
	if hits, err := s.FloorQuery(ctx, "f", "otter", 5); err != nil || len(hits) != 3 {
		t.Fatalf("the table built again: %v %v", hits, err)
	}
	s.Close()
	fts := openTest(t, filepath.Join(t.TempDir(), "fts-keyword.db"), Options{FTSKeyword: true})
	if !hasFTS(t, fts) {
		t.Fatal("a store opened with FTSKeyword has no FTS5 table")
	}
}
