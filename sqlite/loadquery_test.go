package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestLoadQueryDoesNotSort: loading a namespace from its rows reads them in
// rowid order through the primary key, without putting them through a
// temporary B-tree (the rows carry their vectors: sorting them was half
// of a one-shot command's CPU).
func TestLoadQueryDoesNotSort(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "plan.db"))
	defer s.Close()
	rows, err := s.DB().QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+sqlite.LoadQuery, "ns")
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
	p := strings.Join(plan, "\n")
	if strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, "INTEGER PRIMARY KEY") {
		t.Errorf("the load query sorts its rows or does not read them by rowid:\n%s", p)
	}
}
