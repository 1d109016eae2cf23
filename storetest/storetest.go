// Package storetest is the conformance suite every mnemo.Store must pass.
// A backend's tests call Run with a function that opens a new, empty store;
// the suite closes each store it opens.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/oklog/ulid/v2"
)

// Run runs every conformance test as a subtest of t. open must return a new,
// empty store each time it is called. claims are the optional capabilities
// the store declares (mnemo.Capabilities): it must implement exactly
// those, and each is checked.
func Run(t *testing.T, open func(t *testing.T) mnemo.Store, claims ...mnemo.Capability) {
	tests := []struct {
		name string
		fn   func(*testing.T, mnemo.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"InsertIdempotent", testInsertIdempotent},
		{"InsertInvalid", testInsertInvalid},
		{"NamespaceIsolation", testNamespaceIsolation},
		{"Clearance", testClearance},
		{"Filters", testFilters},
		{"AsOf", testAsOf},
		{"Deleted", testDeleted},
		{"UpdateHistory", testUpdateHistory},
		{"Touch", testTouch},
		{"Retrievals", testRetrievals},
		{"Embedder", testEmbedder},
		{"EachRecordSetEmbeddings", testEachRecord},
		{"KeywordHostile", testKeywordHostile},
		{"KeywordMultilingual", testKeywordMultilingual},
		{"KeywordRanking", testKeywordRanking},
		{"VectorRanking", testVectorRanking},
		{"ConcurrentInserts", testConcurrentInserts},
		{"ListPagination", testListPagination},
		{"ListByTime", testListByTime},
		{"Existing", testExisting},
		{"IDsPerNamespace", testIDsPerNamespace},
		{"EachRetrieval", testEachRetrieval},
		{"Purge", testPurge},
		{"Settings", testSettings},
		{"Threads", testThreads},
		{"HistoryRedacted", testHistoryRedacted},
		{"PurgeClearance", testPurgeClearance},
		{"Operator", testOperator},
		{"AsKnownAt", testAsKnownAt},
		{"WriteBatch", testWriteBatch},
		{"WriteBatchAtomic", testWriteBatchAtomic},
		{"WriteBatchReady", testWriteBatchReady},
	}
	pairs := []struct {
		name string
		fn   func(t *testing.T, a, b mnemo.Store)
	}{
		{"ClearanceStatistics", ClearanceStatistics},
	}
	for _, tt := range pairs {
		t.Run(tt.name, func(t *testing.T) {
			a, b := open(t), open(t)
			t.Cleanup(func() {
				for _, s := range []mnemo.Store{a, b} {
					if err := s.Close(); err != nil {
						t.Errorf("close: %v", err)
					}
				}
			})
			tt.fn(t, a, b)
		})
	}
	tests = append(tests, struct {
		name string
		fn   func(*testing.T, mnemo.Store)
	}{"Capabilities", func(t *testing.T, s mnemo.Store) { testCapabilities(t, s, claims) }})
	for _, ct := range capabilityTests {
		fn := ct.fn
		if !slices.Contains(claims, ct.cap) {
			fn = func(t *testing.T, _ mnemo.Store) { t.Skipf("the store does not claim capability %s", ct.cap) }
		}
		tests = append(tests, struct {
			name string
			fn   func(*testing.T, mnemo.Store)
		}{ct.name, fn})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			tt.fn(t, s)
		})
	}
}

// HostileQueries are keyword queries that must never cause an error.
var HostileQueries = []string{
	``, ` `, `"`, `""`, `"unterminated`, `'`, `''`, `*`, `**`, `alpha*`, `^alpha`, `-alpha`, `+alpha`,
	`alpha AND`, `AND`, `OR`, `NOT`, `alpha OR OR beta`, `NOT alpha`, `alpha NOT`, `NEAR(`, `NEAR(alpha beta, 2)`,
	`NEAR`, `(`, `)`, `((alpha)`, `text:alpha`, `{text}: alpha`, `records_fts:alpha`, `rank:1`, `col:`, `:`,
	`alpha:beta:gamma`, `a"b"c`, `\`, `\\"`, `%`, `_`, `alpha%`, `;DROP TABLE records;--`, `' OR 1=1 --`,
	`🔥🚀`, `alpha🔥beta`, `日本語のテキスト`, `Київ та Москва`, `ąęść żółw`, `café naïve`, "\x00", "alpha\x00beta",
	"\xff\xfe\xfd", "alpha\xffbeta", "\u200b\u200d", "e\u0301", "\u0301", `1.5e10`, `0x1F`, `-1`, `a-b-c`,
	`alpha - beta`, `$`, `@`, `#`, `~`, "\t\n\r", `.`, `..`, `...`, `!`, `?`, `<script>`, `AND OR NOT NEAR`,
	`the`, `и в на`, strings.Repeat("alpha ", 5000), strings.Repeat("x", 100000), strings.Repeat(`"(`, 3000),
	strings.Repeat("ab ", 200),
}

var (
	bg   = context.Background()
	base = time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
)

// newID returns a fresh time-ordered id.
func newID() string { return ulid.Make().String() }

// rec returns a minimal valid live record.
func rec(ns, text string) *mnemo.Record {
	return &mnemo.Record{
		ID: newID(), Namespace: ns, Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: "/",
		Text: text, Importance: 0.5, Confidence: 1, CreatedAt: base, UpdatedAt: base, ValidFrom: base,
		Tokens: len(strings.Fields(text)),
	}
}

// vec returns a deterministic unit-ish vector of dimension 8 for a seed.
func vec(seed int) []float32 {
	v := make([]float32, 8)
	for i := range v {
		v[i] = float32(math.Sin(float64(seed*31+i*7+1))) + 0.01
	}
	return v
}

func insert(t *testing.T, s mnemo.Store, recs ...*mnemo.Record) {
	t.Helper()
	skipped, err := s.Insert(bg, recs, "", "test")
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	if skipped != 0 {
		t.Fatalf("insert skipped %d records, want 0", skipped)
	}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := mnemo.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

// canon returns r as JSON with times in UTC, plus its embedding, for comparison.
func canon(t *testing.T, r *mnemo.Record) string {
	t.Helper()
	c := *r
	utc := func(p *time.Time) *time.Time {
		if p == nil {
			return nil
		}
		u := p.UTC()
		return &u
	}
	c.CreatedAt, c.UpdatedAt, c.ValidFrom = c.CreatedAt.UTC(), c.UpdatedAt.UTC(), c.ValidFrom.UTC()
	c.LastAccessedAt, c.ValidTo, c.DeletedAt = utc(c.LastAccessedAt), utc(c.ValidTo), utc(c.DeletedAt)
	b, err := json.Marshal(struct {
		R   mnemo.Record
		Emb []float32
	}{c, c.Embedding})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func recordIDs(recs []*mnemo.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

func hitIDs(hits []mnemo.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func sorted(a []string) []string {
	b := slices.Clone(a)
	sort.Strings(b)
	if b == nil {
		b = []string{}
	}
	return b
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := sorted(got), sorted(want)
	if !slices.Equal(g, w) {
		t.Errorf("%s = %v, want %v", what, g, w)
	}
}

func ptr(t time.Time) *time.Time { return &t }

func testRoundTrip(t *testing.T, s mnemo.Store) {
	accessed := base.Add(5 * time.Minute)
	validTo := base.Add(100 * 365 * 24 * time.Hour)
	dec := &mnemo.Record{
		ID: newID(), Namespace: "rt", Layer: mnemo.LayerWorkflow, Kind: mnemo.KindDecision,
		Scope: "/arch/storage", Text: "Use SQLite as the embedded store",
		Decision: &mnemo.Decision{Title: "Embedded store", Context: "single binary", Decision: "SQLite via modernc",
			Alternatives: []mnemo.Alternative{{Option: "bolt", Reason: "no SQL"}, {Option: "cgo sqlite"}},
			Consequences: "pure Go", Principle: "no setup", Status: "accepted",
			Constrains: []string{"d1", "d2"}, DependsOn: []string{"d0"}},
		Importance: 0.9, Confidence: 0.7, Criticality: 0.3, Source: "import:adr",
		Provenance: []string{"doc:adr/0001.md", "commit:abc123"}, Component: "store",
		Tags: []string{"storage", "adr"}, Mission: "mnemo", Thread: "session-7", AccessLevel: 2,
		CreatedAt: base, UpdatedAt: base.Add(time.Minute), LastAccessedAt: &accessed, AccessCount: 3,
		ValidFrom: base.Add(-time.Hour), ValidTo: &validTo, SupersededBy: "", Tokens: 42,
		Embedding: []float32{0.25, -0.5, 1e-7, 3.5, -0, 0.125, 7, -9.75},
	}
	cor := &mnemo.Record{
		ID: newID(), Namespace: "rt", Layer: mnemo.LayerPractitioner, Kind: mnemo.KindCorrection,
		Scope: "/ops", Text: "Operator prefers short answers",
		Correction: &mnemo.Correction{Class: "style", Category: "verbosity", Component: "digest",
			Outcome: mnemo.OutcomeModified, Summary: "shorten", RetrievalID: "r1", MissingContext: true},
		Importance: 0.1, Confidence: 0.5, Criticality: 1, Source: "observed", AccessLevel: 0,
		CreatedAt: base, UpdatedAt: base, ValidFrom: base, SupersededBy: "someone", Tokens: 5,
	}
	deleted := rec("rt", "gone but gettable")
	deleted.DeletedAt = ptr(base.Add(time.Second))
	insert(t, s, dec, cor, deleted)
	for _, want := range []*mnemo.Record{dec, cor, deleted} {
		got, err := s.Get(bg, mnemo.Scope{Namespace: "rt", Clearance: 10}, want.ID)
		if err != nil {
			t.Fatalf("get %s: %v", want.ID, err)
		}
		if g, w := canon(t, got), canon(t, want); g != w {
			t.Errorf("round trip of %s:\n got %s\nwant %s", want.Kind, g, w)
		}
	}
	got, err := s.GetMany(bg, mnemo.Scope{Namespace: "rt", Clearance: 10}, []string{dec.ID, "missing", cor.ID, dec.ID})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "GetMany", recordIDs(got), []string{dec.ID, cor.ID})
	for _, r := range got {
		if r.ID == dec.ID && canon(t, r) != canon(t, dec) {
			t.Errorf("GetMany returned a different record than Get")
		}
	}
	if _, err := s.Get(bg, mnemo.Scope{Namespace: "rt", Clearance: 10}, "missing"); err == nil {
		t.Fatal("get of a missing id succeeded")
	} else {
		wantCode(t, err, mnemo.ENOTFOUND)
	}
}

func testInsertIdempotent(t *testing.T, s mnemo.Store) {
	a, b := rec("idem", "first text"), rec("idem", "second text")
	insert(t, s, a)
	changed := *a
	changed.Text = "changed text"
	skipped, err := s.Insert(bg, []*mnemo.Record{&changed, b}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 {
		t.Errorf("skipped = %d, want 1", skipped)
	}
	got, err := s.Get(bg, mnemo.Scope{Namespace: "idem"}, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "first text" {
		t.Errorf("existing record was overwritten: text %q", got.Text)
	}
	if n, err := s.Count(bg, "idem"); err != nil || n != 2 {
		t.Errorf("count = %d, %v; want 2", n, err)
	}
	hist, err := s.History(bg, mnemo.Scope{Namespace: "idem"}, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].Action != "create" {
		t.Errorf("history after a skipped insert = %+v, want one create", hist)
	}
	if skipped, err := s.Insert(bg, nil, "", ""); err != nil || skipped != 0 {
		t.Errorf("empty insert = %d, %v", skipped, err)
	}
}

func testInsertInvalid(t *testing.T, s mnemo.Store) {
	noID := rec("inv", "text")
	noID.ID = ""
	badNS := rec("bad namespace!", "text")
	noNS := rec("", "text")
	badLayer := rec("inv", "text")
	badLayer.Layer = "nope"
	empty := rec("inv", "   ")
	nan := rec("inv", "text")
	nan.Importance = math.NaN()
	for name, r := range map[string]*mnemo.Record{"nil": nil, "no id": noID, "bad namespace": badNS,
		"no namespace": noNS, "bad layer": badLayer, "empty text": empty, "NaN importance": nan} {
		_, err := s.Insert(bg, []*mnemo.Record{rec("inv", "ok"), r}, "", "")
		if mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: error %v, want code %s", name, err, mnemo.EINVALID)
		}
	}
	if n, _ := s.Count(bg, "inv"); n != 0 {
		t.Errorf("a rejected batch wrote %d records", n)
	}
	r := rec("inv", "x")
	if err := s.Update(bg, r, "update", ""); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("update of a missing record: %v, want %s", err, mnemo.ENOTFOUND)
	}
}

func testNamespaceIsolation(t *testing.T, s mnemo.Store) {
	a, b := rec("ns-a", "shared walrus text"), rec("ns-b", "shared walrus text")
	a.Embedding, b.Embedding = vec(1), vec(1)
	insert(t, s, a, b)
	sa, sb := mnemo.Scope{Namespace: "ns-a"}, mnemo.Scope{Namespace: "ns-b"}
	if _, err := s.Get(bg, sb, a.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("get across namespaces: %v", err)
	}
	if _, err := s.History(bg, sb, a.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("history across namespaces: %v", err)
	}
	got, err := s.GetMany(bg, sb, []string{a.ID, b.ID})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "GetMany in ns-b", recordIDs(got), []string{b.ID})
	list, err := s.List(bg, sa, mnemo.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "List ns-a", recordIDs(list), []string{a.ID})
	kw, err := s.Keyword(bg, sb, "walrus", mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "Keyword ns-b", hitIDs(kw), []string{b.ID})
	vh, err := s.Vector(bg, sa, vec(1), mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "Vector ns-a", hitIDs(vh), []string{a.ID})
	if n, _ := s.Count(bg, "ns-c"); n != 0 {
		t.Errorf("count of an empty namespace = %d", n)
	}
	if err := s.Touch(bg, "ns-b", []string{a.ID}, base); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Get(bg, sa, a.ID); r.AccessCount != 0 {
		t.Errorf("touch in ns-b changed a record of ns-a")
	}
	nss, err := s.Namespaces(bg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sorted(nss), []string{"ns-a", "ns-b"}) {
		t.Errorf("namespaces = %v", nss)
	}
}

func testClearance(t *testing.T, s mnemo.Store) {
	secret, open := rec("cl", "classified heron report"), rec("cl", "public heron report")
	secret.AccessLevel, open.AccessLevel = 5, 0
	secret.Embedding, open.Embedding = vec(2), vec(2)
	insert(t, s, secret, open)
	low, high := mnemo.Scope{Namespace: "cl", Clearance: 4}, mnemo.Scope{Namespace: "cl", Clearance: 5}

	_, errHidden := s.Get(bg, low, secret.ID)
	missing := newID()
	_, errMissing := s.Get(bg, low, missing)
	wantCode(t, errHidden, mnemo.ENOTFOUND)
	if strings.ReplaceAll(errHidden.Error(), secret.ID, "ID") != strings.ReplaceAll(errMissing.Error(), missing, "ID") {
		t.Errorf("hidden and missing errors differ: %q vs %q", errHidden, errMissing)
	}
	if _, err := s.Get(bg, high, secret.ID); err != nil {
		t.Errorf("get with clearance 5: %v", err)
	}
	_, errH := s.History(bg, low, secret.ID)
	wantCode(t, errH, mnemo.ENOTFOUND)
	if h, err := s.History(bg, high, secret.ID); err != nil || len(h) != 1 {
		t.Errorf("history with clearance: %v, %d revisions", err, len(h))
	}
	for _, c := range []struct {
		sc   mnemo.Scope
		want []string
	}{{low, []string{open.ID}}, {high, []string{open.ID, secret.ID}}} {
		got, err := s.GetMany(bg, c.sc, []string{secret.ID, open.ID})
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, fmt.Sprintf("GetMany clearance %d", c.sc.Clearance), recordIDs(got), c.want)
		list, err := s.List(bg, c.sc, mnemo.ListOptions{IncludeDeleted: true, IncludeHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, fmt.Sprintf("List clearance %d", c.sc.Clearance), recordIDs(list), c.want)
		kw, err := s.Keyword(bg, c.sc, "heron", mnemo.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, fmt.Sprintf("Keyword clearance %d", c.sc.Clearance), hitIDs(kw), c.want)
		vh, err := s.Vector(bg, c.sc, vec(2), mnemo.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, fmt.Sprintf("Vector clearance %d", c.sc.Clearance), hitIDs(vh), c.want)
	}
	if n, _ := s.Count(bg, "cl"); n != 2 {
		t.Errorf("count = %d, want 2 (all clearances)", n)
	}
}

// filterRecord is a fixture for testFilters.
type filterRecord struct {
	layer       mnemo.Layer
	kind        mnemo.Kind
	scope       string
	component   string
	mission     string
	tags        []string
	criticality float64
	ageHours    int
	outcome     string
}

// expect is the reference semantics of a Filter, written independently of
// any store.
func expect(r *mnemo.Record, f mnemo.Filter) bool {
	if len(f.Layers) > 0 && !slices.Contains(f.Layers, r.Layer) {
		return false
	}
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, r.Kind) {
		return false
	}
	if p := strings.TrimRight(f.ScopePrefix, "/"); p != "" && r.Scope != p && !strings.HasPrefix(r.Scope, p+"/") {
		return false
	}
	if f.Component != "" && r.Component != f.Component {
		return false
	}
	if f.Mission != "" && r.Mission != f.Mission {
		return false
	}
	if f.Thread != "" && r.Thread != f.Thread {
		return false
	}
	for _, tag := range f.Tags {
		if !slices.Contains(r.Tags, tag) {
			return false
		}
	}
	if r.Criticality < f.MinCriticality {
		return false
	}
	if f.Since != nil && r.CreatedAt.Before(*f.Since) {
		return false
	}
	if f.Until != nil && !r.CreatedAt.Before(*f.Until) {
		return false
	}
	if f.Outcome != "" && (r.Correction == nil || r.Correction.Outcome != f.Outcome) {
		return false
	}
	return true
}

func testFilters(t *testing.T, s mnemo.Store) {
	fixtures := []filterRecord{
		{mnemo.LayerDomain, mnemo.KindFact, "/a", "api", "m1", []string{"x"}, 0.1, 1, ""},
		{mnemo.LayerDomain, mnemo.KindFact, "/a/b", "db", "m1", []string{"x", "y"}, 0.5, 2, ""},
		{mnemo.LayerDomain, mnemo.KindFact, "/ab", "api", "m2", []string{"y"}, 0.9, 3, ""},
		{mnemo.LayerWorkflow, mnemo.KindDecision, "/", "", "m2", nil, 0.2, 4, ""},
		{mnemo.LayerWorkflow, mnemo.KindProcedure, "/c/d/e", "db", "", []string{"x", "y", "z"}, 0.7, 5, ""},
		{mnemo.LayerPractitioner, mnemo.KindCorrection, "/a", "api", "m1", []string{"z"}, 0.5, 6, mnemo.OutcomeAccepted},
		{mnemo.LayerPractitioner, mnemo.KindCorrection, "/ops", "", "m1", nil, 0.95, 7, mnemo.OutcomeRejected},
		{mnemo.LayerPractitioner, mnemo.KindPreference, "/a/bc", "db", "m2", []string{"x"}, 0, 8, ""},
	}
	var recs []*mnemo.Record
	for i, fx := range fixtures {
		r := rec("flt", fmt.Sprintf("zebra crossing number %d", i))
		r.Layer, r.Kind, r.Scope, r.Component, r.Mission = fx.layer, fx.kind, fx.scope, fx.component, fx.mission
		r.Tags, r.Criticality = fx.tags, fx.criticality
		if i%3 != 2 {
			r.Thread = fmt.Sprintf("t%d", i%3)
		}
		r.CreatedAt = base.Add(-time.Duration(fx.ageHours) * time.Hour)
		r.UpdatedAt, r.ValidFrom = r.CreatedAt, r.CreatedAt
		if fx.outcome != "" {
			r.Correction = &mnemo.Correction{Outcome: fx.outcome, Summary: "s"}
		}
		if fx.kind == mnemo.KindDecision {
			r.Decision = &mnemo.Decision{Title: "t"}
		}
		r.Embedding = vec(100 + i)
		r.Embedding[0] += 5 // every vector close to the query
		recs = append(recs, r)
	}
	insert(t, s, recs...)
	query := vec(0)
	query[0] += 5
	cases := []struct {
		name string
		f    mnemo.Filter
	}{
		{"none", mnemo.Filter{}},
		{"layers", mnemo.Filter{Layers: []mnemo.Layer{mnemo.LayerDomain, mnemo.LayerPractitioner}}},
		{"kinds", mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindCorrection}}},
		{"scope /a", mnemo.Filter{ScopePrefix: "/a"}},
		{"scope /a/", mnemo.Filter{ScopePrefix: "/a/"}},
		{"scope /a/b", mnemo.Filter{ScopePrefix: "/a/b"}},
		{"scope /c", mnemo.Filter{ScopePrefix: "/c"}},
		{"scope /", mnemo.Filter{ScopePrefix: "/"}},
		{"component", mnemo.Filter{Component: "db"}},
		{"mission", mnemo.Filter{Mission: "m2"}},
		{"thread", mnemo.Filter{Thread: "t1"}},
		{"thread and mission", mnemo.Filter{Thread: "t0", Mission: "m1"}},
		{"tag x", mnemo.Filter{Tags: []string{"x"}}},
		{"tags x y", mnemo.Filter{Tags: []string{"x", "y"}}},
		{"min criticality", mnemo.Filter{MinCriticality: 0.5}},
		{"since", mnemo.Filter{Since: ptr(base.Add(-4 * time.Hour))}},
		{"until", mnemo.Filter{Until: ptr(base.Add(-4 * time.Hour))}},
		{"since until", mnemo.Filter{Since: ptr(base.Add(-6 * time.Hour)), Until: ptr(base.Add(-2 * time.Hour))}},
		{"outcome", mnemo.Filter{Outcome: mnemo.OutcomeAccepted}},
		{"combined", mnemo.Filter{ScopePrefix: "/a", Component: "api", Tags: []string{"x"}, Mission: "m1"}},
		{"nothing", mnemo.Filter{Component: "api", Kinds: []mnemo.Kind{mnemo.KindProcedure}}},
	}
	sc := mnemo.Scope{Namespace: "flt"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			for _, r := range recs {
				if expect(r, c.f) {
					want = append(want, r.ID)
				}
			}
			if len(want) == 0 && c.name != "nothing" {
				t.Fatalf("fixture yields no record for %s", c.name)
			}
			list, err := s.List(bg, sc, mnemo.ListOptions{Filter: c.f, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, "List", recordIDs(list), want)
			kw, err := s.Keyword(bg, sc, "zebra", c.f, 1000)
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, "Keyword", hitIDs(kw), want)
			vh, err := s.Vector(bg, sc, query, c.f, 1000)
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, "Vector", hitIDs(vh), want)
		})
	}
}

func testAsOf(t *testing.T, s mnemo.Store) {
	t0, t1 := base.Add(-48*time.Hour), base.Add(-24*time.Hour)
	old, cur := rec("asof", "capital owl fact old"), rec("asof", "capital owl fact new")
	old.CreatedAt, old.ValidFrom, old.ValidTo, old.SupersededBy = t0, t0, ptr(t1), cur.ID
	cur.CreatedAt, cur.ValidFrom = t1, t1
	future := rec("asof", "capital owl fact future")
	future.ValidFrom = time.Now().UTC().Add(24 * time.Hour)
	old.Embedding, cur.Embedding, future.Embedding = vec(3), vec(3), vec(3)
	insert(t, s, old, cur, future)
	sc := mnemo.Scope{Namespace: "asof"}
	cases := []struct {
		name string
		asOf *time.Time
		want []string
	}{
		{"now", nil, []string{cur.ID}},
		{"between", ptr(t0.Add(time.Hour)), []string{old.ID}},
		{"at valid_from", ptr(t0), []string{old.ID}},
		{"at valid_to", ptr(t1), []string{cur.ID}},
		{"before", ptr(t0.Add(-time.Hour)), nil},
		{"in the future", ptr(future.ValidFrom.Add(time.Hour)), []string{cur.ID, future.ID}},
	}
	for _, c := range cases {
		f := mnemo.Filter{AsOf: c.asOf}
		list, err := s.List(bg, sc, mnemo.ListOptions{Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, c.name+": List", recordIDs(list), c.want)
		kw, err := s.Keyword(bg, sc, "owl", f, 10)
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, c.name+": Keyword", hitIDs(kw), c.want)
		vh, err := s.Vector(bg, sc, vec(3), f, 10)
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, c.name+": Vector", hitIDs(vh), c.want)
	}
	all, err := s.List(bg, sc, mnemo.ListOptions{IncludeHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "List IncludeHistory", recordIDs(all), []string{old.ID, cur.ID, future.ID})
	if n, _ := s.Count(bg, "asof"); n != 1 {
		t.Errorf("count = %d, want 1 live record", n)
	}
}

func testDeleted(t *testing.T, s mnemo.Store) {
	live, gone := rec("del", "lynx alive"), rec("del", "lynx forgotten")
	gone.DeletedAt = ptr(base)
	live.Embedding, gone.Embedding = vec(4), vec(4)
	insert(t, s, live, gone)
	sc := mnemo.Scope{Namespace: "del"}
	if r, err := s.Get(bg, sc, gone.ID); err != nil || r.DeletedAt == nil {
		t.Errorf("get of a deleted record: %v", err)
	}
	list, _ := s.List(bg, sc, mnemo.ListOptions{})
	sameSet(t, "List", recordIDs(list), []string{live.ID})
	list, _ = s.List(bg, sc, mnemo.ListOptions{IncludeDeleted: true})
	sameSet(t, "List IncludeDeleted", recordIDs(list), []string{live.ID, gone.ID})
	kw, err := s.Keyword(bg, sc, "lynx", mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "Keyword", hitIDs(kw), []string{live.ID})
	vh, err := s.Vector(bg, sc, vec(4), mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "Vector", hitIDs(vh), []string{live.ID})
	if n, _ := s.Count(bg, "del"); n != 1 {
		t.Errorf("count = %d, want 1", n)
	}
	// Forget the live one through Update and check every channel again.
	if _, err := s.Keyword(bg, sc, "lynx", mnemo.Filter{}, 10); err != nil { // warm any index
		t.Fatal(err)
	}
	live.DeletedAt = ptr(base.Add(time.Minute))
	if err := s.Update(bg, live, "forget", "op"); err != nil {
		t.Fatal(err)
	}
	kw, _ = s.Keyword(bg, sc, "lynx", mnemo.Filter{}, 10)
	vh, _ = s.Vector(bg, sc, vec(4), mnemo.Filter{}, 10)
	list, _ = s.List(bg, sc, mnemo.ListOptions{})
	if len(kw)+len(vh)+len(list) != 0 {
		t.Errorf("forgotten record still found: keyword %v vector %v list %d", kw, vh, len(list))
	}
}

func testUpdateHistory(t *testing.T, s mnemo.Store) {
	r := rec("upd", "the badger sleeps")
	r.Embedding = vec(5)
	insert(t, s, r)
	sc := mnemo.Scope{Namespace: "upd"}
	if _, err := s.Keyword(bg, sc, "badger", mnemo.Filter{}, 10); err != nil { // warm any index
		t.Fatal(err)
	}
	r.Text, r.Embedding, r.Tags = "the falcon hunts", vec(6), []string{"bird"}
	r.UpdatedAt = base.Add(time.Minute)
	if err := s.Update(bg, r, "update", "alice"); err != nil {
		t.Fatal(err)
	}
	r.Importance = 0.05
	if err := s.Update(bg, r, "archive", "bob"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(bg, sc, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if canon(t, got) != canon(t, r) {
		t.Errorf("after update:\n got %s\nwant %s", canon(t, got), canon(t, r))
	}
	if kw, _ := s.Keyword(bg, sc, "badger", mnemo.Filter{}, 10); len(kw) != 0 {
		t.Errorf("old text still matches: %v", kw)
	}
	if kw, _ := s.Keyword(bg, sc, "falcon", mnemo.Filter{Tags: []string{"bird"}}, 10); len(kw) != 1 {
		t.Errorf("new text and tag do not match: %v", kw)
	}
	vh, err := s.Vector(bg, sc, vec(6), mnemo.Filter{}, 1)
	if err != nil || len(vh) != 1 || vh[0].Score < 0.999 {
		t.Errorf("vector after update = %v, %v; want the new vector with cosine 1", vh, err)
	}
	hist, err := s.History(bg, sc, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for i, h := range hist {
		actions = append(actions, h.Action+"/"+h.Actor)
		if h.Record == nil || h.Record.ID != r.ID {
			t.Fatalf("revision %d has no record", i)
		}
		if i > 0 && (h.Seq <= hist[i-1].Seq || h.At.Before(hist[i-1].At)) {
			t.Errorf("revisions out of order: %+v", hist)
		}
	}
	if strings.Join(actions, ",") != "create/test,update/alice,archive/bob" {
		t.Errorf("history actions = %v", actions)
	}
	if len(hist) == 3 && (hist[0].Record.Text != "the badger sleeps" || hist[2].Record.Importance != 0.05) {
		t.Errorf("revisions do not hold the record as it was")
	}
}

func testTouch(t *testing.T, s mnemo.Store) {
	a, b := rec("touch", "a"), rec("touch", "b")
	insert(t, s, a, b)
	at := base.Add(30 * time.Minute)
	for range 2 {
		if err := s.Touch(bg, "touch", []string{a.ID, "missing"}, at); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Get(bg, mnemo.Scope{Namespace: "touch"}, a.ID)
	if got.AccessCount != 2 || got.LastAccessedAt == nil || !got.LastAccessedAt.Equal(at) {
		t.Errorf("after touch: count %d, last %v", got.AccessCount, got.LastAccessedAt)
	}
	got, _ = s.Get(bg, mnemo.Scope{Namespace: "touch"}, b.ID)
	if got.AccessCount != 0 || got.LastAccessedAt != nil {
		t.Errorf("untouched record changed")
	}
	if err := s.Touch(bg, "touch", nil, at); err != nil {
		t.Errorf("empty touch: %v", err)
	}
	// An edit of a touched record keeps its counters as read, and later
	// touches add to them.
	got, _ = s.Get(bg, mnemo.Scope{Namespace: "touch"}, a.ID)
	got.Text, got.UpdatedAt = "a, edited", base.Add(time.Hour)
	if err := s.Update(bg, got, "edit", "test"); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(bg, "touch", []string{a.ID}, at); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Get(bg, mnemo.Scope{Namespace: "touch"}, a.ID); got.AccessCount != 3 || got.LastAccessedAt == nil || !got.LastAccessedAt.Equal(at) {
		t.Errorf("after an edit and a touch: count %d, last %v; want 3 and %v", got.AccessCount, got.LastAccessedAt, at)
	}
}

func testRetrievals(t *testing.T, s mnemo.Store) {
	for i := range 3 {
		l := mnemo.RetrievalLog{ID: newID(), Namespace: "ret", At: base.Add(time.Duration(i) * time.Minute),
			Operation: "digest", Query: fmt.Sprintf("query %d", i), Caller: "cli", Session: "s1",
			IDs: []string{"a", "b"}, Scores: []float64{0.9, 0.25}}
		if err := s.LogRetrieval(bg, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.LogRetrieval(bg, mnemo.RetrievalLog{ID: newID(), Namespace: "other", At: base, Operation: "recall"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Retrievals(bg, "ret", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Query != "query 2" || got[1].Query != "query 1" {
		t.Fatalf("retrievals = %+v", got)
	}
	g := got[0]
	if g.Namespace != "ret" || g.Operation != "digest" || g.Caller != "cli" || g.Session != "s1" ||
		!g.At.Equal(base.Add(2*time.Minute)) || !slices.Equal(g.IDs, []string{"a", "b"}) ||
		!slices.Equal(g.Scores, []float64{0.9, 0.25}) {
		t.Errorf("retrieval round trip = %+v", g)
	}
	if all, _ := s.Retrievals(bg, "ret", 0); len(all) != 3 {
		t.Errorf("retrievals with default limit = %d, want 3", len(all))
	}
}

func testEmbedder(t *testing.T, s mnemo.Store) {
	info, err := s.Embedder(bg)
	if err != nil || info != (mnemo.EmbedderInfo{}) {
		t.Fatalf("embedder of a new store = %+v, %v", info, err)
	}
	hash := mnemo.EmbedderInfo{Name: "hash", Dim: 384}
	if err := s.SetEmbedder(bg, hash, false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEmbedder(bg, hash, false); err != nil {
		t.Errorf("setting the same embedder again: %v", err)
	}
	other := mnemo.EmbedderInfo{Name: "openai:text-embedding-3-small", Dim: 1536}
	err = s.SetEmbedder(bg, other, false)
	wantCode(t, err, mnemo.EMISMATCH)
	if msg := mnemo.ErrorMessage(err); !strings.Contains(msg, "hash") || !strings.Contains(msg, other.Name) {
		t.Errorf("mismatch message %q does not name both embedders", msg)
	}
	if info, _ := s.Embedder(bg); info != hash {
		t.Errorf("a refused SetEmbedder changed the embedder to %+v", info)
	}
	if err := s.SetEmbedder(bg, other, true); err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Embedder(bg); info != other {
		t.Errorf("embedder after force = %+v", info)
	}
	wantCode(t, s.SetEmbedder(bg, mnemo.EmbedderInfo{}, true), mnemo.EINVALID)
}

func testEachRecord(t *testing.T, s mnemo.Store) {
	a, b, c := rec("each-1", "one"), rec("each-2", "two"), rec("each-1", "three")
	c.DeletedAt = ptr(base)
	a.Embedding, b.Embedding, c.Embedding = vec(7), vec(8), vec(9)
	insert(t, s, a, b, c)
	var seen []string
	err := s.EachRecord(bg, func(r *mnemo.Record) error {
		seen = append(seen, r.ID)
		return s.SetEmbeddings(bg, map[mnemo.RecordKey][]float32{{Namespace: r.Namespace, ID: r.ID}: vec(10)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, sorted([]string{a.ID, b.ID, c.ID})) {
		t.Errorf("EachRecord visited %v, want all three in id order", seen)
	}
	vh, err := s.Vector(bg, mnemo.Scope{Namespace: "each-1"}, vec(10), mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(vh) != 1 || vh[0].ID != a.ID || vh[0].Score < 0.999 {
		t.Errorf("vector after re-embedding = %v", vh)
	}
	got, _ := s.Get(bg, mnemo.Scope{Namespace: "each-2"}, b.ID)
	if !slices.Equal(got.Embedding, vec(10)) {
		t.Errorf("SetEmbeddings did not store the vector")
	}
	wantCode(t, s.SetEmbeddings(bg, map[mnemo.RecordKey][]float32{{Namespace: "each-1", ID: "missing"}: vec(1)}), mnemo.ENOTFOUND)
	wantCode(t, s.SetEmbeddings(bg, map[mnemo.RecordKey][]float32{{Namespace: "each-2", ID: a.ID}: vec(1)}), mnemo.ENOTFOUND)
	stop := fmt.Errorf("stop")
	if err := s.EachRecord(bg, func(*mnemo.Record) error { return stop }); err != stop {
		t.Errorf("EachRecord did not return fn's error: %v", err)
	}
}

func testKeywordHostile(t *testing.T, s mnemo.Store) {
	insert(t, s, rec("hostile", "alpha beta gamma"), rec("hostile", "column records body"),
		rec("hostile", "Київ and Москва"), rec("hostile", "café au lait"))
	sc := mnemo.Scope{Namespace: "hostile"}
	for _, q := range HostileQueries {
		if _, err := s.Keyword(bg, sc, q, mnemo.Filter{}, 10); err != nil {
			name := q
			if len(name) > 40 {
				name = name[:40] + "…"
			}
			t.Errorf("Keyword(%q): %v", name, err)
		}
	}
	for _, q := range []string{`"alpha`, `alpha*`, `text:alpha`, `NEAR(alpha`, `-alpha`, `alpha🔥`, "alpha\xff", `(alpha OR`} {
		hits, err := s.Keyword(bg, sc, q, mnemo.Filter{}, 10)
		if err != nil || len(hits) != 1 {
			t.Errorf("Keyword(%q) = %v, %v; want the alpha record", q, hits, err)
		}
	}
}

func testKeywordMultilingual(t *testing.T, s mnemo.Store) {
	ua, ru, fr := rec("ml", "Столиця України — Київ, місто над Дніпром"), rec("ml", "Москва стоит на реке Москве"),
		rec("ml", "Un café crème à Paris")
	stop := rec("ml", "to be or not to be")
	insert(t, s, ua, ru, fr, stop)
	sc := mnemo.Scope{Namespace: "ml"}
	for _, c := range []struct{ q, want string }{
		{"КИЇВ", ua.ID}, {"київ", ua.ID}, {"дніпром", ua.ID}, {"МОСКВА", ru.ID}, {"москва", ru.ID},
		{"cafe", fr.ID}, {"CAFÉ", fr.ID}, {"creme", fr.ID}, {"what is the cafe", fr.ID}, {"to be", stop.ID},
	} {
		hits, err := s.Keyword(bg, sc, c.q, mnemo.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].ID != c.want {
			t.Errorf("Keyword(%q) = %v, want %s first", c.q, hits, c.want)
		}
	}
}

func testKeywordRanking(t *testing.T, s mnemo.Store) {
	strong := rec("rank", "otter otter otter habitat")
	weak := rec("rank", "the river holds fish, stones, weeds and one otter among many other animals")
	none := rec("rank", "nothing relevant here")
	insert(t, s, strong, weak, none)
	hits, err := s.Keyword(bg, mnemo.Scope{Namespace: "rank"}, "otter", mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != strong.ID || hits[1].ID != weak.ID {
		t.Fatalf("hits = %v, want strong then weak", hits)
	}
	if !(hits[0].Score > hits[1].Score && hits[1].Score > 0) {
		t.Errorf("scores %v: want positive, higher is better", hits)
	}
	if hits, _ := s.Keyword(bg, mnemo.Scope{Namespace: "rank"}, "otter", mnemo.Filter{}, 1); len(hits) != 1 {
		t.Errorf("n=1 returned %d hits", len(hits))
	}
	if hits, err := s.Keyword(bg, mnemo.Scope{Namespace: "rank"}, "otter", mnemo.Filter{}, 0); err != nil || len(hits) != 0 {
		t.Errorf("n=0 returned %v, %v", hits, err)
	}
}

func testVectorRanking(t *testing.T, s mnemo.Store) {
	var recs []*mnemo.Record
	for i := range 20 {
		r := rec("vec", fmt.Sprintf("vector record %d", i))
		r.Embedding = vec(200 + i)
		recs = append(recs, r)
	}
	noVec := rec("vec", "record without a vector")
	insert(t, s, append(recs, noVec)...)
	sc := mnemo.Scope{Namespace: "vec"}
	// Scaling the query must not change cosine ranking.
	q := vec(207)
	for i := range q {
		q[i] *= 3
	}
	hits, err := s.Vector(bg, sc, q, mnemo.Filter{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 || hits[0].ID != recs[7].ID || math.Abs(hits[0].Score-1) > 1e-4 {
		t.Fatalf("hits = %v, want %s first with cosine 1", hits, recs[7].ID)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not sorted: %v", hits)
		}
	}
	all, _ := s.Vector(bg, sc, q, mnemo.Filter{}, 100)
	if len(all) != 20 {
		t.Errorf("vector returned %d hits, want the 20 records with vectors", len(all))
	}
	if _, err := s.Vector(bg, sc, nil, mnemo.Filter{}, 5); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("empty query vector: %v, want %s", err, mnemo.EINVALID)
	}
}

func testConcurrentInserts(t *testing.T, s mnemo.Store) {
	const workers, batches, per = 4, 5, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*batches)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				var recs []*mnemo.Record
				for i := range per {
					r := rec("conc", fmt.Sprintf("worker %d batch %d record %d", w, b, i))
					r.Embedding = vec(w*1000 + b*10 + i)
					recs = append(recs, r)
				}
				if _, err := s.Insert(bg, recs, "", ""); err != nil {
					errs <- err
				}
				if _, err := s.Keyword(bg, mnemo.Scope{Namespace: "conc"}, "worker", mnemo.Filter{}, 5); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n, _ := s.Count(bg, "conc"); n != workers*batches*per {
		t.Errorf("count = %d, want %d", n, workers*batches*per)
	}
	hits, _ := s.Vector(bg, mnemo.Scope{Namespace: "conc"}, vec(1), mnemo.Filter{}, 1000)
	if len(hits) != workers*batches*per {
		t.Errorf("vector sees %d records, want %d", len(hits), workers*batches*per)
	}
}

// testListByTime: ByTime orders by created_at, newest first, equal times by
// id descending, whatever the ids; with a thread filter and a time window,
// as the write path asks for a thread's latest records.
func testListByTime(t *testing.T, s mnemo.Store) {
	ages := []int{5, 1, 9, 1, 3, 7} // hours before base; ids ascend in this order
	var recs []*mnemo.Record
	for i, h := range ages {
		r := rec("bytime", fmt.Sprintf("turn %d", i))
		r.CreatedAt = base.Add(-time.Duration(h) * time.Hour)
		r.UpdatedAt, r.ValidFrom = r.CreatedAt, r.CreatedAt
		r.Thread = "chat"
		recs = append(recs, r)
	}
	other := rec("bytime", "another thread")
	other.Thread = "other"
	insert(t, s, append(recs, other)...)
	want := []string{recs[3].ID, recs[1].ID, recs[4].ID, recs[0].ID, recs[5].ID, recs[2].ID}
	sc := mnemo.Scope{Namespace: "bytime"}
	got, err := s.List(bg, sc, mnemo.ListOptions{Filter: mnemo.Filter{Thread: "chat"}, ByTime: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recordIDs(got), want) {
		t.Errorf("by time = %v\nwant %v", recordIDs(got), want)
	}
	until := base.Add(-3 * time.Hour)
	got, err = s.List(bg, sc, mnemo.ListOptions{Filter: mnemo.Filter{Thread: "chat", Until: &until}, ByTime: true, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recordIDs(got), []string{recs[0].ID}) {
		t.Errorf("latest before -3h = %v, want %v", recordIDs(got), recs[0].ID)
	}
	if _, err := s.List(bg, sc, mnemo.ListOptions{ByTime: true, After: recs[0].ID}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("ByTime with an id cursor: %v, want %s", err, mnemo.EINVALID)
	}
}

func testListPagination(t *testing.T, s mnemo.Store) {
	var want []string
	for i := range 25 {
		r := rec("page", fmt.Sprintf("page record %d", i))
		insert(t, s, r)
		want = append(want, r.ID)
	}
	slices.Reverse(want)
	sc := mnemo.Scope{Namespace: "page"}
	var got []string
	after := ""
	for range 10 {
		page, err := s.List(bg, sc, mnemo.ListOptions{Limit: 10, After: after})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recordIDs(page)...)
		if len(page) < 10 {
			break
		}
		after = page[len(page)-1].ID
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages = %v\nwant %v", got, want)
	}
	all, _ := s.List(bg, sc, mnemo.ListOptions{})
	if len(all) != 25 {
		t.Errorf("default limit returned %d", len(all))
	}
	if _, err := s.List(bg, sc, mnemo.ListOptions{Limit: -1}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("negative limit: %v", err)
	}
}

// testExisting: Existing finds the ids of one namespace, forgotten ones
// included, and nothing of another namespace's.
func testExisting(t *testing.T, s mnemo.Store) {
	a, b, gone := rec("loc-a", "alpha"), rec("loc-b", "beta"), rec("loc-a", "gamma")
	now := base
	gone.DeletedAt = &now
	insert(t, s, a, b, gone)
	got, err := s.Existing(bg, "loc-a", []string{a.ID, b.ID, gone.ID, "no-such-id", "", "bad\x00id"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{a.ID: true, gone.ID: true}
	if !maps.Equal(got, want) {
		t.Errorf("Existing = %v, want %v", got, want)
	}
	if got, err := s.Existing(bg, "loc-a", nil); err != nil || len(got) != 0 {
		t.Errorf("Existing(nil) = %v, %v", got, err)
	}
	many := make([]string, 1200) // more than one query's worth
	for i := range many {
		many[i] = fmt.Sprintf("missing-%d", i)
	}
	many[1100] = b.ID
	if got, err := s.Existing(bg, "loc-b", many); err != nil || !maps.Equal(got, map[string]bool{b.ID: true}) {
		t.Errorf("Existing(1200 ids) = %v, %v", got, err)
	}
}

// testIDsPerNamespace: record ids are unique per namespace. Two namespaces
// hold records under the same id, each its own: reads, updates, history,
// searches, touches, vectors and purges of one never see or change the
// other's, and inserting the id again is skipped only in its own namespace.
func testIDsPerNamespace(t *testing.T, s mnemo.Store) {
	a, b := rec("ids-a", "heron report of namespace a"), rec("ids-b", "otter note of namespace b")
	b.ID = a.ID
	a.Embedding, b.Embedding = vec(31), vec(32)
	insert(t, s, a)
	insert(t, s, b)
	sa, sb := mnemo.Scope{Namespace: "ids-a"}, mnemo.Scope{Namespace: "ids-b"}
	for _, c := range []struct {
		sc   mnemo.Scope
		text string
	}{{sa, a.Text}, {sb, b.Text}} {
		got, err := s.Get(bg, c.sc, a.ID)
		if err != nil || got.Text != c.text || got.Namespace != c.sc.Namespace {
			t.Errorf("Get in %s = %+v %v, want %q", c.sc.Namespace, got, err, c.text)
		}
		many, err := s.GetMany(bg, c.sc, []string{a.ID})
		if err != nil || len(many) != 1 || many[0].Text != c.text {
			t.Errorf("GetMany in %s = %v %v", c.sc.Namespace, many, err)
		}
	}
	if kw, _ := s.Keyword(bg, sb, "heron", mnemo.Filter{}, 10); len(kw) != 0 {
		t.Errorf("namespace b finds a's words: %v", kw)
	}
	if n, err := s.Insert(bg, []*mnemo.Record{rec("ids-b", "again")}, "", "test"); err != nil || n != 0 {
		t.Errorf("a fresh record: skipped %d, %v", n, err)
	}
	dup := rec("ids-a", "a third text")
	dup.ID = a.ID
	if n, err := s.Insert(bg, []*mnemo.Record{dup}, "", "test"); err != nil || n != 1 {
		t.Errorf("inserting an id its namespace holds: skipped %d, %v; want 1", n, err)
	}
	b.Text, b.UpdatedAt = "otter note, edited", base.Add(time.Minute)
	if err := s.Update(bg, b, "update", "test"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(bg, sa, a.ID); got.Text != a.Text {
		t.Errorf("updating b's record changed a's: %q", got.Text)
	}
	if h, err := s.History(bg, sa, a.ID); err != nil || len(h) != 1 {
		t.Errorf("history of a's record: %d revisions, %v; want 1", len(h), err)
	}
	if err := s.SetEmbeddings(bg, map[mnemo.RecordKey][]float32{{Namespace: "ids-b", ID: a.ID}: vec(33)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(bg, sa, a.ID); !slices.Equal(got.Embedding, a.Embedding) {
		t.Errorf("b's new vector reached a's record")
	}
	if err := s.Touch(bg, "ids-b", []string{a.ID}, base); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(bg, sa, a.ID); got.AccessCount != 0 {
		t.Errorf("touching b's record counted on a's: %d", got.AccessCount)
	}
	var seen []string
	if err := s.EachRecord(bg, func(r *mnemo.Record) error {
		if r.ID == a.ID {
			seen = append(seen, r.Namespace)
		}
		return nil
	}); err != nil || !slices.Equal(seen, []string{"ids-a", "ids-b"}) {
		t.Errorf("EachRecord saw the shared id in %v (%v), want both namespaces in order", seen, err)
	}
	d := base.Add(-48 * time.Hour)
	b.DeletedAt = &d
	if err := s.Update(bg, b, "forget", "test"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Purge(bg, sb, base); err != nil || n != 1 {
		t.Errorf("purge of b: %d %v", n, err)
	}
	if got, err := s.Get(bg, sa, a.ID); err != nil || got.Text != a.Text {
		t.Errorf("purging b's record took a's: %v", err)
	}
	if got, _ := s.Existing(bg, "ids-a", []string{a.ID}); !got[a.ID] {
		t.Errorf("a's record is gone after b's purge")
	}
}

// testEachRetrieval: EachRetrieval pages through a namespace's log in time
// order, within [since, until), and stops at fn's error.
func testEachRetrieval(t *testing.T, s mnemo.Store) {
	var logs []mnemo.RetrievalLog
	for i := range 2500 {
		ns := "eachret"
		if i%5 == 4 {
			ns = "eachret-other"
		}
		logs = append(logs, mnemo.RetrievalLog{ID: fmt.Sprintf("r%04d", i), Namespace: ns,
			At: base.Add(time.Duration(i/2) * time.Minute), Operation: "recall", Query: "q", IDs: []string{"a"}, Scores: []float64{0.5}})
	}
	if err := s.LogRetrieval(bg, logs...); err != nil {
		t.Fatal(err)
	}
	var got []string
	since, until := base.Add(100*time.Minute), base.Add(1100*time.Minute)
	err := s.EachRetrieval(bg, "eachret", since, until, func(l mnemo.RetrievalLog) error {
		got = append(got, l.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range logs {
		if l.Namespace == "eachret" && !l.At.Before(since) && l.At.Before(until) {
			want = append(want, l.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %d entries (first %v), want %d", len(got), got[:min(3, len(got))], len(want))
	}
	n := 0
	if err := s.EachRetrieval(bg, "eachret", time.Time{}, time.Time{}, func(mnemo.RetrievalLog) error { n++; return nil }); err != nil || n != 2000 {
		t.Errorf("whole log: %d entries, %v; want 2000", n, err)
	}
	stop := errors.New("stop")
	n = 0
	if err := s.EachRetrieval(bg, "eachret", time.Time{}, time.Time{}, func(mnemo.RetrievalLog) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn's error: %v after %d calls", err, n)
	}
}

// testPurge: Purge hard-deletes only the records forgotten before the
// cutoff, with their history; searches that had loaded them stop finding
// them; live and recently forgotten records stay.
func testPurge(t *testing.T, s mnemo.Store) {
	live, old, recent := rec("purge", "heron live record"), rec("purge", "heron forgotten long ago"), rec("purge", "heron forgotten lately")
	other := rec("purge-other", "heron in another namespace")
	longAgo, lately := base.Add(-48*time.Hour), base.Add(-time.Hour)
	old.DeletedAt, recent.DeletedAt, other.DeletedAt = &longAgo, &lately, &longAgo
	for i, r := range []*mnemo.Record{live, old, recent, other} {
		r.Embedding = vec(500 + i)
	}
	insert(t, s, live, old, recent, other)
	sc := mnemo.Scope{Namespace: "purge", Clearance: mnemo.MaxAccessLevel}
	// Load the namespace's indexes first, so the purge must reach them.
	if _, err := s.Keyword(bg, sc, "heron", mnemo.Filter{}, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(bg, sc, mnemo.ListOptions{IncludeDeleted: true}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Purge(bg, sc, base.Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("purge: %d %v, want 1", n, err)
	}
	if _, err := s.Get(bg, sc, old.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("purged record: %v, want %s", err, mnemo.ENOTFOUND)
	}
	if revs, err := s.History(bg, sc, old.ID); err == nil && len(revs) > 0 {
		t.Errorf("purged record kept %d revisions", len(revs))
	}
	all, err := s.List(bg, sc, mnemo.ListOptions{IncludeDeleted: true, IncludeHistory: true})
	if err != nil || !slices.Equal(recordIDs(all), []string{recent.ID, live.ID}) && !slices.Equal(recordIDs(all), []string{live.ID, recent.ID}) {
		t.Errorf("after purge the namespace holds %v (%v), want %s and %s", recordIDs(all), err, live.ID, recent.ID)
	}
	if got, _ := s.Existing(bg, "purge", []string{old.ID}); len(got) != 0 {
		t.Errorf("Existing after purge = %v", got)
	}
	if got, _ := s.Existing(bg, "purge-other", []string{other.ID}); !got[other.ID] {
		t.Errorf("the other namespace's forgotten record was purged")
	}
	if hits, _ := s.GetMany(bg, sc, []string{old.ID, live.ID}); len(hits) != 1 || hits[0].ID != live.ID {
		t.Errorf("GetMany after purge returned %v", recordIDs(hits))
	}
	if n, err := s.Purge(bg, sc, base.Add(-24*time.Hour)); err != nil || n != 0 {
		t.Errorf("second purge: %d %v", n, err)
	}
	if _, err := s.Purge(bg, mnemo.Scope{}, base); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("purge of an empty namespace name: %v", err)
	}
}

// testSettings: settings round-trip, overwrite, stay apart from the
// store's own meta, and refuse bad keys.
func testSettings(t *testing.T, s mnemo.Store) {
	if v, ok, err := s.Setting(bg, "tuning/ops"); err != nil || ok || v != "" {
		t.Fatalf("unset setting: %q %v %v", v, ok, err)
	}
	for _, v := range []string{`{"active":1}`, `{"active":2,"note":"ünïcode"}`} {
		if err := s.SetSetting(bg, "tuning/ops", v); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.Setting(bg, "tuning/ops"); err != nil || !ok || got != v {
			t.Fatalf("setting = %q %v %v, want %q", got, ok, err, v)
		}
	}
	if _, ok, _ := s.Setting(bg, "embedder"); ok {
		t.Error("a setting named embedder reads the store's own meta")
	}
	if err := s.SetSetting(bg, "", "x"); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("empty key: %v", err)
	}
	if err := s.SetSetting(bg, "k", "bad\xff"); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("invalid UTF-8 value: %v", err)
	}
}

// testThreads: Threads counts live, visible records per thread, newest
// activity first.
func testThreads(t *testing.T, s mnemo.Store) {
	mk := func(thread string, hours, level int, deleted bool) *mnemo.Record {
		r := rec("threads", fmt.Sprintf("turn of %s at %d", thread, hours))
		r.Thread, r.AccessLevel = thread, level
		r.CreatedAt = base.Add(time.Duration(hours) * time.Hour)
		r.UpdatedAt, r.ValidFrom = r.CreatedAt, r.CreatedAt
		if deleted {
			d := base
			r.DeletedAt = &d
		}
		return r
	}
	insert(t, s, mk("a", 1, 0, false), mk("a", 3, 0, false), mk("a", 2, 0, false), mk("b", 5, 0, false),
		mk("gone", 9, 0, true), mk("secret", 8, 3, false), mk("", 7, 0, false))
	got, err := s.Threads(bg, mnemo.Scope{Namespace: "threads", Clearance: 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []mnemo.ThreadInfo{
		{Name: "b", Records: 1, First: base.Add(5 * time.Hour), Last: base.Add(5 * time.Hour)},
		{Name: "a", Records: 3, First: base.Add(time.Hour), Last: base.Add(3 * time.Hour)},
	}
	if len(got) != len(want) {
		t.Fatalf("threads %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Records != want[i].Records || !got[i].First.Equal(want[i].First) || !got[i].Last.Equal(want[i].Last) {
			t.Errorf("thread %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if all, _ := s.Threads(bg, mnemo.Scope{Namespace: "threads", Clearance: 5}); len(all) != 3 || all[0].Name != "secret" {
		t.Errorf("with clearance 5: %+v", all)
	}
	if none, err := s.Threads(bg, mnemo.Scope{Namespace: "no-such-namespace"}); err != nil || none == nil || len(none) != 0 {
		t.Errorf("empty namespace: %v %v", none, err)
	}
}

// ClearanceQueries are the keyword queries of ClearanceStatistics.
var clearanceQueries = []string{
	"vault pin", "vault", "pin 4711", "heron vault report", "report", "heron", "quarterly report vault heron pin",
	"4711", "kestrel", "relay kestrel vault",
}

// ClearanceStatistics checks that a caller's keyword scores (and query-side IDF,
// when the store has one) are exactly those of a store that holds only the
// records it may see. a holds records at access levels 0 and 3 (some moved
// between levels after they were written); b only the level-0 ones, written
// in the same order. Nothing a clearance-0 caller gets from a may depend on
// the level-3 words.
func ClearanceStatistics(t *testing.T, a, b mnemo.Store) {
	const ns = "stats"
	type spec struct {
		text  string
		level int // the level it is written at
		final int // and the level it ends at
		gone  bool
	}
	specs := []spec{
		{"heron vault report for the quarter", 0, 0, false},
		{"the vault pin is 4711", 3, 3, false},
		{"vault vault vault access log", 3, 3, false},
		{"quarterly report on heron nesting", 0, 0, false},
		{"relay kestrel notes", 3, 0, false},                                                               // lowered: visible in the end
		{"kestrel vault checklist, a long text about the vault and the relay and more words", 0, 3, false}, // raised: hidden
		{"pin rotation procedure, report 4711", 3, 3, false},
		{"old heron report, forgotten", 0, 0, true},
		{"an unrelated note about lunch", 0, 0, false},
		{"vault heron heron", 3, 3, false},
	}
	for i, sp := range specs {
		r := rec(ns, sp.text)
		r.CreatedAt = base.Add(time.Duration(i) * time.Minute)
		r.UpdatedAt, r.ValidFrom = r.CreatedAt, r.CreatedAt
		r.AccessLevel = sp.level
		r.Embedding = vec(700 + i)
		insert(t, a, r)
		if sp.final != sp.level || sp.gone {
			r.AccessLevel = sp.final
			if sp.gone {
				d := r.CreatedAt.Add(time.Second)
				r.DeletedAt = &d
			}
			if err := a.Update(bg, r, "update", "test"); err != nil {
				t.Fatal(err)
			}
		}
		if sp.final == 0 {
			c := *r
			c.AccessLevel, c.DeletedAt = 0, nil
			insert(t, b, &c)
			if sp.gone {
				c.DeletedAt = r.DeletedAt
				if err := b.Update(bg, &c, "update", "test"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	low := mnemo.Scope{Namespace: ns, Clearance: 0}
	for _, q := range clearanceQueries {
		got, err := a.Keyword(bg, low, q, mnemo.Filter{}, 20)
		if err != nil {
			t.Fatal(err)
		}
		want, err := b.Keyword(bg, low, q, mnemo.Filter{}, 20)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Keyword %q at clearance 0 = %v, want %v (a store holding only the visible records)", q, got, want)
		}
	}
	type idfer interface {
		IDF(ctx context.Context, sc mnemo.Scope, text string) (map[string]float64, float64, error)
	}
	ia, ok1 := a.(idfer)
	ib, ok2 := b.(idfer)
	if ok1 && ok2 {
		for _, q := range clearanceQueries {
			ga, ua, err1 := ia.IDF(bg, low, q)
			gb, ub, err2 := ib.IDF(bg, low, q)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !maps.Equal(ga, gb) || ua != ub {
				t.Errorf("IDF %q at clearance 0 = %v (unseen %v), want %v (unseen %v)", q, ga, ua, gb, ub)
			}
		}
	}
	// A caller of full clearance sees the level-3 words.
	all := mnemo.Scope{Namespace: ns, Clearance: 3}
	if hits, err := a.Keyword(bg, all, "4711", mnemo.Filter{}, 20); err != nil || len(hits) != 2 {
		t.Errorf("Keyword 4711 at clearance 3 = %v %v, want both level-3 records", hits, err)
	}
}

// testHistoryRedacted: every revision of a record is judged by its own
// access level. A record written at level 3 and lowered to level 0 shows a
// clearance-0 caller its level-0 revision only; the level-3 one is a
// placeholder with its time, action and actor, and none of its text.
func testHistoryRedacted(t *testing.T, s mnemo.Store) {
	r := rec("hist", "the vault pin is 4711")
	r.AccessLevel = 3
	insert(t, s, r)
	r.Text, r.AccessLevel, r.UpdatedAt = "the vault has a pin", 0, base.Add(time.Minute)
	if err := s.Update(bg, r, "update", "alice"); err != nil {
		t.Fatal(err)
	}
	revs, err := s.History(bg, mnemo.Scope{Namespace: "hist"}, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 2 {
		t.Fatalf("history has %d revisions, want 2", len(revs))
	}
	if !revs[0].Redacted || revs[0].Record != nil || revs[0].Actor != "test" || revs[0].At.IsZero() || revs[0].Action == "" {
		t.Errorf("level-3 revision at clearance 0 = %+v, want a placeholder with time, action and actor", revs[0])
	}
	if revs[1].Redacted || revs[1].Record == nil || revs[1].Record.Text != "the vault has a pin" {
		t.Errorf("level-0 revision = %+v, want it whole", revs[1])
	}
	// The secret's words, not its digits alone: a revision's nanoseconds or
	// an id may hold "4711" by chance.
	b, _ := json.Marshal(revs)
	if strings.Contains(string(b), "pin is 4711") {
		t.Errorf("history at clearance 0 carries the level-3 text: %s", b)
	}
	all, err := s.History(bg, mnemo.Scope{Namespace: "hist", Clearance: 3}, r.ID)
	if err != nil || len(all) != 2 || all[0].Redacted || all[0].Record.Text != "the vault pin is 4711" {
		t.Errorf("history at clearance 3 = %+v, %v; want both revisions whole", all, err)
	}
}

// testPurgeClearance: a purge deletes and counts only the forgotten records
// the caller may see; one above its clearance stays, and the count does
// not reveal it.
func testPurgeClearance(t *testing.T, s mnemo.Store) {
	low, high := rec("pc", "forgotten public note"), rec("pc", "forgotten secret note")
	high.AccessLevel = 3
	longAgo := base.Add(-48 * time.Hour)
	low.DeletedAt, high.DeletedAt = &longAgo, &longAgo
	insert(t, s, low, high)
	n, err := s.Purge(bg, mnemo.Scope{Namespace: "pc"}, base)
	if err != nil || n != 1 {
		t.Fatalf("purge at clearance 0: %d %v, want 1", n, err)
	}
	all := mnemo.Scope{Namespace: "pc", Clearance: 3}
	if _, err := s.Get(bg, all, high.ID); err != nil {
		t.Errorf("the level-3 record was purged by a clearance-0 caller: %v", err)
	}
	if _, err := s.Get(bg, all, low.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("the level-0 record survived the purge: %v", err)
	}
	if n, err := s.Purge(bg, all, base); err != nil || n != 1 {
		t.Errorf("purge at clearance 3: %d %v, want 1", n, err)
	}
}
