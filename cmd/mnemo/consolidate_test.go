package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestConsolidateCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	mustCLI(t, db, "", "remember", "--no-dedup", "--source", "observed", "the relay antenna must be greased every monday morning")
	mustCLI(t, db, "", "remember", "--no-dedup", "--source", "user", "relay antenna greased every monday morning before the shift")
	mustCLI(t, db, "", "--namespace", "other", "remember", "--no-dedup", "the relay antenna must be greased every monday morning")

	out := mustCLI(t, db, "", "consolidate", "--dry-run")
	if !strings.HasPrefix(out, "would merge 1 of 2 records in default") {
		t.Fatalf("dry run: %q", out)
	}
	var res struct {
		Pairs []struct{ Kept, Merged string }
	}
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "--json", "consolidate")), &res); err != nil || len(res.Pairs) != 1 {
		t.Fatalf("consolidate --json: %+v %v", res, err)
	}
	if out := mustCLI(t, db, "", "history", res.Pairs[0].Merged); !strings.Contains(out, "consolidate") {
		t.Fatalf("history of the merged record: %q", out)
	}
	if out := mustCLI(t, db, "", "consolidate"); !strings.HasPrefix(out, "merged 0 of 1 records") {
		t.Fatalf("second run: %q", out)
	}
	if out := mustCLI(t, db, "", "--namespace", "other", "consolidate"); !strings.HasPrefix(out, "merged 0 of 1 records in other") {
		t.Fatalf("other namespace: %q", out)
	}
	mustCLI(t, db, "", "restore", res.Pairs[0].Merged)
	if out := mustCLI(t, db, "", "consolidate", "--help"); !strings.Contains(out, "usage: mnemo consolidate [--dry-run]") || !strings.Contains(out, "-dry-run") {
		t.Fatalf("help: %q", out)
	}
	if _, stderr, code := cli(t, db, "", "consolidate", "extra"); code == 0 || !strings.Contains(stderr, "no arguments") {
		t.Fatalf("an argument: %d %q", code, stderr)
	}
}
