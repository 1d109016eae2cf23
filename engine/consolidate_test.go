package engine_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

const (
	dupA = "the relay antenna must be greased every monday morning"
	dupB = "relay antenna greased every monday morning before the shift"
)

// consolidateFixture writes, without deduplication, one minute apart:
// a duplicate pair, the same text as another kind, another layer, in
// another namespace, at access level 3 (a pair), and as core records (a pair).
func consolidateFixture(t *testing.T) (*fixture, map[string]string) {
	f := open(t, "", nil)
	ids := map[string]string{}
	add := func(name, ns string, n mnemo.NewRecord) {
		f.now = f.now.Add(time.Minute)
		ids[name] = f.remember(t, ns, n)[0].ID
	}
	add("a", "", mnemo.NewRecord{Text: dupA, Confidence: fp(0.5), Source: "observed", Provenance: []string{"doc:a"}, Tags: []string{"x"}})
	add("b", "", mnemo.NewRecord{Text: dupB, Confidence: fp(0.9), Source: "import:jsonl", Provenance: []string{"doc:b"}, Importance: fp(0.8)})
	add("kind", "", mnemo.NewRecord{Text: dupB, Kind: mnemo.KindPreference})
	add("layer", "", mnemo.NewRecord{Text: dupB, Layer: mnemo.LayerPractitioner})
	add("otherA", "other", mnemo.NewRecord{Text: dupA})
	add("secretA", "", mnemo.NewRecord{Text: dupA, AccessLevel: 3})
	add("secretB", "", mnemo.NewRecord{Text: dupB, AccessLevel: 3})
	add("coreA", "", mnemo.NewRecord{Text: dupA, Kind: mnemo.KindCore})
	add("coreB", "", mnemo.NewRecord{Text: dupB, Kind: mnemo.KindCore})
	f.now = f.now.Add(time.Hour)
	return f, ids
}

func TestConsolidateMergesImportedDuplicatesReversibly(t *testing.T) {
	f, ids := consolidateFixture(t)
	ctx := context.Background()
	low := mnemo.Caller{Name: "ops", Clearance: 1, Role: mnemo.RoleAdmin}

	dry, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, low, ""), true)
	want := []mnemo.ConsolidatePair{{Kept: ids["a"], Merged: ids["b"]}}
	if err != nil || !dry.DryRun || !slices.Equal(dry.Pairs, want) {
		t.Fatalf("dry run: %+v %v, want %v", dry, err, want)
	}
	for name, id := range ids {
		if r := get(t, f, nsOf(name), id); r.DeletedAt != nil || !r.UpdatedAt.Before(f.now) {
			t.Fatalf("a dry run changed %s", name)
		}
	}

	res, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, low, ""), false)
	if err != nil || res.DryRun || !slices.Equal(res.Pairs, want) {
		t.Fatalf("consolidate: %+v %v, want %v", res, err, want)
	}
	a, b := get(t, f, "", ids["a"]), get(t, f, "", ids["b"])
	if b.DeletedAt == nil || a.DeletedAt != nil {
		t.Fatalf("a deleted %v, b deleted %v: want b merged into a", a.DeletedAt, b.DeletedAt)
	}
	if a.Text != dupB || a.Confidence != 0.9 || a.Importance != 0.8 || a.Source != "import:jsonl" ||
		!slices.Equal(a.Provenance, []string{"doc:a", "doc:b"}) || !slices.Contains(a.Tags, "x") {
		t.Fatalf("kept record %+v: want the more confident text, the highest confidence and importance, the freshest source, the union of provenance", a)
	}
	for _, id := range []string{ids["a"], ids["b"]} {
		hist, err := f.svc.History(mnemo.WithCallerIn(ctx, admin, ""), id)
		if err != nil || hist[len(hist)-1].Action != "consolidate" || hist[len(hist)-1].Actor != "ops" {
			t.Fatalf("history of %s: %+v %v", id, hist, err)
		}
	}
	// Other kinds, layers, namespaces, levels above the clearance, core: untouched.
	for _, name := range []string{"kind", "layer", "otherA", "secretA", "secretB", "coreA", "coreB"} {
		if r := get(t, f, nsOf(name), ids[name]); r.DeletedAt != nil || !r.UpdatedAt.Before(f.now) {
			t.Errorf("%s was changed", name)
		}
	}

	// Idempotent: a second run changes nothing.
	again, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, low, ""), false)
	if err != nil || len(again.Pairs) != 0 {
		t.Fatalf("second run: %+v %v", again, err)
	}

	// The merged-away record comes back with restore, as it was.
	if _, err := f.svc.Restore(mnemo.WithCallerIn(ctx, admin, ""), ids["b"]); err != nil {
		t.Fatal(err)
	}
	if r := get(t, f, "", ids["b"]); r.DeletedAt != nil || r.Text != dupB || r.Source != "import:jsonl" {
		t.Fatalf("restored: %+v", r)
	}
}

func nsOf(name string) string {
	if name == "otherA" {
		return "other"
	}
	return ""
}

func TestConsolidateClearanceAndNamespaces(t *testing.T) {
	f, ids := consolidateFixture(t)
	ctx := context.Background()
	// Full clearance merges the pair at level 3 too, never across namespaces.
	res, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, admin, ""), false)
	want := []mnemo.ConsolidatePair{{Kept: ids["a"], Merged: ids["b"]}, {Kept: ids["secretA"], Merged: ids["secretB"]}}
	slices.SortFunc(res.Pairs, func(x, y mnemo.ConsolidatePair) int {
		return map[bool]int{true: -1, false: 1}[x.Kept == ids["a"]]
	})
	if err != nil || !slices.Equal(res.Pairs, want) {
		t.Fatalf("consolidate: %+v %v, want %v", res, err, want)
	}
	if r := get(t, f, "other", ids["otherA"]); r.DeletedAt != nil || !r.UpdatedAt.Before(f.now) {
		t.Error("a record of another namespace was changed")
	}
	// Per namespace: the background job's ConsolidateAll finds nothing more.
	n, err := f.svc.ConsolidateAll(ctx, "consolidation")
	if err != nil || len(n) != 0 {
		t.Fatalf("ConsolidateAll after a run: %v %v", n, err)
	}
}

func TestConsolidateChainsToAFixpoint(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	// Three imported copies of one memory, the last the most confident:
	// one kept, two forgotten, and nothing left for a second run.
	var ids []string
	for i, text := range []string{
		"pump station four valve leaks when pressure exceeds six bar",
		"pump station four valve leaks above six bar pressure",
		"station four pump valve leaks when pressure exceeds six bar daily",
	} {
		f.now = f.now.Add(time.Minute)
		ids = append(ids, f.remember(t, "", mnemo.NewRecord{Text: text, Confidence: fp(0.5 + 0.1*float64(i))})[0].ID)
	}
	res, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, admin, ""), false)
	if err != nil || len(res.Pairs) != 2 {
		t.Fatalf("consolidate: %+v %v", res, err)
	}
	kept := get(t, f, "", ids[0])
	if kept.DeletedAt != nil || kept.Confidence != 0.7 {
		t.Fatalf("kept %+v", kept)
	}
	again, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, admin, ""), false)
	if err != nil || len(again.Pairs) != 0 {
		t.Fatalf("second run: %+v %v", again, err)
	}
}

func TestConsolidateStaysWithinAThread(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	var ids []string
	for _, n := range []mnemo.NewRecord{
		{Text: dupA, Thread: "session:1"},
		{Text: "an unrelated turn about the weather at the station", Thread: "session:1"},
		{Text: dupB, Thread: "session:1", Confidence: fp(1)},
		{Text: dupB, Thread: "session:2"},
	} {
		f.now = f.now.Add(time.Minute)
		ids = append(ids, f.remember(t, "", n)[0].ID)
	}
	res, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, admin, ""), false)
	want := []mnemo.ConsolidatePair{{Kept: ids[0], Merged: ids[2]}}
	if err != nil || !slices.Equal(res.Pairs, want) {
		t.Fatalf("consolidate: %+v %v, want %v", res, err, want)
	}
	if r := get(t, f, "", ids[0]); r.Text != dupB || r.Thread != "session:1" {
		t.Fatalf("kept %+v", r)
	}
	if r := get(t, f, "", ids[3]); r.DeletedAt != nil {
		t.Fatal("a record of another thread was merged")
	}
	// The thread's records are still found by meaning.
	hits, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "antenna greased monday", K: 5})
	if err != nil || len(hits.Hits) == 0 {
		t.Fatalf("recall after consolidation: %+v %v", hits, err)
	}
}

// After a pass no two live records of a group are duplicates, however the
// duplicates chain (the candidate search misses none).
func TestConsolidateLeavesNoDuplicates(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	vocab := strings.Fields("relay antenna valve pump station monday pressure shift uplink beacon cable mast")
	rng := rand.New(rand.NewPCG(1, 2))
	var batch []mnemo.NewRecord
	for range 150 {
		n := 3 + rng.IntN(5)
		words := make([]string, n)
		for j := range words {
			words[j] = vocab[rng.IntN(len(vocab))]
		}
		batch = append(batch, mnemo.NewRecord{Text: strings.Join(words, " "), Confidence: fp(float64(rng.IntN(10)) / 10)})
	}
	batch = append(batch, mnemo.NewRecord{Text: "the and of"}) // no keywords at all
	f.remember(t, "", batch...)
	res, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, admin, ""), false)
	if err != nil || len(res.Pairs) == 0 {
		t.Fatalf("consolidate: %d pairs, %v", len(res.Pairs), err)
	}
	live, err := f.svc.List(mnemo.WithCallerIn(ctx, admin, ""), mnemo.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(live)+len(res.Pairs) != len(batch) {
		t.Fatalf("%d live + %d merged != %d written", len(live), len(res.Pairs), len(batch))
	}
	kw := func(text string) map[string]struct{} {
		m := map[string]struct{}{}
		for _, w := range strings.Fields(text) {
			if slices.Contains(vocab, w) {
				m[w] = struct{}{}
			}
		}
		return m
	}
	for i, a := range live {
		for _, b := range live[i+1:] {
			if engine.IsDuplicate(kw(a.Text), kw(b.Text)) {
				t.Fatalf("still duplicates after a pass: %q and %q", a.Text, b.Text)
			}
		}
	}
	again, err := f.svc.Consolidate(mnemo.WithCallerIn(ctx, admin, ""), false)
	if err != nil || len(again.Pairs) != 0 {
		t.Fatalf("second run: %+v %v", again.Pairs, err)
	}
}
