package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadQueryDoesNotSort: loading a namespace from its rows reads them in
// rowid order through the primary key, without putting them through a
// temporary B-tree (the rows carry their vectors: sorting them was half
// of a one-shot command's CPU).
func TestLoadQueryDoesNotSort(t *testing.T) {
	s, err := Open(context.Background(), Options{Path: filepath.Join(t.TempDir(), "plan.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := strings.Join(queryPlan(t, s.rdb, loadQuery, "ns"), "\n")
	if strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, "INTEGER PRIMARY KEY") {
		t.Errorf("the load query sorts its rows or does not read them by rowid:\n%s", p)
	}
}
