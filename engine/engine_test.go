package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

var admin = mnemo.Caller{Name: "test", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}

type fixture struct {
	svc   *engine.Service
	store *sqlite.Store
	path  string
	now   time.Time
	tok   mnemo.Tokenizer
}

func open(t testing.TB, path string, mod func(*engine.Config)) *fixture {
	t.Helper()
	ctx := context.Background()
	if path == "" {
		path = filepath.Join(t.TempDir(), "m.db")
	}
	st, err := sqlite.Open(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenize.New("")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: st, path: path, now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), tok: tok}
	cfg := engine.Config{Store: st, Embedder: embed.NewHash(256), Tokenizer: tok, Now: func() time.Time { return f.now }}
	if mod != nil {
		mod(&cfg)
	}
	svc, err := engine.New(ctx, cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	f.svc = svc
	t.Cleanup(func() { svc.Close(); st.Close() })
	return f
}

func (f *fixture) remember(t *testing.T, ns string, recs ...mnemo.NewRecord) []mnemo.Written {
	t.Helper()
	out, err := f.svc.Remember(mnemo.WithCallerIn(context.Background(), admin, ns), recs, mnemo.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fp(v float64) *float64 { return &v }

func at(t time.Time) *time.Time { return &t }

func TestRecallRanksAndExplains(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "",
		mnemo.NewRecord{Text: "The deployment pipeline runs integration tests against PostgreSQL 15 before every release."},
		mnemo.NewRecord{Text: "Lunch options near the office include a ramen bar and a falafel stand."},
		mnemo.NewRecord{Text: "Release deployments are frozen on Fridays after 14:00 UTC.", Kind: mnemo.KindCore},
	)
	res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: "how do I deploy and test a release", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 {
		t.Fatalf("got %d hits, want >= 2", len(res.Hits))
	}
	if strings.Contains(res.Hits[0].Text, "ramen") {
		t.Fatalf("irrelevant record ranked first: %+v", res.Hits)
	}
	for _, h := range res.Hits {
		for _, k := range []string{"semantic", "keyword", "recency", "importance", "confidence", "frequency"} {
			if _, ok := h.Factors[k]; !ok {
				t.Fatalf("hit %s lacks factor %s: %v", h.ID, k, h.Factors)
			}
		}
		if h.Score < 0 || h.Score > 1 {
			t.Fatalf("score %v outside [0,1]", h.Score)
		}
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Fatalf("hits not sorted: %v then %v", res.Hits[i-1].Score, res.Hits[i].Score)
		}
	}
	if res.Intent != "howto" {
		t.Errorf("intent %q, want howto", res.Intent)
	}
	if len(res.Weights) == 0 {
		t.Error("no weights reported")
	}
}

func TestDigestNeverExceedsBudgetAndCountsExactly(t *testing.T) {
	f := open(t, "", nil)
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("relay satellite uplink budget storm pass antenna Svalbard operator decision rollback deploy схема решение правило безпека рішення café naïve 42 17:30 — «quoted» (paren) [x] {y} ```code``` \n\n line\ttab émoji🚀")
	var recs []mnemo.NewRecord
	for i := 0; i < 120; i++ {
		n := 5 + rng.Intn(60)
		var b strings.Builder
		for j := 0; j < n; j++ {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteString(" ")
		}
		r := mnemo.NewRecord{Text: b.String(), Layer: mnemo.Layers[rng.Intn(3)], Provenance: []string{fmt.Sprintf("doc:notes/%d.md", i)}}
		switch i % 10 {
		case 0:
			r.Kind = mnemo.KindCore
		case 1:
			r.Kind, r.Layer = mnemo.KindDecision, mnemo.LayerWorkflow
			r.Decision = &mnemo.Decision{Title: "T " + words[rng.Intn(len(words))], Decision: "do it", Context: "because\nreasons",
				Alternatives: []mnemo.Alternative{{Option: "other", Reason: "too slow"}}, Principle: "safety first"}
		}
		recs = append(recs, r)
	}
	f.remember(t, "", recs...)
	for _, budget := range []int{1, 10, 25, 40, 60, 100, 250, 500, 1000, 3000, 8000} {
		for _, task := range []string{"plan the uplink pass during the storm", "рішення про безпеку", "what did we decide yesterday?", "x"} {
			d, err := f.svc.Digest(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.DigestRequest{Task: task, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			exact := f.tok.Count(d.Markdown)
			if exact > budget {
				t.Fatalf("budget %d task %q: markdown has %d tokens:\n%s", budget, task, exact, d.Markdown)
			}
			if exact != d.UsedTokens {
				t.Fatalf("budget %d task %q: used_tokens %d but the markdown has %d tokens", budget, task, d.UsedTokens, exact)
			}
			if len(d.Entries)+d.Omitted+d.Weaker != d.Candidates {
				t.Fatalf("entries %d + omitted %d + weaker %d != candidates %d", len(d.Entries), d.Omitted, d.Weaker, d.Candidates)
			}
		}
	}
}

func TestDigestLayoutCoreFirstAndDecisionsRendered(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "",
		mnemo.NewRecord{Kind: mnemo.KindCore, Text: "Never command a burn without two-operator sign-off."},
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Night passes go through Svalbard.", Provenance: []string{"issue:OPS-412"},
			Decision: &mnemo.Decision{Title: "Route passes via Svalbard", Context: "Inuvik is in maintenance",
				Alternatives: []mnemo.Alternative{{Option: "Wait for Inuvik", Reason: "misses three days of telemetry"}}}},
		mnemo.NewRecord{Text: "Svalbard limits uplink power to 150 W at night."},
		mnemo.NewRecord{Kind: mnemo.KindCorrection, Text: "Operator corrects pass plans that omit the backup link.",
			Correction: &mnemo.Correction{Outcome: mnemo.OutcomeModified, MissingContext: true}},
	)
	d, err := f.svc.Digest(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.DigestRequest{Task: "plan the Svalbard night pass"})
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown
	iCore, iDom, iWf, iPr := strings.Index(md, "## Core"), strings.Index(md, "## Domain"), strings.Index(md, "## Workflow"), strings.Index(md, "## Practitioner")
	if !(0 < iCore && iCore < iDom && iDom < iWf && iWf < iPr) {
		t.Fatalf("sections out of order:\n%s", md)
	}
	for _, want := range []string{"rejected: Wait for Inuvik (misses three days of telemetry)", "why: Inuvik is in maintenance", "issue:OPS-412", "missing context"} {
		if !strings.Contains(md, want) {
			t.Errorf("digest lacks %q:\n%s", want, md)
		}
	}
	if d.Entries[0].Kind != mnemo.KindCore || d.Entries[0].Section != "core" {
		t.Errorf("first entry %+v, want the core record", d.Entries[0])
	}
	if _, err := f.svc.Digest(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.DigestRequest{Task: "x", Scope: "everything"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("bad scope: got %v, want EINVALID", err)
	}
	d, err = f.svc.Digest(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.DigestRequest{Task: "Svalbard pass", Scope: "workflow"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Entries {
		if e.Layer != mnemo.LayerWorkflow && e.Kind != mnemo.KindCore {
			t.Errorf("scope workflow returned %s/%s", e.Layer, e.Kind)
		}
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	f := open(t, "", func(c *engine.Config) { c.Limits.MaxTextBytes = 1000 })
	ctx := context.Background()
	f.remember(t, "", mnemo.NewRecord{Text: "a stored fact"})
	cases := []struct {
		rec  mnemo.NewRecord
		code string
	}{
		{mnemo.NewRecord{Text: "  "}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: "x", Layer: "semantic"}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: "x", Kind: "thought"}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: "x", Importance: fp(1.5)}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: "x", Confidence: fp(-0.1)}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: "bad \xff utf8"}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: strings.Repeat("a", 1001)}, mnemo.ETOOLARGE},
		{mnemo.NewRecord{Text: "x", Scope: "no-slash"}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: "x", Scope: "/a//b"}, mnemo.EINVALID},
		{mnemo.NewRecord{Text: "x", Supersedes: "01NOPE"}, mnemo.ENOTFOUND},
	}
	for _, c := range cases {
		_, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{{Text: "good one"}, c.rec}, mnemo.WriteOptions{})
		if got := mnemo.ErrorCode(err); got != c.code {
			t.Errorf("%+v: got %v (%s), want %s", c.rec, err, got, c.code)
		}
	}
	n, err := f.store.Count(ctx, mnemo.DefaultNamespace)
	if err != nil || n != 1 {
		t.Fatalf("count %d, %v: want 1 (bad batches must write nothing)", n, err)
	}
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: ""}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("empty query: %v", err)
	}
	if _, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, ""), mnemo.DigestRequest{Task: "x", Budget: -5}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("negative budget: %v", err)
	}
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "x", Preset: "nope"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("unknown preset: %v", err)
	}
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "x", Intent: "nope"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("unknown intent: %v", err)
	}
}

func TestHostileQueriesNeverFail(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "", mnemo.NewRecord{Text: "NEAR the relay AND the antenna"})
	for _, q := range []string{`"`, `""`, `AND`, `NEAR(`, `a OR`, `*`, `^x`, `text:foo`, `-x`, `🚀🚀`, `(((`, `'; DROP TABLE records; --`, `привет "мир`, `NOT`, `col:"x" AND NEAR(a b, 2)`} {
		if _, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: q}); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
		if _, err := f.svc.Digest(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.DigestRequest{Task: q}); err != nil {
			t.Errorf("task %q: %v", q, err)
		}
	}
}

func TestDedupMergesAndKeepsProvenance(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	a, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{{Text: "Svalbard station limits uplink power to 150 W at night", Provenance: []string{"doc:a"}, Source: "llm"}}, mnemo.WriteOptions{Dedup: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{{Text: "Svalbard station limits uplink power to 150 W at night time", Provenance: []string{"doc:b"}}}, mnemo.WriteOptions{Dedup: true})
	if err != nil {
		t.Fatal(err)
	}
	if !b[0].Merged || b[0].ID != a[0].ID {
		t.Fatalf("second write not merged: %+v", b[0])
	}
	got, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, ""), a[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Confidence != 1 || got.Source != "user" || len(got.Provenance) != 2 {
		t.Errorf("merged record %+v: want confidence 1, source user, both provenance refs", got)
	}
	c, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{{Text: "Inuvik antenna is in maintenance until Friday"}}, mnemo.WriteOptions{Dedup: true})
	if err != nil || c[0].Merged {
		t.Fatalf("unrelated record merged: %+v %v", c, err)
	}
}

func TestSupersedeAndAsOf(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	t0 := f.now
	old := f.remember(t, "", mnemo.NewRecord{Text: "The uplink power limit at Svalbard is 150 W", At: at(t0.Add(-48 * time.Hour))})[0]
	f.remember(t, "", mnemo.NewRecord{Text: "The uplink power limit at Svalbard is 120 W", Supersedes: old.ID})
	res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "Svalbard uplink power limit"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.ID == old.ID {
			t.Fatalf("superseded record returned without as_of")
		}
	}
	asOf := t0.Add(-24 * time.Hour)
	res, err = f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "Svalbard uplink power limit", Filter: mnemo.Filter{AsOf: &asOf}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != old.ID {
		t.Fatalf("as_of yesterday: got %+v, want only the old value", res.Hits)
	}
	got, _ := f.svc.Get(mnemo.WithCallerIn(ctx, admin, ""), old.ID)
	if got.SupersededBy == "" || got.ValidTo == nil {
		t.Errorf("old record not closed: %+v", got)
	}
}

func TestForgetRestoreHistory(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	r := f.remember(t, "", mnemo.NewRecord{Text: "Kim prefers numbered checklists"})[0]
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), r.ID, mnemo.RecordPatch{Importance: fp(0.9)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), r.ID); err != nil {
		t.Fatal(err)
	}
	res, _ := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "numbered checklists"})
	if len(res.Hits) != 0 {
		t.Fatalf("forgotten record recalled")
	}
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), r.ID, mnemo.RecordPatch{Importance: fp(0.1)}); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Errorf("editing a forgotten record: %v, want ECONFLICT", err)
	}
	if _, err := f.svc.Restore(mnemo.WithCallerIn(ctx, admin, ""), r.ID); err != nil {
		t.Fatal(err)
	}
	res, _ = f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "numbered checklists"})
	if len(res.Hits) != 1 {
		t.Fatalf("restored record not recalled")
	}
	h, err := f.svc.History(mnemo.WithCallerIn(ctx, admin, ""), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, x := range h {
		actions = append(actions, x.Action)
	}
	if strings.Join(actions, ",") != "create,update,forget,restore" {
		t.Errorf("history %v", actions)
	}
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), "nope", mnemo.RecordPatch{Importance: fp(0.1)}); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("update missing: %v", err)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	f.remember(t, "a",
		mnemo.NewRecord{Text: "fact one", Tags: []string{"x", "y"}, Provenance: []string{"commit:abc"}, Component: "c", Mission: "m", AccessLevel: 2},
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "decided", Decision: &mnemo.Decision{Title: "t", Alternatives: []mnemo.Alternative{{Option: "o", Reason: "r"}}}},
	)
	gone := f.remember(t, "a", mnemo.NewRecord{Text: "to forget"})[0]
	f.svc.Forget(mnemo.WithCallerIn(ctx, admin, "a"), gone.ID)
	var first bytes.Buffer
	if n, err := f.svc.Export(mnemo.WithCallerIn(ctx, admin, "a"), &first); err != nil || n != 3 {
		t.Fatalf("export: %d %v", n, err)
	}
	g := open(t, "", nil) // a fresh database: ids are global, so the copy goes elsewhere
	res, err := g.svc.Import(mnemo.WithCallerIn(ctx, admin, "b"), bytes.NewReader(first.Bytes()), nil)
	if err != nil || res.Imported != 3 {
		t.Fatalf("import: %+v %v", res, err)
	}
	res, err = g.svc.Import(mnemo.WithCallerIn(ctx, admin, "b"), bytes.NewReader(first.Bytes()), nil)
	if err != nil || res.Imported != 0 || res.Skipped != 3 {
		t.Fatalf("second import not idempotent: %+v %v", res, err)
	}
	var second bytes.Buffer
	if _, err := g.svc.Export(mnemo.WithCallerIn(ctx, admin, "b"), &second); err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(first.String(), `"namespace":"a"`, `"namespace":"b"`)
	if second.String() != want {
		t.Fatalf("round trip changed records:\nfirst:  %s\nsecond: %s", want, second.String())
	}
	// A bad line anywhere writes nothing.
	bad := first.String() + "{\"text\": 5}\n"
	if _, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "c"), strings.NewReader(bad), nil); mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("bad import: %v", err)
	}
	if n, _ := f.store.Count(ctx, "c"); n != 0 {
		t.Fatalf("bad import wrote %d records", n)
	}
}

func TestClearanceAndNamespaces(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	secret := f.remember(t, "a", mnemo.NewRecord{Text: "launch codes rotate at dawn", AccessLevel: 2})[0]
	f.remember(t, "a", mnemo.NewRecord{Text: "launch window opens at dawn"})
	low := mnemo.Caller{Clearance: 1, Role: mnemo.RoleAdmin}
	res, _ := f.svc.Recall(mnemo.WithCallerIn(ctx, low, "a"), mnemo.RecallRequest{Query: "launch dawn"})
	for _, h := range res.Hits {
		if h.ID == secret.ID {
			t.Fatal("clearance 1 recalled a level-2 record")
		}
	}
	d, _ := f.svc.Digest(mnemo.WithCallerIn(ctx, low, "a"), mnemo.DigestRequest{Task: "launch dawn"})
	if strings.Contains(d.Markdown, "codes") {
		t.Fatal("clearance 1 digest shows a level-2 record")
	}
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, low, "a"), secret.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("get above clearance: %v", err)
	}
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, "b"), secret.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("get across namespaces: %v", err)
	}
	if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, low, "a"), []mnemo.NewRecord{{Text: "x", AccessLevel: 3}}, mnemo.WriteOptions{}); mnemo.ErrorCode(err) != mnemo.EFORBIDDEN {
		t.Fatalf("write above clearance: %v", err)
	}
}

func TestRetrievalLoggedAndCountersBumped(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	r := f.remember(t, "", mnemo.NewRecord{Text: "the relay antenna points north"})[0]
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "kim", Session: "s1", Clearance: 5, Role: mnemo.RoleAdmin}, ""), mnemo.RecallRequest{Query: "relay antenna"}); err != nil {
		t.Fatal(err)
	}
	f.svc.Close() // drains background work
	logs, err := f.store.Retrievals(ctx, mnemo.DefaultNamespace, 10)
	if err != nil || len(logs) != 1 || logs[0].Caller != "kim" || logs[0].Session != "s1" || len(logs[0].IDs) != 1 {
		t.Fatalf("retrieval log %+v %v", logs, err)
	}
	got, _ := f.store.Get(ctx, mnemo.Scope{Namespace: mnemo.DefaultNamespace, Clearance: 9}, r.ID)
	if got.AccessCount != 1 || got.LastAccessedAt == nil {
		t.Fatalf("access counters not bumped: %+v", got)
	}
}

func TestEmbedderMismatchAndReembed(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "", mnemo.NewRecord{Text: "alpha beta gamma"})
	f.svc.Close()
	ctx := context.Background()
	tok, _ := tokenize.New("")
	_, err := engine.New(ctx, engine.Config{Store: f.store, Embedder: embed.NewHash(64), Tokenizer: tok})
	if mnemo.ErrorCode(err) != mnemo.EMISMATCH {
		t.Fatalf("opening with another dimension: %v, want EMISMATCH", err)
	}
	svc, err := engine.New(ctx, engine.Config{Store: f.store, Embedder: embed.NewHash(64), Tokenizer: tok, AllowMismatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := svc.Reembed(ctx, nil); err != nil || n != 1 {
		t.Fatalf("reembed: %d %v", n, err)
	}
	svc.Close()
	svc, err = engine.New(ctx, engine.Config{Store: f.store, Embedder: embed.NewHash(64), Tokenizer: tok})
	if err != nil {
		t.Fatalf("after reembed: %v", err)
	}
	res, err := svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "alpha beta"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Factors["semantic"] <= 0 {
		t.Fatalf("recall after reembed: %+v %v", res, err)
	}
	svc.Close()
}

func TestIntentReweighting(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	f.remember(t, "", mnemo.NewRecord{Text: "We decided to move the burn to Thursday", Kind: mnemo.KindDecision, At: at(f.now.Add(-20 * time.Hour))})
	for q, want := range map[string]string{
		"what did we decide on yesterday's call?": "recent",
		"Что мы решили на вчерашнем созвоне?":     "recent",
		"Що ми вирішили вчора?":                   "recent",
		"what are the baseline security rules?":   "rules",
		"Каковы базовые правила безопасности?":    "rules",
		"how do I prepare a pass?":                "howto",
		"why did we move the burn?":               "why",
	} {
		res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if res.Intent != want {
			t.Errorf("%q: intent %s, want %s", q, res.Intent, want)
		}
		top := ""
		for k, v := range res.Weights {
			if top == "" || v > res.Weights[top] {
				top = k
			}
		}
		if want == "recent" && top != "recency" || want == "rules" && top != "importance" {
			t.Errorf("%q: largest weight %s (%v)", q, top, res.Weights)
		}
	}
	res, _ := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "what did we decide yesterday", Intent: "rules"})
	if res.Intent != "rules" {
		t.Errorf("intent override ignored: %s", res.Intent)
	}
}

func TestTriageUnderEventStorm(t *testing.T) {
	f := open(t, "", func(c *engine.Config) { c.TriageCapacity = 10 })
	ctx := context.Background()
	var evs []mnemo.NewRecord
	for i := 0; i < 40; i++ {
		evs = append(evs, mnemo.NewRecord{Kind: mnemo.KindEvent, Text: fmt.Sprintf("alarm %d on relay link", i), Criticality: fp(float64(i%10) / 10)})
	}
	f.remember(t, "", evs...)
	res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "relay link alarm", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Triage == nil || !res.Triage.Active || res.Triage.Alpha <= 0 || res.Triage.Alpha >= 1 {
		t.Fatalf("triage not reported: %+v", res.Triage)
	}
	if _, ok := res.Weights["criticality"]; !ok {
		t.Fatalf("triage weights lack criticality: %v", res.Weights)
	}
	if res.Hits[0].Factors["criticality"] < 0.8 {
		t.Errorf("triage top hit has criticality %v", res.Hits[0].Factors["criticality"])
	}
}

func TestNearDuplicatesDropped(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	f.remember(t, "",
		mnemo.NewRecord{Text: "The Svalbard station limits uplink power to 150 W after 22:00"},
		mnemo.NewRecord{Text: "The Svalbard station limits uplink power to 150 W after 22:00."},
		mnemo.NewRecord{Text: "Thanks!"},
		mnemo.NewRecord{Text: "Thanks!"},
	)
	res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "Svalbard uplink power limit"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range res.Hits {
		if strings.Contains(h.Text, "Svalbard") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("near-duplicates not dropped: %d copies recalled", n)
	}
	// Short remarks share fewer than three content words: never merged away.
	res, _ = f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "thanks"})
	thanks := 0
	for _, h := range res.Hits {
		if h.Text == "Thanks!" {
			thanks++
		}
	}
	if thanks != 2 {
		t.Fatalf("short identical remarks: %d recalled, want 2", thanks)
	}
}

func TestDecisionBodyIsSearchable(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "",
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "We notify the DPO first, then legal",
			Decision: &mnemo.Decision{Title: "Breach escalation order", Principle: "regulators before lawyers",
				Alternatives: []mnemo.Alternative{{Option: "Legal first", Reason: "slower"}}}},
		mnemo.NewRecord{Text: "The cafeteria opens at eight"},
	)
	res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: "breach escalation", K: 1})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Kind != mnemo.KindDecision || res.Hits[0].Factors["keyword"] == 0 {
		t.Fatalf("the decision's title is not searchable: %+v %v", res, err)
	}
}

func TestWarm(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "a", mnemo.NewRecord{Text: "one"})
	f.remember(t, "b", mnemo.NewRecord{Text: "two"})
	n, err := f.svc.Warm(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("warm: %d %v", n, err)
	}
}
