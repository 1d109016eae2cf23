package mnemo_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2026-01-02", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"2026-01-02T15:04:05Z", time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)},
		{"2026-01-02T17:04:05.5+02:00", time.Date(2026, 1, 2, 15, 4, 5, 5e8, time.UTC)},
		{" 2026-01-02 ", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
	} {
		got, err := mnemo.ParseTime(c.in)
		if err != nil || !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "2026-13-01", "02/01/2026"} {
		if _, err := mnemo.ParseTime(bad); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("ParseTime(%q): %v, want EINVALID", bad, err)
		}
	}
}

// TestFilterSpellings: the JSON spelling, the older one and KEY=VALUE give
// the same filter.
func TestFilterSpellings(t *testing.T) {
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	want := mnemo.Filter{Layers: []mnemo.Layer{"domain", "workflow"}, Kinds: []mnemo.Kind{"decision"},
		ScopePrefix: "/rules", Component: "pump", Mission: "m1", Thread: "t1", Tags: []string{"a", "b"},
		MinCriticality: 0.5, Since: &day, Until: &at, AsOf: &at, Outcome: "accepted"}

	canonical := `{"layers":["domain","workflow"],"kinds":["decision"],"scope_prefix":"/rules","component":"pump",
		"mission":"m1","thread":"t1","tags":["a","b"],"min_criticality":0.5,"since":"2026-05-01",
		"until":"2026-06-01T12:00:00Z","as_of":"2026-06-01T14:00:00+02:00","outcome":"accepted"}`
	older := `{"layer":["domain","workflow"],"kind":["decision"],"scope":"/rules","component":"pump",
		"mission":"m1","thread":"t1","tag":["a","b"],"criticality":0.5,"since":"2026-05-01T00:00:00Z",
		"until":"2026-06-01T12:00:00Z","as_of":"2026-06-01T12:00:00Z","outcome":"accepted"}`
	for name, in := range map[string]string{"canonical": canonical, "older": older} {
		var f mnemo.Filter
		if err := json.Unmarshal([]byte(in), &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(f, want) {
			t.Errorf("%s: %+v, want %+v", name, f, want)
		}
	}
	var kv mnemo.Filter
	for _, p := range [][2]string{{"layer", "domain"}, {"layers", "workflow"}, {"kind", "decision"}, {"scope", "/rules"},
		{"component", "pump"}, {"mission", "m1"}, {"thread", "t1"}, {"tag", "a,b"}, {"criticality", "0.5"},
		{"since", "2026-05-01"}, {"until", "2026-06-01T12:00:00Z"}, {"AS_OF", "2026-06-01T12:00:00Z"}, {"outcome", "accepted"}} {
		if err := kv.Set(p[0], p[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", p[0], p[1], err)
		}
	}
	if !reflect.DeepEqual(kv, want) {
		t.Errorf("Set: %+v, want %+v", kv, want)
	}

	// What Filter writes, it reads back.
	b, _ := json.Marshal(want)
	var back mnemo.Filter
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("round trip %s: %+v, %v", b, back, err)
	}
	// Every canonical key is a JSON name of Filter, and the other way round.
	var names []string
	for i := 0; i < reflect.TypeFor[mnemo.Filter]().NumField(); i++ {
		names = append(names, strings.Split(reflect.TypeFor[mnemo.Filter]().Field(i).Tag.Get("json"), ",")[0])
	}
	slices.Sort(names)
	keys := slices.Sorted(slices.Values(mnemo.FilterKeys))
	if !reflect.DeepEqual(names, keys) {
		t.Errorf("FilterKeys %v, fields %v", mnemo.FilterKeys, names)
	}
}

func TestFilterRefuses(t *testing.T) {
	for _, in := range []string{`{"colour":"red"}`, `{"since":"yesterday"}`, `{"layers":"domain"}`, `{"min_criticality":"high"}`, `[]`} {
		var f mnemo.Filter
		if err := json.Unmarshal([]byte(in), &f); err == nil {
			t.Errorf("%s accepted: %+v", in, f)
		}
	}
	var f mnemo.Filter
	for _, kv := range [][2]string{{"colour", "red"}, {"since", "yesterday"}, {"criticality", "high"}} {
		if err := f.Set(kv[0], kv[1]); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("Set(%s, %s): %v, want EINVALID", kv[0], kv[1], err)
		}
	}
	// A request without filters, or with null, has none.
	var r mnemo.RecallRequest
	if err := json.Unmarshal([]byte(`{"query":"x","filters":null}`), &r); err != nil || !reflect.DeepEqual(r.Filter, mnemo.Filter{}) {
		t.Errorf("null filters: %+v, %v", r.Filter, err)
	}
}
