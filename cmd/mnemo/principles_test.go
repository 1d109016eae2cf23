package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mnemo principles lists each principle with the decisions that apply it;
// a decision citing an unknown principle is refused.
func TestPrinciplesCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	id := func(out string) string {
		var rec map[string]any
		if err := json.Unmarshal([]byte(out), &rec); err != nil {
			t.Fatal(err)
		}
		return rec["id"].(string)
	}
	p := id(mustCLI(t, db, "", "--json", "remember", "--kind", "principle", "Prefer boring technology."))
	d := id(mustCLI(t, db, "", "--json", "remember", "--kind", "decision", "--body", `{"title":"Embedded store","principles":["`+p+`"]}`,
		"Use SQLite as the embedded store."))
	out := mustCLI(t, db, "", "principles")
	if !strings.Contains(out, p+"  Prefer boring technology.  (1 decisions)") || !strings.Contains(out, d+"  Embedded store  (cites by id)") {
		t.Errorf("principles:\n%s", out)
	}
	if _, errs, code := cli(t, db, "", "remember", "--kind", "decision", "--body", `{"principles":["01NOSUCHPRINCIPLE"]}`, "x"); code == 0 ||
		!strings.Contains(errs, "not a principle of this namespace") {
		t.Errorf("citing an unknown principle: exit %d, %s", code, errs)
	}
}

// --operator and --as-known-at filter list, recall and digest.
func TestOperatorAndAsKnownAtFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	mustCLI(t, db, "", "remember", "--kind", "correction", "--ref", "operator:alice", "Alice moves the heron uplink window earlier.")
	mustCLI(t, db, "", "remember", "--kind", "correction", "--ref", "operator:bob", "Bob asks for a second ground station on heron nights.")
	out := mustCLI(t, db, "", "list", "--operator", "alice")
	if !strings.Contains(out, "Alice") || strings.Contains(out, "Bob") {
		t.Errorf("list --operator alice:\n%s", out)
	}
	out = mustCLI(t, db, "", "recall", "--operator", "bob", "heron ground station")
	if !strings.Contains(out, "Bob") || strings.Contains(out, "Alice") {
		t.Errorf("recall --operator bob:\n%s", out)
	}
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	if out := mustCLI(t, db, "", "list", "--as-known-at", past); strings.Contains(out, "heron") {
		t.Errorf("list --as-known-at an hour ago shows later records:\n%s", out)
	}
	if out := mustCLI(t, db, "", "digest", "--as-known-at", time.Now().UTC().Format(time.RFC3339Nano), "plan the heron pass"); !strings.Contains(out, "heron") {
		t.Errorf("digest --as-known-at now:\n%s", out)
	}
	if _, errs, code := cli(t, db, "", "recall", "--as-known-at", "yesterday", "heron"); code == 0 || !strings.Contains(errs, "invalid time") {
		t.Errorf("--as-known-at yesterday: exit %d, %s", code, errs)
	}
}
