package memindex

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestCondMatches(t *testing.T) {
	now := time.Unix(1000, 0)
	past, future := time.Unix(500, 0), time.Unix(1500, 0)
	base := func() Entry {
		e := Entry{ID: "a", Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: "/a/b",
			Component: "c", Mission: "m", Outcome: "o", Tags: []string{"x", "y"}, Criticality: 0.5, AccessLevel: 1}
		created := int64(800e9)
		e.SetTimes(&created, nil, nil)
		return e
	}
	sc := mnemo.Scope{Namespace: "n", Clearance: 1}
	cases := []struct {
		name string
		edit func(*Entry)
		f    mnemo.Filter
		sc   mnemo.Scope
		want bool
	}{
		{"plain", nil, mnemo.Filter{}, sc, true},
		{"clearance", nil, mnemo.Filter{}, mnemo.Scope{Clearance: 0}, false},
		{"deleted", func(e *Entry) { e.Deleted = true }, mnemo.Filter{}, sc, false},
		{"not yet valid", func(e *Entry) { e.ValidFrom = future.UnixNano() }, mnemo.Filter{}, sc, false},
		{"expired", func(e *Entry) { e.ValidTo = now.UnixNano() }, mnemo.Filter{}, sc, false},
		{"valid as of", func(e *Entry) { e.ValidTo = now.UnixNano() }, mnemo.Filter{AsOf: &past}, sc, true},
		{"layer", nil, mnemo.Filter{Layers: []mnemo.Layer{mnemo.LayerDomain}}, sc, true},
		{"other kind", nil, mnemo.Filter{Kinds: []mnemo.Kind{"other"}}, sc, false},
		{"scope prefix", nil, mnemo.Filter{ScopePrefix: "/a/"}, sc, true},
		{"scope exact", nil, mnemo.Filter{ScopePrefix: "/a/b"}, sc, true},
		{"scope sibling", nil, mnemo.Filter{ScopePrefix: "/a/bc"}, sc, false},
		{"scope not a path prefix", func(e *Entry) { e.Scope = "/ab" }, mnemo.Filter{ScopePrefix: "/a"}, sc, false},
		{"scope root", nil, mnemo.Filter{ScopePrefix: "/"}, sc, true},
		{"component", nil, mnemo.Filter{Component: "d"}, sc, false},
		{"mission", nil, mnemo.Filter{Mission: "m"}, sc, true},
		{"outcome", nil, mnemo.Filter{Outcome: "p"}, sc, false},
		{"tags all", nil, mnemo.Filter{Tags: []string{"y", "x"}}, sc, true},
		{"tags missing", nil, mnemo.Filter{Tags: []string{"x", "z"}}, sc, false},
		{"criticality", nil, mnemo.Filter{MinCriticality: 0.6}, sc, false},
		{"since", nil, mnemo.Filter{Since: &past}, sc, true},
		{"until", nil, mnemo.Filter{Until: &past}, sc, false},
		{"since unset created", func(e *Entry) { e.Created = math.MinInt64 }, mnemo.Filter{Since: &past}, sc, false},
		{"operator", func(e *Entry) { e.Operators = []string{"alice", "bob"} }, mnemo.Filter{Operator: "bob"}, sc, true},
		{"other operator", func(e *Entry) { e.Operators = []string{"alice"} }, mnemo.Filter{Operator: "bob"}, sc, false},
		{"no operator", nil, mnemo.Filter{Operator: "alice"}, sc, false},
		{"as known at is not the index's", nil, mnemo.Filter{AsKnownAt: &past}, sc, true},
	}
	for _, c := range cases {
		e := base()
		if c.edit != nil {
			c.edit(&e)
		}
		if got := Compile(c.sc, c.f, now).Matches(&e); got != c.want {
			t.Errorf("%s: Matches = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRemoveHidesEntry(t *testing.T) {
	n := New[int64](2, 2)
	e := Entry{ID: "a", Scope: "/", ValidFrom: math.MinInt64, ValidTo: math.MaxInt64}
	n.Upsert(1, e, []byte{0, 0, 128, 63, 0, 0, 0, 0}, []byte("grey heron"))
	c := Compile(mnemo.Scope{}, mnemo.Filter{}, time.Now())
	if hits := n.Vector([]float32{1, 0}, c, 5); len(hits) != 1 || hits[0].ID != "a" {
		t.Fatalf("Vector = %v", hits)
	}
	if hits := n.Keyword(Terms([]string{"heron"}, 32), 5000, c, 5); len(hits) != 1 {
		t.Fatalf("Keyword = %v", hits)
	}
	n.Remove(1)
	if n.ByID("a") != nil {
		t.Error("ByID finds a removed entry")
	}
	if hits := n.Vector([]float32{1, 0}, c, 5); len(hits) != 0 {
		t.Errorf("Vector after Remove = %v", hits)
	}
	if hits := n.Keyword([]string{"heron"}, 5000, c, 5); len(hits) != 0 {
		t.Errorf("Keyword after Remove = %v", hits)
	}
}

// From tells every field of the filter and the clearance apart: a read
// reuses a compiled filter only for the same one.
func TestCondFrom(t *testing.T) {
	at := time.Unix(1000, 0)
	f := mnemo.Filter{Layers: []mnemo.Layer{mnemo.LayerDomain}, Tags: []string{"x"}, Since: &at}
	sc := mnemo.Scope{Namespace: "n", Clearance: 2}
	c := Compile(sc, f, time.Unix(2000, 0))
	same := f
	same.Since = new(time.Unix(1000, 0))
	same.Layers = []mnemo.Layer{mnemo.LayerDomain}
	if !c.From(sc, same) || !c.From(mnemo.Scope{Namespace: "other", Clearance: 2}, f) {
		t.Fatal("From rejects the filter it was compiled from")
	}
	if c.From(mnemo.Scope{Namespace: "n", Clearance: 1}, f) {
		t.Error("From accepts another clearance")
	}
	// Each field changed alone, by reflection, so that a field added to
	// Filter cannot be forgotten.
	v := reflect.ValueOf(f)
	for i := range v.NumField() {
		g := f
		fv := reflect.ValueOf(&g).Elem().Field(i)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(fv.String() + "z")
		case reflect.Float64:
			fv.SetFloat(fv.Float() + 0.5)
		case reflect.Slice:
			fv.Set(reflect.Append(reflect.MakeSlice(fv.Type(), 0, 2), reflect.Zero(fv.Type().Elem())))
		case reflect.Pointer:
			fv.Set(reflect.ValueOf(new(time.Unix(3000, 0))))
		default:
			t.Fatalf("Filter.%s: a field of kind %s this test cannot change", v.Type().Field(i).Name, fv.Kind())
		}
		if c.From(sc, g) {
			t.Errorf("From accepts a filter whose %s differs", v.Type().Field(i).Name)
		}
	}
}
