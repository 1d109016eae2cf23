package corrections_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
)

func TestCorrectionSignal(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	ctx := context.Background()
	facts := f.Remember(t, "ops",
		mnemo.NewRecord{Text: "Pass briefs state the backup-link status", Component: "pass-planning"},
		mnemo.NewRecord{Text: "The Svalbard uplink limit is 120 W", Component: "uplink"},
	)
	// Two retrievals today, one three days ago.
	f.Now = f.Now.Add(-72 * time.Hour)
	if _, err := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.RecallRequest{Query: "uplink limit"}); err != nil {
		t.Fatal(err)
	}
	f.Now = f.Now.Add(72 * time.Hour)
	d, err := f.Svc.Digest(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.DigestRequest{Task: "plan tonight's Svalbard pass", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if d.RetrievalID == "" {
		t.Fatal("the digest has no retrieval id")
	}
	rc, err := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.RecallRequest{Query: "backup link"})
	if err != nil || rc.RetrievalID == "" || rc.RetrievalID == d.RetrievalID {
		t.Fatalf("recall retrieval id %q (%v)", rc.RetrievalID, err)
	}
	if err := f.Svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	correction := func(c mnemo.Correction, prov []string, level int) mnemo.NewRecord {
		return mnemo.NewRecord{Kind: mnemo.KindCorrection, Text: "operator correction: " + c.Summary, Correction: &c,
			Provenance: prov, AccessLevel: level}
	}
	f.Remember(t, "ops",
		correction(mnemo.Correction{Category: "pass-planning", Component: "pass-planning", Outcome: mnemo.OutcomeModified,
			Summary: "brief lacked the backup-link status", RetrievalID: d.RetrievalID, MissingContext: true},
			[]string{mnemo.MissedRef + facts[0].ID, "operator:kim"}, 0),
		correction(mnemo.Correction{Category: "style", Outcome: mnemo.OutcomeModified, Summary: "shorter please",
			RetrievalID: rc.RetrievalID}, nil, 0),
		correction(mnemo.Correction{Category: "pass-planning", Component: "uplink", Outcome: mnemo.OutcomeRejected,
			Summary: "power limit missing", RetrievalID: "no-such-retrieval", MissingContext: true}, nil, 0),
		correction(mnemo.Correction{Category: "secret", Summary: "restricted", MissingContext: true}, nil, 3),
	)

	rep, err := f.Svc.Corrections(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "lead", Clearance: 1, Role: mnemo.RoleAdmin}, "ops"),
		mnemo.CorrectionRequest{Since: f.Now.Add(-7 * 24 * time.Hour), Bucket: mnemo.BucketDay})

	if err != nil {
		t.Fatal(err)
	}
	want := mnemo.CorrectionCounts{Retrievals: 3, Corrections: 3, MissingContext: 2, Linked: 2}
	want.Finish()
	if rep.Totals != want {
		t.Errorf("totals %+v, want %+v", rep.Totals, want)
	}
	if math.Abs(rep.Totals.MissingShare-2.0/3) > 1e-12 || math.Abs(rep.Totals.MissingPer100-200.0/3) > 1e-9 {
		t.Errorf("ratios %+v", rep.Totals)
	}
	if len(rep.Periods) != 8 {
		t.Fatalf("%d daily periods, want 8", len(rep.Periods))
	}
	last, three := rep.Periods[7], rep.Periods[4]
	if last.Retrievals != 2 || last.Corrections != 3 || three.Retrievals != 1 || three.Corrections != 0 {
		t.Errorf("today %+v, three days ago %+v", last.CorrectionCounts, three.CorrectionCounts)
	}
	if c := rep.ByCategory["pass-planning"]; c.Corrections != 2 || c.MissingContext != 2 || c.Linked != 1 || c.MissingShare != 1 {
		t.Errorf("pass-planning %+v", c)
	}
	if c := rep.ByComponent["uplink"]; c.Corrections != 1 || c.MissingContext != 1 {
		t.Errorf("component uplink %+v", c)
	}
	if _, ok := rep.ByCategory["secret"]; ok {
		t.Error("a correction above the caller's clearance was counted")
	}

	var triples []mnemo.CorrectionTriple
	n, err := f.Svc.CorrectionTriples(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.CorrectionRequest{}, func(tr mnemo.CorrectionTriple) error {
		triples = append(triples, tr)
		return nil
	})

	if err != nil || n != 1 || len(triples) != 1 {
		t.Fatalf("triples: %d %v %+v", n, err, triples)
	}
	tr := triples[0]
	var digestIDs []string
	for _, e := range d.Entries {
		digestIDs = append(digestIDs, e.ID)
	}
	if tr.Query != "plan tonight's Svalbard pass" || tr.Operation != "digest" || tr.RetrievalID != d.RetrievalID ||
		!slices.Equal(tr.Retrieved, digestIDs) || !slices.Equal(tr.Missed, []string{facts[0].ID}) || tr.Category != "pass-planning" {
		t.Errorf("triple %+v", tr)
	}

	for name, req := range map[string]mnemo.CorrectionRequest{
		"bad bucket":       {Bucket: "fortnight"},
		"since after":      {Since: f.Now, Until: f.Now.Add(-time.Hour)},
		"too many periods": {Since: f.Now.Add(-10 * 365 * 24 * time.Hour), Bucket: mnemo.BucketDay},
	} {
		if _, err := f.Svc.Corrections(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), req); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: %v, want %s", name, err, mnemo.EINVALID)
		}
	}
}

func TestBucketStart(t *testing.T) {
	at := time.Date(2026, 11, 29, 13, 5, 0, 0, time.UTC) // a Sunday
	for bucket, want := range map[string]time.Time{
		mnemo.BucketDay:   time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC),
		mnemo.BucketWeek:  time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		mnemo.BucketMonth: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got := mnemo.BucketStart(at, bucket); !got.Equal(want) {
			t.Errorf("%s: %v, want %v", bucket, got, want)
		}
	}
	if got := mnemo.BucketStart(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), mnemo.BucketWeek); got.Day() != 23 {
		t.Errorf("a Monday starts its own week: %v", got)
	}
	if got := mnemo.NextBucket(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), mnemo.BucketMonth); !got.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("month after January: %v", got)
	}
}
