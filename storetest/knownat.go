package storetest

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testOperator: the operator filter selects the records that name the
// operator in a tag or a provenance reference "operator:<name>", in List,
// Keyword and Vector alike, and after the index is reloaded.
func testOperator(t *testing.T, s mnemo.Store) {
	mk := func(text string, kind mnemo.Kind, tags, prov []string, seed int) *mnemo.Record {
		r := rec("op", text)
		r.Layer, r.Kind, r.Tags, r.Provenance = mnemo.LayerPractitioner, kind, tags, prov
		r.Embedding = vec(seed)
		r.Embedding[0] += 5
		return r
	}
	corr := mk("heron correction by alice", mnemo.KindCorrection, nil, []string{"session:1", "operator:alice"}, 1)
	pat := mk("heron pattern of alice", mnemo.KindPreference, []string{"operator:alice", "pattern"}, []string{"operator:alice"}, 2)
	bob := mk("heron correction by bob", mnemo.KindCorrection, []string{"operator:alicex"}, []string{"operator:bob"}, 3)
	none := mk("heron note naming alice", mnemo.KindFact, []string{"alice"}, []string{"author:alice"}, 4)
	gone := mk("heron forgotten correction by alice", mnemo.KindCorrection, nil, []string{"operator:alice"}, 5)
	gone.DeletedAt = ptr(base)
	insert(t, s, corr, pat, bob, none, gone)
	sc := mnemo.Scope{Namespace: "op"}
	q := vec(0)
	q[0] += 5
	cases := []struct {
		name string
		f    mnemo.Filter
		want []string
	}{
		{"alice", mnemo.Filter{Operator: "alice"}, []string{corr.ID, pat.ID}},
		{"bob", mnemo.Filter{Operator: "bob"}, []string{bob.ID}},
		{"alicex", mnemo.Filter{Operator: "alicex"}, []string{bob.ID}},
		{"nobody", mnemo.Filter{Operator: "carol"}, nil},
		{"alice's corrections", mnemo.Filter{Operator: "alice", Kinds: []mnemo.Kind{mnemo.KindCorrection}}, []string{corr.ID}},
	}
	check := func(when string) {
		for _, c := range cases {
			list, err := s.List(bg, sc, mnemo.ListOptions{Filter: c.f})
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, when+c.name+": List", recordIDs(list), c.want)
			kw, err := s.Keyword(bg, sc, "heron", c.f, 10)
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, when+c.name+": Keyword", hitIDs(kw), c.want)
			vh, err := s.Vector(bg, sc, q, c.f, 10)
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, when+c.name+": Vector", hitIDs(vh), c.want)
		}
	}
	check("")
	// An update that drops the reference drops the record from the filter.
	pat.Tags, pat.Provenance, pat.UpdatedAt = []string{"pattern"}, nil, base.Add(time.Minute)
	if err := s.Update(bg, pat, "update", "test"); err != nil {
		t.Fatal(err)
	}
	cases[0].want = []string{corr.ID}
	check("after update: ")
	if all, err := s.List(bg, sc, mnemo.ListOptions{Filter: mnemo.Filter{Operator: "alice"}, IncludeDeleted: true}); err != nil {
		t.Fatal(err)
	} else {
		sameSet(t, "alice, deleted included", recordIDs(all), []string{corr.ID, gone.ID})
	}
}

// testAsKnownAt: a List with AsKnownAt answers from the revisions — each
// record as its latest revision at or before the time, records written
// later or forgotten by then left out — and never shows a revision above
// the caller's clearance, nor anything of a record now above it. Keyword
// and Vector refuse it (the engine ranks a past state itself).
func testAsKnownAt(t *testing.T, s mnemo.Store) {
	const ns = "known"
	tick := func() time.Time {
		time.Sleep(3 * time.Millisecond)
		now := time.Now().UTC()
		time.Sleep(3 * time.Millisecond)
		return now
	}
	update := func(r *mnemo.Record, action string) {
		t.Helper()
		r.UpdatedAt = r.UpdatedAt.Add(time.Minute)
		if err := s.Update(bg, r, action, "test"); err != nil {
			t.Fatal(err)
		}
	}
	before := tick()
	a, b := rec(ns, "osprey nest first text"), rec(ns, "osprey colony count")
	raised := rec(ns, "osprey route, public then")
	lowered := rec(ns, "osprey secret site 4711")
	lowered.AccessLevel = 3
	for i, r := range []*mnemo.Record{a, b, raised, lowered} {
		r.Embedding = vec(20 + i)
	}
	insert(t, s, a, b, raised, lowered)
	t1 := tick()
	a.Text = "osprey nest second text"
	update(a, "update")
	b.DeletedAt = ptr(base)
	update(b, "forget")
	raised.AccessLevel = 3
	update(raised, "update")
	lowered.Text, lowered.AccessLevel = "osprey site declassified", 0
	update(lowered, "update")
	c := rec(ns, "osprey later arrival")
	c.Embedding = vec(30)
	insert(t, s, c)
	t2 := tick()

	list := func(clearance int, at time.Time, opt mnemo.ListOptions) []*mnemo.Record {
		t.Helper()
		opt.Filter.AsKnownAt = &at
		out, err := s.List(bg, mnemo.Scope{Namespace: ns, Clearance: clearance}, opt)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	texts := func(recs []*mnemo.Record) map[string]string {
		m := map[string]string{}
		for _, r := range recs {
			m[r.ID] = r.Text
		}
		return m
	}
	sameSet(t, "before anything", recordIDs(list(0, before, mnemo.ListOptions{})), nil)
	got := list(0, t1, mnemo.ListOptions{})
	sameSet(t, "at t1, clearance 0", recordIDs(got), []string{a.ID, b.ID})
	if tx := texts(got); tx[a.ID] != "osprey nest first text" {
		t.Errorf("at t1 the record reads %q, want its first text", tx[a.ID])
	}
	for _, r := range got {
		if r.AccessLevel > 0 {
			t.Errorf("at clearance 0 got a revision of level %d: %+v", r.AccessLevel, r)
		}
	}
	got = list(3, t1, mnemo.ListOptions{})
	sameSet(t, "at t1, clearance 3", recordIDs(got), []string{a.ID, b.ID, raised.ID, lowered.ID})
	if tx := texts(got); tx[lowered.ID] != "osprey secret site 4711" {
		t.Errorf("at t1, clearance 3, the lowered record reads %q, want its secret text", tx[lowered.ID])
	}
	got = list(0, t2, mnemo.ListOptions{})
	sameSet(t, "at t2, clearance 0", recordIDs(got), []string{a.ID, lowered.ID, c.ID})
	tx := texts(got)
	if tx[a.ID] != "osprey nest second text" || tx[lowered.ID] != "osprey site declassified" {
		t.Errorf("at t2 the texts are %v, want the updated ones", tx)
	}
	for _, r := range got {
		if r.Text == "osprey secret site 4711" {
			t.Errorf("clearance 0 sees the level-3 text: %+v", r)
		}
	}
	sameSet(t, "at t2, forgotten included", recordIDs(list(0, t2, mnemo.ListOptions{IncludeDeleted: true})),
		[]string{a.ID, b.ID, lowered.ID, c.ID})
	// The filter, order and limit apply to the past state.
	sameSet(t, "at t2, component", recordIDs(list(0, t2, mnemo.ListOptions{Filter: mnemo.Filter{Component: "none"}})), nil)
	page := list(0, t2, mnemo.ListOptions{Limit: 2})
	if len(page) != 2 || page[0].ID <= page[1].ID {
		t.Errorf("a page of 2 = %v, want the 2 largest ids, largest first", recordIDs(page))
	}
	next := list(0, t2, mnemo.ListOptions{Limit: 2, After: page[1].ID})
	sameSet(t, "the next page", append(recordIDs(page), recordIDs(next)...), []string{a.ID, lowered.ID, c.ID})
	// A record is returned with a vector when its text is the current one.
	for _, r := range list(3, t2, mnemo.ListOptions{}) {
		if len(r.Embedding) == 0 {
			t.Errorf("record %s at t2 has no vector", r.ID)
		}
	}
	for _, r := range list(3, t1, mnemo.ListOptions{}) {
		if r.ID == a.ID && len(r.Embedding) != 0 {
			t.Errorf("the first text of %s came with the vector of its second", r.ID)
		}
	}
	// The live searches refuse a past state.
	f := mnemo.Filter{AsKnownAt: &t1}
	if _, err := s.Keyword(bg, mnemo.Scope{Namespace: ns}, "osprey", f, 10); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("Keyword with as_known_at: %v, want EINVALID", err)
	}
	if _, err := s.Vector(bg, mnemo.Scope{Namespace: ns}, vec(20), f, 10); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("Vector with as_known_at: %v, want EINVALID", err)
	}
}
