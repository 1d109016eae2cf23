package memindex

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestSnapshotOperators: the operators of an entry survive a snapshot,
// beside its tags.
func TestSnapshotOperators(t *testing.T) {
	n := New[int64](3, 0)
	ents := []Entry{
		{ID: "a", Scope: "/", Tags: []string{"x"}, Operators: []string{"alice", "bob"}},
		{ID: "b", Scope: "/", Operators: []string{"bob"}},
		{ID: "c", Scope: "/", Tags: []string{"operator:carol"}},
	}
	for i, e := range ents {
		e.ValidFrom, e.ValidTo, e.Created = math.MinInt64, math.MaxInt64, 1
		n.Put(int64(i+1), e, nil, []byte("heron "+e.ID))
	}
	m := readSnap(t, snapBytes(t, n, 1))
	for _, e := range ents {
		got := m.ByID(e.ID)
		if got == nil || !slices.Equal(got.Operators, e.Operators) || !slices.Equal(got.Tags, e.Tags) {
			t.Errorf("entry %s read back as %+v, want operators %v and tags %v", e.ID, got, e.Operators, e.Tags)
		}
	}
	c := Compile(mnemo.Scope{}, mnemo.Filter{Operator: "bob"}, time.Now())
	hits := m.Keyword(Terms([]string{"heron"}, 32), 5000, c, 10)
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("operator bob after a snapshot: %v, want [a b]", ids)
	}
}

// TestListKnownAt: the filter, validity, deletion, order, cursor and
// limit of a List applied to a past state.
func TestListKnownAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(id string, edit func(*mnemo.Record)) *mnemo.Record {
		r := &mnemo.Record{ID: id, Namespace: "n", Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: "/",
			Text: id, CreatedAt: t0, ValidFrom: t0}
		if edit != nil {
			edit(r)
		}
		return r
	}
	at := t0.Add(time.Hour)
	known := func() []*mnemo.Record {
		return []*mnemo.Record{
			mk("a", nil),
			mk("b", func(r *mnemo.Record) { r.AccessLevel = 2 }),
			mk("c", func(r *mnemo.Record) { d := t0; r.DeletedAt = &d }),
			mk("d", func(r *mnemo.Record) { end := t0.Add(time.Minute); r.ValidTo = &end }),
			mk("e", func(r *mnemo.Record) { r.Provenance = []string{"operator:alice"} }),
			mk("f", func(r *mnemo.Record) { r.Namespace = "other" }),
		}
	}
	ids := func(recs []*mnemo.Record) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return out
	}
	sc := mnemo.Scope{Namespace: "n"}
	for _, c := range []struct {
		name string
		sc   mnemo.Scope
		opt  mnemo.ListOptions
		want []string
	}{
		{"live", sc, mnemo.ListOptions{}, []string{"e", "a"}},
		{"clearance", mnemo.Scope{Namespace: "n", Clearance: 2}, mnemo.ListOptions{}, []string{"e", "b", "a"}},
		{"deleted", sc, mnemo.ListOptions{IncludeDeleted: true}, []string{"e", "c", "a"}},
		{"history", sc, mnemo.ListOptions{IncludeHistory: true}, []string{"e", "d", "a"}},
		{"as of", sc, mnemo.ListOptions{Filter: mnemo.Filter{AsOf: &t0}}, []string{"e", "d", "a"}},
		{"operator", sc, mnemo.ListOptions{Filter: mnemo.Filter{Operator: "alice"}}, []string{"e"}},
		{"limit", sc, mnemo.ListOptions{Limit: 1}, []string{"e"}},
		{"after", sc, mnemo.ListOptions{After: "e"}, []string{"a"}},
	} {
		c.opt.Filter.AsKnownAt = &at
		if got := ids(ListKnownAt(known(), c.sc, c.opt)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if err := LiveOnly(mnemo.Filter{AsKnownAt: &at}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("LiveOnly(as_known_at) = %v, want EINVALID", err)
	}
}
