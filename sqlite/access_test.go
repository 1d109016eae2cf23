package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestAccessCountersTable checks that Touch counts in the access table
// without rewriting the record's row, that reads add the counters a record
// was written or imported with, and that a purged record's counters go
// with it, so a record that later gets its rowid starts from zero.
func TestAccessCountersTable(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "a.db"), Options{})
	now := time.Now().UTC().Truncate(time.Millisecond)
	sc := mnemo.Scope{Namespace: "n", Clearance: mnemo.MaxAccessLevel}
	imported := now.Add(-time.Hour)
	a := textRecord("n", "a", "kept record", now)
	a.AccessCount, a.LastAccessedAt = 3, &imported
	longAgo := now.Add(-48 * time.Hour)
	gone := textRecord("n", "gone", "forgotten record", now)
	gone.DeletedAt = &longAgo
	if _, err := s.Insert(ctx, []*mnemo.Record{a, gone}, "create", "test"); err != nil {
		t.Fatal(err)
	}
	rowOf := func(id string) (rowid, count int64) {
		t.Helper()
		if err := s.rdb.QueryRowContext(ctx, `SELECT rowid, access_count FROM records WHERE namespace = 'n' AND id = ?`, id).Scan(&rowid, &count); err != nil {
			t.Fatal(err)
		}
		return rowid, count
	}
	_, before := rowOf("a")
	for _, at := range []time.Time{now, now.Add(-2 * time.Hour)} {
		if err := s.Touch(ctx, "n", []string{"a", "a", "gone", "missing"}, at); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, sc, "a")
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessCount != 7 || got.LastAccessedAt == nil || !got.LastAccessedAt.Equal(now) {
		t.Errorf("after touches: count %d, last %v; want 7 and %v", got.AccessCount, got.LastAccessedAt, now)
	}
	if _, after := rowOf("a"); after != before {
		t.Errorf("Touch rewrote the record's row: access_count %d -> %d", before, after)
	}
	// An edit writes back the counters it read: they stay what they were,
	// not the access table's counted twice; touches after it add to them.
	got.Text = "kept record, edited"
	if err := s.Update(ctx, got, "edit", "test"); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, "n", []string{"a"}, now); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Get(ctx, sc, "a"); err != nil || got.AccessCount != 8 || !got.LastAccessedAt.Equal(now) {
		t.Errorf("after an edit and a touch: count %d, last %v (%v); want 8 and %v", got.AccessCount, got.LastAccessedAt, err, now)
	}
	goneRow, _ := rowOf("gone")
	if n, err := s.Purge(ctx, sc, now.Add(-24*time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	var left int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM access WHERE rid = ?`, goneRow).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the purged record's counters: %d rows (%v)", left, err)
	}
	fresh := textRecord("n", "fresh", "written after the purge", now)
	if _, err := s.Insert(ctx, []*mnemo.Record{fresh}, "create", "test"); err != nil {
		t.Fatal(err)
	}
	if row, _ := rowOf("fresh"); row != goneRow {
		t.Fatalf("the new record has rowid %d, not the purged one's %d: the test proves nothing", row, goneRow)
	}
	if got, err := s.Get(ctx, sc, "fresh"); err != nil || got.AccessCount != 0 || got.LastAccessedAt != nil {
		t.Errorf("a record on a purged record's rowid: count %d, last %v (%v)", got.AccessCount, got.LastAccessedAt, err)
	}
}
