package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestGetManyByRowKeys checks that the rows GetMany and the exact
// rescoring read by the row keys of the namespace index are looked up by
// rowid even for hundreds of keys (without the +namespace, SQLite walks
// an index of the whole namespace instead), and that they are the records
// asked for: of the namespace and clearance of the scope only, the same
// whether read from the database or from the record cache.
func TestGetManyByRowKeys(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "m.db"), Options{})
	now := time.Now()
	var recs []*mnemo.Record
	for _, ns := range []string{"a", "b"} {
		for i := range 600 {
			r := textRecord(ns, fmt.Sprintf("%s%04d", ns, i), fmt.Sprintf("note %d of %s", i, ns), now)
			r.Thread = fmt.Sprintf("t%d", i%7)
			r.AccessLevel = i % 3
			recs = append(recs, r)
		}
	}
	if _, err := s.Insert(ctx, recs, "create", "test"); err != nil {
		t.Fatal(err)
	}
	plan := queryPlan(t, s.rdb, rowsSQL(300), make([]any, 302)...)
	// The rows by their key, and each row's access counters by theirs.
	if len(plan) == 0 || !strings.Contains(plan[0], "SEARCH records USING INTEGER PRIMARY KEY") {
		t.Fatalf("rows by key: plan %q, want a search by rowid", plan)
	}
	for _, p := range plan[1:] {
		if !strings.Contains(p, "CORRELATED SCALAR SUBQUERY") && !strings.Contains(p, "SEARCH access USING INTEGER PRIMARY KEY") {
			t.Fatalf("rows by key: plan %q, want the access counters by key", plan)
		}
	}
	sc := mnemo.Scope{Namespace: "a", Clearance: 1}
	var ids []string
	for i := range 600 {
		ids = append(ids, fmt.Sprintf("a%04d", i), fmt.Sprintf("b%04d", i))
	}
	check := func(round string) {
		got, err := s.GetMany(ctx, sc, ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 400 {
			t.Fatalf("%s: %d records, want the 400 of namespace a at clearance 1", round, len(got))
		}
		for _, r := range got {
			var i int
			if _, err := fmt.Sscanf(r.ID, "a%04d", &i); err != nil || r.Namespace != "a" || r.AccessLevel != i%3 || r.AccessLevel > 1 ||
				r.Text != fmt.Sprintf("note %d of a", i) {
				t.Fatalf("%s: record %s (namespace %q, level %d, text %q)", round, r.ID, r.Namespace, r.AccessLevel, r.Text)
			}
		}
	}
	check("from the database")
	check("from the cache")
}

// queryPlan returns the details of SQLite's plan for query, one a step.
func queryPlan(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestConnectionCaches checks the page caches each kind of connection is
// opened with: every reader's small (a commit empties it; see
// readerCacheKiB), the writer's large. Several readers are held at once,
// so that the check is not of one pooled connection only.
func TestConnectionCaches(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "m.db"), Options{})
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 3 {
		c, err := s.rdb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var n int
		if err := c.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != -readerCacheKiB {
			t.Errorf("reader %d: cache_size %d, want %d", len(conns), n, -readerCacheKiB)
		}
	}
	var n int
	if err := s.wdb.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != -writerCacheKiB {
		t.Errorf("writer: cache_size %d, want %d", n, -writerCacheKiB)
	}
}
