package corrections_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/corrections"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
)

// Recurring corrections of an operator become one structured pattern per
// category and component: the typical fix, the count, the outcomes, the
// corrections as sources, tagged with the operator; never the raw text.
func TestDistillCorrections(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	ctx := context.Background()
	day := 24 * time.Hour
	n := 0
	cor := func(op, cat, comp, summary, outcome string, level int) mnemo.NewRecord {
		n++
		r := mnemo.NewRecord{Kind: mnemo.KindCorrection, Text: "RAW chat text the operator typed, number " + string(rune('a'+n)),
			At: enginetest.Ptr(f.Now.Add(time.Duration(n-30) * day)), AccessLevel: level,
			Correction: &mnemo.Correction{Category: cat, Component: comp, Outcome: outcome, Summary: summary}}
		if op != "" {
			r.Provenance = []string{"operator:" + op}
		}
		return r
	}
	w := f.Remember(t, "ops",
		cor("anna", "units", "planner", "Power is given in watts, not dBm.", mnemo.OutcomeModified, 0),
		cor("anna", "units", "planner", "Pass times are UTC", mnemo.OutcomeRejected, 0),
		cor("anna", "units", "planner", "Power is given in watts, not dBm.", mnemo.OutcomeModified, 2),
		cor("anna", "style", "briefs", "Shorter briefs", mnemo.OutcomeModified, 0),
		cor("anna", "style", "briefs", "Shorter briefs", mnemo.OutcomeModified, 0),
		cor("ben", "units", "planner", "Azimuth in degrees", mnemo.OutcomeAccepted, 0),
		cor("ben", "units", "planner", "Azimuth in degrees", mnemo.OutcomeAccepted, 0),
		cor("ben", "units", "planner", "Azimuth in degrees", mnemo.OutcomeModified, 0),
		cor("", "units", "planner", "no operator named", mnemo.OutcomeModified, 0),
		cor("", "units", "planner", "no operator named", mnemo.OutcomeModified, 0),
		cor("", "units", "planner", "no operator named", mnemo.OutcomeModified, 0),
	)
	got, err := corrections.Distill(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), f.Svc, f.Svc.Store())
	if err != nil || got != 2 {
		t.Fatalf("distilled %d: %v", got, err)
	}
	anna, err := f.Svc.Get(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), corrections.PatternID("ops", "anna", "units", "planner"))
	if err != nil {
		t.Fatal(err)
	}
	want := "Operator anna corrects units in planner: 3 times, 2026-10-03 – 2026-10-05. Typical fix: Power is given in watts, not dBm (2 times). Outcomes: 2 modified, 1 rejected."
	if anna.Text != want || anna.Layer != mnemo.LayerPractitioner || anna.Kind != mnemo.KindPreference || anna.Source != "distilled" ||
		anna.Component != "planner" || anna.AccessLevel != 2 || !slices.Contains(anna.Tags, "operator:anna") ||
		anna.Provenance[0] != "operator:anna" || !slices.Contains(anna.Provenance, mnemo.MissedRef+w[0].ID) || len(anna.Provenance) != 4 {
		t.Fatalf("anna's pattern %+v\nwant text %q", anna, want)
	}
	if strings.Contains(anna.Text, "RAW") {
		t.Errorf("the raw text entered the pattern: %q", anna.Text)
	}
	// The tag selects one operator's patterns; a reader without clearance
	// does not see a pattern built on a restricted correction.
	mine, err := f.Svc.List(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.ListOptions{Filter: mnemo.Filter{Tags: []string{"operator:ben"}}})
	if err != nil || len(mine) != 1 || !strings.HasPrefix(mine[0].Text, "Operator ben corrects units in planner: 3 times") ||
		!strings.Contains(mine[0].Text, "Typical fix: Azimuth in degrees (3 times). Outcomes: 2 accepted, 1 modified.") {
		t.Fatalf("ben's patterns %v %v", mine, err)
	}
	if _, err := f.Svc.Get(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "reader", Role: mnemo.RoleAdmin}, "ops"), anna.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("a reader without clearance sees the restricted pattern: %v", err)
	}
	// Again: nothing changes. A fourth correction updates the pattern; a
	// forgotten correction counts no more.
	if got, _ := corrections.Distill(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), f.Svc, f.Svc.Store()); got != 0 {
		t.Errorf("a second pass wrote %d", got)
	}
	f.Remember(t, "ops", cor("anna", "style", "briefs", "Shorter briefs", mnemo.OutcomeModified, 0))
	if _, err := f.Svc.Forget(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), w[1].ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := corrections.Distill(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), f.Svc, f.Svc.Store()); got != 2 {
		t.Errorf("third pass wrote %d, want anna's style pattern and her units one updated", got)
	}
	anna, _ = f.Svc.Get(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), anna.ID)
	if anna.Text != "Operator anna corrects units in planner: 2 times, 2026-10-03 – 2026-10-05. Typical fix: Power is given in watts, not dBm (2 times). Outcomes: 2 modified." {
		t.Errorf("after a forgotten correction: %q", anna.Text)
	}
	// A digest of the practitioner scope for the operator's work finds it.
	d, err := f.Svc.Digest(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.DigestRequest{Task: "planner power units", Scope: mnemo.ScopePractitioner,
		Budget: 1000, Filter: mnemo.Filter{Tags: []string{"operator:anna"}}})
	if err != nil || !strings.Contains(d.Markdown, "Operator anna corrects units in planner") || strings.Contains(d.Markdown, "RAW") {
		t.Errorf("digest: %v\n%s", err, d.Markdown)
	}
	all, err := corrections.DistillAll(ctx, f.Svc, f.Svc.Store())
	if err != nil || len(all) != 0 {
		t.Errorf("distil all: %v %v", all, err)
	}
}
