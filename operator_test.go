package mnemo_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestOperators(t *testing.T) {
	r := &mnemo.Record{Tags: []string{"pattern", "operator:alice", "operator:"},
		Provenance: []string{"session:1", "operator:bob", "operator:alice", "author:carol"}}
	if got := r.Operators(); !slices.Equal(got, []string{"alice", "bob"}) {
		t.Errorf("Operators = %v, want [alice bob]", got)
	}
	if got := mnemo.Operators(nil, []string{"commit:abc"}); got != nil {
		t.Errorf("Operators of no reference = %v, want nil", got)
	}
}

// TestFilterAsKnownAtOperator: both keys in every spelling a surface uses,
// the time read by the one parser.
func TestFilterAsKnownAtOperator(t *testing.T) {
	want := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var f mnemo.Filter
	if err := json.Unmarshal([]byte(`{"as_known_at":"2026-03-01","operator":"alice"}`), &f); err != nil {
		t.Fatal(err)
	}
	if f.AsKnownAt == nil || !f.AsKnownAt.Equal(want) || f.Operator != "alice" {
		t.Errorf("JSON filter = %+v", f)
	}
	var g mnemo.Filter
	if err := g.Set("as_known_at", "2026-03-01T01:00:00+01:00"); err != nil {
		t.Fatal(err)
	}
	if err := g.Set("operator", "alice"); err != nil {
		t.Fatal(err)
	}
	if g.AsKnownAt == nil || !g.AsKnownAt.Equal(want) || g.Operator != "alice" {
		t.Errorf("Set filter = %+v", g)
	}
	if err := g.Set("as_known_at", "yesterday"); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("a bad time: %v, want EINVALID", err)
	}
	b, _ := json.Marshal(f)
	if string(b) != `{"as_known_at":"2026-03-01T00:00:00Z","operator":"alice"}` {
		t.Errorf("marshalled: %s", b)
	}
}
