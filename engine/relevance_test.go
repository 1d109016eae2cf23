package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
)

// opsRecords is a small space-operations store: nothing in it is about
// code, tests or Go.
var opsRecords = []mnemo.NewRecord{
	{Text: "Night passes go through Svalbard", Kind: mnemo.KindDecision, Layer: mnemo.LayerWorkflow, Importance: ptr(0.9)},
	{Text: "Uplink power above 200 W requires the RF safety officer on the loop", Scope: "/rules/safety", Importance: ptr(0.9)},
	{Text: "The Inuvik ground station is in maintenance until Friday", Importance: ptr(0.6)},
	{Text: "Telemetry from the cubesat arrives every 90 minutes", Importance: ptr(0.5)},
	{Text: "Operators hand over the shift at 06:00 and 18:00 UTC", Importance: ptr(0.7)},
	{Text: "Always confirm the antenna azimuth before a pass", Kind: mnemo.KindProcedure, Importance: ptr(0.8)},
	{Text: "Core: the mission's call sign is AURORA-3", Kind: mnemo.KindCore},
}

func digestOf(t *testing.T, f *fixture, task string) *mnemo.Digest {
	t.Helper()
	d, err := f.svc.Digest(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.DigestRequest{Task: task, Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func nonCore(d *mnemo.Digest) []mnemo.DigestEntry {
	var out []mnemo.DigestEntry
	for _, e := range d.Entries {
		if e.Kind != mnemo.KindCore {
			out = append(out, e)
		}
	}
	return out
}

// TestOffTopicDigestIsTiny: a task about code on a store about satellite
// passes gets the core block and one line saying nothing is relevant —
// not the store. "recall_test.go" used to match "go" in "passes go through".
func TestOffTopicDigestIsTiny(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "", opsRecords...)
	for _, task := range []string{
		"Fix the flaky test in engine/recall_test.go",
		"Refactor the React component tree",
		"Исправь падающий тест в парсере",
		"Виправ тест у модулі оплати",
	} {
		d := digestOf(t, f, task)
		if n := nonCore(d); len(n) > 0 {
			t.Errorf("%q: %d non-core entries, first %q (why %+v)", task, len(n), n[0].Text, n[0].Why)
		}
		if len(d.Entries) != 1 || d.Entries[0].Kind != mnemo.KindCore {
			t.Errorf("%q: want the core record alone, got %d entries", task, len(d.Entries))
		}
		if !strings.Contains(d.Markdown, "Nothing in memory is relevant") {
			t.Errorf("%q: the digest does not say nothing is relevant:\n%s", task, d.Markdown)
		}
		res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: task})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 {
			t.Errorf("recall %q: %d hits, first %q", task, len(res.Hits), res.Hits[0].Text)
		}
	}
	// An on-topic task still finds what it needs, and says why.
	d := digestOf(t, f, "plan tonight's pass through Svalbard")
	n := nonCore(d)
	if len(n) == 0 || !strings.Contains(n[0].Text, "Svalbard") {
		t.Fatalf("on-topic digest lost the Svalbard decision: %+v", n)
	}
	if n[0].Why == nil || n[0].Why.Evidence != "keyword" || len(n[0].Why.Matched) == 0 {
		t.Fatalf("entry without a keyword explanation: %+v", n[0].Why)
	}
}

// TestFloorUnrelatedRecordsAddNothing is the floor's property: adding
// records unrelated to an off-topic task never adds entries to its digest,
// whatever their importance.
func TestFloorUnrelatedRecordsAddNothing(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "", opsRecords...)
	task := "Fix the flaky test in engine/recall_test.go"
	rng := rand.New(rand.NewSource(3))
	vocab := strings.Fields("orbit antenna relay storm uplink downlink beacon pass station operator shift weather ice battery solar panel")
	for round := 0; round < 5; round++ {
		var recs []mnemo.NewRecord
		for i := 0; i < 40; i++ {
			var b strings.Builder
			for j := 0; j < 4+rng.Intn(10); j++ {
				b.WriteString(vocab[rng.Intn(len(vocab))] + " ")
			}
			b.WriteString(fmt.Sprintf("r%d-%d", round, i))
			recs = append(recs, mnemo.NewRecord{Text: b.String(), Importance: ptr(rng.Float64()), Confidence: ptr(1.0)})
		}
		f.remember(t, "", recs...)
		if n := nonCore(digestOf(t, f, task)); len(n) > 0 {
			t.Fatalf("round %d: %d unrelated entries entered, first %q", round, len(n), n[0].Text)
		}
	}
}

// TestFloorStopwordsChangeNothing: adding stopwords or question words to a
// query never changes which records are relevant.
func TestFloorStopwordsChangeNothing(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "", opsRecords...)
	ids := func(q string) string {
		res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: q, K: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		return strings.Join(out, ",")
	}
	for _, q := range []string{"Svalbard pass", "antenna azimuth", "uplink power officer", "ground station maintenance"} {
		base := ids(q)
		if base == "" {
			t.Fatalf("%q finds nothing", q)
		}
		for _, extra := range []string{"the %s", "what about %s?", "%s of the and", "и %s", "та %s"} {
			if got := ids(fmt.Sprintf(extra, q)); got != base {
				t.Errorf("%q: %s, but %q: %s", q, base, fmt.Sprintf(extra, q), got)
			}
		}
	}
}

// TestMinRelevance: 0 turns the floor off (every candidate comes back),
// a high value keeps only strong evidence, and a value outside 0..1 is
// refused.
func TestMinRelevance(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "", opsRecords...)
	ctx := context.Background()
	recall := func(q string, m *float64) *mnemo.RecallResult {
		res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: q, K: 50, MinRelevance: m})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	zero, high := 0.0, 0.99
	q := "pass through Svalbard with the officer"
	all, def, strict := recall(q, &zero), recall(q, nil), recall(q, &high)
	if !(len(all.Hits) > len(def.Hits) && len(def.Hits) >= len(strict.Hits)) {
		t.Fatalf("hits: floor off %d, default %d, strict %d", len(all.Hits), len(def.Hits), len(strict.Hits))
	}
	for _, h := range def.Hits {
		if h.Why == nil || h.Why.Relevance <= 0 || h.Why.Evidence == "" {
			t.Fatalf("hit %q without an explanation: %+v", h.Text, h.Why)
		}
	}
	for _, bad := range []float64{-0.1, 1.5} {
		_, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: q, MinRelevance: &bad})
		if mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Fatalf("min_relevance %v: %v", bad, err)
		}
	}
}

// TestCalibration: the hash embedder's null similarity is measured, lies
// between 0 and 1, and related pairs without a shared word mostly stay
// under it (the hash embedder sees words, not meaning).
func TestCalibration(t *testing.T) {
	f := open(t, "", nil)
	c, err := f.svc.Calibration(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Pairs < 1000 || c.Null <= 0 || c.Null >= 0.5 || c.Max < c.Null {
		t.Fatalf("calibration %+v", c)
	}
	t.Logf("calibration %+v", *c)
}

// TestCalibrationStored: the hash embedder's calibration is measured by
// the first process and stored in the store's settings under its version
// and corpus; the next process reads it back instead of measuring it.
func TestCalibrationStored(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	first := open(t, path, nil)
	c1, err := first.svc.Calibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second := open(t, path, nil)
	c2, err := second.svc.Calibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if *c1 != *c2 {
		t.Fatalf("read back %+v, measured %+v", *c2, *c1)
	}
	// Change what is stored: a third process answers with it.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `UPDATE meta SET value = '0.123 0.5 0.2 0.1 1000' WHERE key LIKE ?`,
		"%calibration/c2/hash/256/"+embed.HashVersion+"/%")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%d stored calibrations, want 1", n)
	}
	third := open(t, path, nil)
	c3, err := third.svc.Calibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c3.Null != 0.123 || c3.Pairs != 1000 {
		t.Fatalf("the stored calibration was not read: %+v", *c3)
	}
}

func ptr(x float64) *float64 { return &x }
