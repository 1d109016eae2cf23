package storetest

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/memindex"
)

// capabilityTests check that a store honours each optional capability it
// claims (see mnemo.Capabilities); one it does not claim is skipped.
var capabilityTests = []struct {
	name string
	cap  mnemo.Capability
	fn   func(*testing.T, mnemo.Store)
}{
	{"IDF", mnemo.CapIDF, testCapIDF},
	{"TermIDF", mnemo.CapTermIDF, testCapTermIDF},
	{"TermKeyword", mnemo.CapTermKeyword, testCapTermKeyword},
	{"RecordTerms", mnemo.CapRecordTerms, testCapRecordTerms},
	{"NextInThread", mnemo.CapNextTurn, testCapNextTurn},
	{"ShortRefs", mnemo.CapRefs, testShortRefs},
	{"Warm", mnemo.CapWarm, testCapWarm},
	{"RankFields", mnemo.CapRankFields, testCapRankFields},
}

// testCapabilities: the store implements exactly the capabilities its
// tests claim for it, no fewer (a claim it does not keep) and no more (a
// capability callers would use that nothing checks).
func testCapabilities(t *testing.T, s mnemo.Store, claims []mnemo.Capability) {
	got := mnemo.Capabilities(s)
	for _, c := range claims {
		if !slices.Contains(got, c) {
			t.Errorf("capability %s is claimed but not implemented", c)
		}
	}
	for _, c := range got {
		if !slices.Contains(claims, c) {
			t.Errorf("capability %s is implemented but not claimed", c)
		}
	}
	known := make([]mnemo.Capability, len(capabilityTests))
	for i, ct := range capabilityTests {
		known[i] = ct.cap
	}
	for _, c := range claims {
		if !slices.Contains(known, c) {
			t.Errorf("capability %s has no conformance test", c)
		}
	}
}

// idfRecords stores three records visible at clearance 0 and one above
// it, for the IDF checks: "zebra" is held by one visible record and the
// hidden one, "lion" by two visible ones and the hidden one, "okapi" by
// the hidden one only.
func idfRecords(t *testing.T, s mnemo.Store) {
	t.Helper()
	hidden := rec("idf", "zebra lion okapi")
	hidden.AccessLevel = 2
	gone := rec("idf", "lion sleeps")
	gone.DeletedAt = ptr(base) // forgotten records stay in the statistics
	insert(t, s, rec("idf", "zebra grazes"), rec("idf", "lion hunts"), gone, hidden)
}

// bm25IDF is the IDF the capability promises: N records seen, n holding the term.
func bm25IDF(N, n float64) float64 { return math.Log(1 + (N-n+0.5)/(n+0.5)) }

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// oneIDF returns the IDF of the single index term of word.
func oneIDF(t *testing.T, m map[string]float64) float64 {
	t.Helper()
	if len(m) != 1 {
		t.Fatalf("IDF of one word = %v, want one term", m)
	}
	for _, v := range m {
		return v
	}
	return 0
}

// testCapIDF: IDF is BM25's, counted over the records the scope sees
// (forgotten ones included), and a record above the clearance changes
// nothing.
func testCapIDF(t *testing.T, s mnemo.Store) {
	src, ok := s.(mnemo.IDFSource)
	if !ok {
		t.Fatal("the store does not implement mnemo.IDFSource")
	}
	idfRecords(t, s)
	for _, c := range []struct {
		clearance int
		word      string
		N, n      float64
	}{
		{0, "zebra", 3, 1}, {0, "lion", 3, 2}, {0, "okapi", 3, 0},
		{2, "zebra", 4, 2}, {2, "lion", 4, 3}, {2, "okapi", 4, 1},
	} {
		m, unseen, err := src.IDF(bg, mnemo.Scope{Namespace: "idf", Clearance: c.clearance}, c.word)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := oneIDF(t, m), bm25IDF(c.N, c.n); !closeTo(got, want) {
			t.Errorf("clearance %d: IDF(%s) = %v, want %v", c.clearance, c.word, got, want)
		}
		if want := bm25IDF(c.N, 0); !closeTo(unseen, want) {
			t.Errorf("clearance %d: unseen IDF = %v, want %v", c.clearance, unseen, want)
		}
	}
	// Another namespace's records count nowhere.
	m, _, err := src.IDF(bg, mnemo.Scope{Namespace: "idf-other", Clearance: 2}, "zebra")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := oneIDF(t, m), bm25IDF(0, 0); !closeTo(got, want) {
		t.Errorf("IDF in an empty namespace = %v, want %v", got, want)
	}
}

// testCapTermIDF: IDFTerms of the terms the index cuts from a text is IDF
// of the text.
func testCapTermIDF(t *testing.T, s mnemo.Store) {
	src, ok := s.(mnemo.TermIDFSource)
	if !ok {
		t.Fatal("the store does not implement mnemo.TermIDFSource")
	}
	idfRecords(t, s)
	sc := mnemo.Scope{Namespace: "idf", Clearance: 0}
	terms := memindex.Terms(memindex.QueryTokens("zebras lions okapi"), memindex.MaxQueryTokens)
	m, unseen, err := src.IDFTerms(bg, sc, terms)
	if err != nil {
		t.Fatal(err)
	}
	if !closeTo(unseen, bm25IDF(3, 0)) {
		t.Errorf("unseen IDF = %v, want %v", unseen, bm25IDF(3, 0))
	}
	want := map[string]float64{}
	for _, w := range []struct {
		word string
		n    float64
	}{{"zebra", 1}, {"lion", 2}, {"okapi", 0}} {
		for _, term := range memindex.Terms(memindex.QueryTokens(w.word), 1) {
			want[term] = bm25IDF(3, w.n)
		}
	}
	if len(m) != len(want) {
		t.Fatalf("IDFTerms(%v) = %v, want %v", terms, m, want)
	}
	for term, v := range want {
		if !closeTo(m[term], v) {
			t.Errorf("IDFTerms: %s = %v, want %v", term, m[term], v)
		}
	}
}

// testCapTermKeyword: KeywordTerms of the terms the index cuts from a
// query finds what Keyword finds for the query, within the clearance and
// the filter.
func testCapTermKeyword(t *testing.T, s mnemo.Store) {
	tk, ok := s.(mnemo.TermKeyworder)
	if !ok {
		t.Fatal("the store does not implement mnemo.TermKeyworder")
	}
	a, b, c := rec("terms", "the lions hunt at dusk"), rec("terms", "a lion sleeps in the shade"), rec("terms", "lions roar")
	c.AccessLevel = 2
	b.Tags = []string{"rest"}
	insert(t, s, a, b, c, rec("terms", "zebras graze"))
	terms := memindex.Terms(memindex.QueryTokens("lion"), memindex.MaxQueryTokens)
	for _, q := range []struct {
		sc   mnemo.Scope
		f    mnemo.Filter
		want []string
	}{
		{mnemo.Scope{Namespace: "terms"}, mnemo.Filter{}, []string{a.ID, b.ID}},
		{mnemo.Scope{Namespace: "terms", Clearance: 2}, mnemo.Filter{}, []string{a.ID, b.ID, c.ID}},
		{mnemo.Scope{Namespace: "terms"}, mnemo.Filter{Tags: []string{"rest"}}, []string{b.ID}},
		{mnemo.Scope{Namespace: "terms-other", Clearance: 2}, mnemo.Filter{}, nil},
	} {
		got, err := tk.KeywordTerms(bg, q.sc, terms, q.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, "KeywordTerms", hitIDs(got), q.want)
		kw, err := s.Keyword(bg, q.sc, "lion", q.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(hitIDs(kw), hitIDs(got)) {
			t.Errorf("KeywordTerms = %v, Keyword = %v: want the same ranking", hitIDs(got), hitIDs(kw))
		}
	}
	if got, err := tk.KeywordTerms(bg, mnemo.Scope{Namespace: "terms"}, nil, mnemo.Filter{}, 10); err != nil || len(got) != 0 {
		t.Errorf("KeywordTerms without terms = %v, %v", got, err)
	}
}

// testCapRecordTerms: RecordTerms gives each visible record's distinct
// index terms, those of its searchable text (a decision's fields included)
// cut as the keyword index cuts it, after an edit the new text's; records
// above the clearance, of another namespace or unknown are left out.
func testCapRecordTerms(t *testing.T, s mnemo.Store) {
	rt, ok := s.(mnemo.RecordTermer)
	if !ok {
		t.Fatal("the store does not implement mnemo.RecordTermer")
	}
	a, hidden := rec("rterms", "The lions hunted at dusk; lions rest at noon"), rec("rterms", "zebras graze")
	hidden.AccessLevel = 2
	d := rec("rterms", "Embedded store")
	d.Kind = mnemo.KindDecision
	d.Decision = &mnemo.Decision{Title: "Embedded store", Decision: "SQLite via modernc", Principle: "one static binary"}
	other := rec("rterms-other", "lions elsewhere")
	insert(t, s, a, hidden, d, other)
	cut := func(r *mnemo.Record) []string {
		var out []string
		memindex.EachTerm([]byte(r.SearchText()), nil, func(term []byte) {
			if w := string(term[:words.StemBytes(term)]); !slices.Contains(out, w) {
				out = append(out, w)
			}
		})
		return out
	}
	sc := mnemo.Scope{Namespace: "rterms"}
	got, err := rt.RecordTerms(bg, sc, []string{a.ID, hidden.ID, d.ID, other.ID, "no-such-id"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("RecordTerms at clearance 0 gave %d records, want 2 (%v)", len(got), got)
	}
	sameSet(t, "terms of a", got[a.ID], cut(a))
	sameSet(t, "terms of the decision", got[d.ID], cut(d))
	if !slices.Contains(got[d.ID], "modernc") || !slices.Contains(got[a.ID], "lion") {
		t.Errorf("terms %v and %v lack the body's or the text's words", got[d.ID], got[a.ID])
	}
	if got, err := rt.RecordTerms(bg, mnemo.Scope{Namespace: "rterms", Clearance: 2}, []string{hidden.ID}); err != nil || len(got[hidden.ID]) == 0 {
		t.Errorf("RecordTerms at clearance 2: %v, %v", got, err)
	}
	a.Text, a.UpdatedAt = "giraffes browse acacias", base.Add(time.Minute)
	if err := s.Update(bg, a, "edit", "test"); err != nil {
		t.Fatal(err)
	}
	if got, err = rt.RecordTerms(bg, sc, []string{a.ID}); err != nil {
		t.Fatal(err)
	}
	sameSet(t, "terms of a after an edit", got[a.ID], cut(a))
}

// testCapNextTurn: NextInThread gives the nearest record after each one
// in its thread (in time) that the scope and filter see: a record above
// the clearance, forgotten or filtered out is passed over, never given;
// the last turn, a record without a thread, one the scope does not see
// and an unknown id get none.
func testCapNextTurn(t *testing.T, s mnemo.Store) {
	tf, ok := s.(mnemo.ThreadFollower)
	if !ok {
		t.Fatal("the store does not implement mnemo.ThreadFollower")
	}
	turn := func(i int, text string) *mnemo.Record {
		r := rec("next", text)
		r.Thread, r.CreatedAt = "s:1", base.Add(time.Duration(i)*time.Minute)
		r.ValidFrom = r.CreatedAt
		return r
	}
	q, secret, gone, tagged, last := turn(0, "how was it?"), turn(1, "secret answer"), turn(2, "forgotten answer"), turn(3, "tagged answer"), turn(4, "plain answer")
	secret.AccessLevel = 2
	gone.DeletedAt = ptr(base)
	tagged.Tags = []string{"x"}
	loose := rec("next", "no thread")
	insert(t, s, last, tagged, gone, secret, q, loose) // written out of order
	ids := []string{q.ID, secret.ID, last.ID, loose.ID, "no-such-id"}
	for _, c := range []struct {
		sc   mnemo.Scope
		f    mnemo.Filter
		want map[string]string
	}{
		{mnemo.Scope{Namespace: "next"}, mnemo.Filter{}, map[string]string{q.ID: tagged.ID}},
		{mnemo.Scope{Namespace: "next", Clearance: 2}, mnemo.Filter{}, map[string]string{q.ID: secret.ID, secret.ID: tagged.ID}},
		{mnemo.Scope{Namespace: "next", Clearance: 2}, mnemo.Filter{Tags: []string{"x"}}, map[string]string{}},
		{mnemo.Scope{Namespace: "next-other", Clearance: 2}, mnemo.Filter{}, map[string]string{}},
	} {
		got, err := tf.NextInThread(bg, c.sc, c.f, ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Errorf("NextInThread(%+v, %+v) = %v, want %v", c.sc, c.f, got, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("NextInThread(%+v, %+v)[%s] = %q, want %q", c.sc, c.f, k, got[k], v)
			}
		}
	}
}

// testCapWarm: Warm loads a namespace, or one that holds nothing yet,
// without error, and searches after it see the records written before and
// after it.
func testCapWarm(t *testing.T, s mnemo.Store) {
	w, ok := s.(mnemo.Warmer)
	if !ok {
		t.Fatal("the store does not implement mnemo.Warmer")
	}
	a := rec("warm", "the badger digs")
	a.Embedding = vec(41)
	insert(t, s, a)
	for _, ns := range []string{"warm", "warm-empty"} {
		if err := w.Warm(bg, ns); err != nil {
			t.Fatalf("warm %s: %v", ns, err)
		}
	}
	b := rec("warm", "the badger sleeps")
	b.Embedding = vec(42)
	insert(t, s, b)
	sc := mnemo.Scope{Namespace: "warm"}
	kw, err := s.Keyword(bg, sc, "badger", mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "Keyword after Warm", hitIDs(kw), []string{a.ID, b.ID})
	vh, err := s.Vector(bg, sc, vec(42), mnemo.Filter{}, 1)
	if err != nil || len(vh) != 1 || vh[0].ID != b.ID {
		t.Errorf("Vector after Warm = %v, %v; want %s", vh, err, b.ID)
	}
	if kw, _ := s.Keyword(bg, mnemo.Scope{Namespace: "warm-empty"}, "badger", mnemo.Filter{}, 10); len(kw) != 0 {
		t.Errorf("Keyword in a warmed empty namespace = %v", kw)
	}
}

// testCapRankFields: RankFields gives, for each visible live record, the
// fields a record read from its row has for ranking — access counts kept
// apart by Touch included, speakers from the label and provenance — and
// a similarity within the codes' bound of the exact cosine; it leaves out
// records above the clearance, forgotten ones and unknown ids, and follows
// edits. VectorCodes ranks as Vector does.
func testCapRankFields(t *testing.T, s mnemo.Store) {
	ri, ok := s.(mnemo.RankIndex)
	if !ok {
		t.Fatal("the store does not implement mnemo.RankIndex")
	}
	a := rec("rfields", "Maria: my son starts school in May")
	a.Embedding, a.Importance, a.Confidence, a.Criticality, a.AccessCount = vec(1), 0.8, 0.6, 0.3, 4
	a.Thread, a.Component, a.Tags, a.Tokens = "conv-1", "school", []string{"family"}, 9
	a.Provenance = []string{"author:Jane Doe", "msg:conv-1/3"}
	x := rec("rfields", "Summary of the school talk")
	x.Embedding, x.Source, x.Layer, x.Kind = vec(2), mnemo.SourceExtracted, mnemo.LayerWorkflow, mnemo.KindEpisode
	hidden := rec("rfields", "secret plan")
	hidden.Embedding, hidden.AccessLevel = vec(3), 2
	gone := rec("rfields", "forgotten")
	gone.Embedding, gone.DeletedAt = vec(4), ptr(base)
	insert(t, s, a, x, hidden, gone)
	if err := s.Touch(bg, "rfields", []string{a.ID, a.ID, x.ID}, base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	sc := mnemo.Scope{Namespace: "rfields"}
	q := vec(1)
	fs, err := ri.RankFields(bg, sc, []string{a.ID, x.ID, hidden.ID, gone.ID, "no-such-id"}, q)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]mnemo.RankFields{}
	for _, f := range fs {
		by[f.Record.ID] = f
	}
	if len(fs) != 2 || by[a.ID].Record == nil || by[x.ID].Record == nil {
		t.Fatalf("RankFields gave %d records (%v), want a and x", len(fs), by)
	}
	full, err := s.GetMany(bg, sc, []string{a.ID, x.ID})
	if err != nil || len(full) != 2 {
		t.Fatalf("GetMany: %v, %v", full, err)
	}
	for _, r := range full {
		f := by[r.ID]
		g := f.Record
		near := func(u, v float64) bool { return math.Abs(u-v) < 1e-6 }
		if g.Namespace != r.Namespace || g.Layer != r.Layer || g.Kind != r.Kind || g.Scope != r.Scope ||
			g.Component != r.Component || g.Thread != r.Thread || !slices.Equal(g.Tags, r.Tags) ||
			!near(g.Importance, r.Importance) || !near(g.Confidence, r.Confidence) || g.Criticality != r.Criticality ||
			g.AccessLevel != r.AccessLevel || g.AccessCount != r.AccessCount || g.Tokens != r.Tokens ||
			g.Source != r.Source || !g.CreatedAt.Equal(r.CreatedAt) || !g.UpdatedAt.Equal(r.UpdatedAt) ||
			!g.ValidFrom.Equal(r.ValidFrom) {
			t.Errorf("rank fields of %s differ from its row:\n got %+v\nwant %+v", r.ID, *g, *r)
		}
		if g.Text != "" || g.Embedding != nil || g.Provenance != nil {
			t.Errorf("rank fields of %s carry the row's text, vector or provenance", r.ID)
		}
		exact := float64(dot8(q, r.Embedding)) / (norm8(q) * norm8(r.Embedding))
		if !f.HasSem || math.Abs(f.Sem-exact) > 0.02 {
			t.Errorf("similarity of %s = %v (has %v), exact %v", r.ID, f.Sem, f.HasSem, exact)
		}
	}
	if got := by[a.ID].Record.AccessCount; got != 6 {
		t.Errorf("access count of a = %d, want 4 + 2 touches", got)
	}
	sameSet(t, "speakers of a", by[a.ID].Speakers, []string{"maria", "jane doe"})
	if len(by[x.ID].Speakers) != 0 {
		t.Errorf("speakers of x = %v, want none", by[x.ID].Speakers)
	}
	if fs, err := ri.RankFields(bg, mnemo.Scope{Namespace: "rfields", Clearance: 2}, []string{hidden.ID}, q); err != nil || len(fs) != 1 {
		t.Errorf("RankFields at clearance 2: %v, %v", fs, err)
	}
	a.Importance, a.Text, a.UpdatedAt = 0.2, "Luis: no school today", base.Add(time.Minute)
	if err := s.Update(bg, a, "edit", "test"); err != nil {
		t.Fatal(err)
	}
	fs, err = ri.RankFields(bg, sc, []string{a.ID}, q)
	if err != nil || len(fs) != 1 || math.Abs(fs[0].Record.Importance-0.2) > 1e-6 || !slices.Contains(fs[0].Speakers, "luis") {
		t.Errorf("after an edit: %+v, %v", fs, err)
	}
	// VectorCodes ranks as Vector, with scores within the codes' bound.
	want, err := s.Vector(bg, sc, q, mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ri.VectorCodes(bg, sc, q, mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("VectorCodes gave %v, Vector %v", got, want)
	}
	for i := range got {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 0.02 {
			t.Errorf("VectorCodes[%d] = %v, Vector %v", i, got[i], want[i])
		}
	}
	if h, err := ri.VectorCodes(bg, sc, []float32{0, 0, 0, 0, 0, 0, 0, 0}, mnemo.Filter{}, 5); err != nil || len(h) != 0 {
		t.Errorf("VectorCodes of a zero vector: %v, %v", h, err)
	}
}

func dot8(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm8(a []float32) float64 { return math.Sqrt(dot8(a, a)) }
