package handoff_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
)

func TestHandoff(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	ctx := context.Background()
	day := 24 * time.Hour
	cor := func(op, cat, comp, summary string, missing bool) mnemo.NewRecord {
		return mnemo.NewRecord{Kind: mnemo.KindCorrection, Text: "correction: " + summary, Provenance: []string{"operator:" + op},
			Correction: &mnemo.Correction{Category: cat, Component: comp, Outcome: mnemo.OutcomeModified, Summary: summary, MissingContext: missing}}
	}
	old := f.Remember(t, "ops",
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Use the Kiruna station as backup", At: enginetest.Ptr(f.Now.Add(-30 * day)),
			Decision: &mnemo.Decision{Title: "old backup", Decision: "Kiruna"}},
		mnemo.NewRecord{Text: "Who owns the new antenna calibration?", Tags: []string{mnemo.QuestionTag}, At: enginetest.Ptr(f.Now.Add(-20 * day))},
	)
	w := f.Remember(t, "ops",
		cor("kim", "pass-planning", "uplink", "brief lacked the backup-link status", true),
		cor("kim", "pass-planning", "uplink", "pass window off by one minute", false),
		cor("kim", "style", "", "shorter briefs", false),
		cor("lee", "style", "", "not kim's", false),
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Route tonight's passes via Svalbard", At: enginetest.Ptr(f.Now.Add(-2 * day)),
			Decision: &mnemo.Decision{Title: "routing", Decision: "Svalbard", Principle: "two-operator sign-off",
				Alternatives: []mnemo.Alternative{{Option: "Wait for Kiruna", Reason: "misses the window"}}}},
		mnemo.NewRecord{Kind: mnemo.KindEvent, Text: "Uplink power dropped below limit", Component: "uplink", Criticality: enginetest.Ptr(0.9), At: enginetest.Ptr(f.Now.Add(-day))},
		mnemo.NewRecord{Kind: mnemo.KindEvent, Text: "Routine telemetry sample", Component: "uplink", Criticality: enginetest.Ptr(0.3), At: enginetest.Ptr(f.Now.Add(-day))},
		mnemo.NewRecord{Kind: mnemo.KindEvent, Text: "Backup link saturated", Component: "uplink", Criticality: enginetest.Ptr(0.8), At: enginetest.Ptr(f.Now.Add(-day + 2*time.Hour))},
		mnemo.NewRecord{Kind: mnemo.KindEvent, Text: "Thermal alarm on the power amplifier", Component: "thermal", Criticality: enginetest.Ptr(0.95), At: enginetest.Ptr(f.Now.Add(-day + 30*time.Minute))},
	)
	decision, critical, saturated, thermal := w[4].ID, w[5].ID, w[7].ID, w[8].ID
	// An event naming its cause in its provenance.
	named := f.Remember(t, "ops", mnemo.NewRecord{Kind: mnemo.KindEvent, Text: "Pass aborted", Component: "ops", Criticality: enginetest.Ptr(0.9),
		Provenance: []string{"caused-by:" + thermal}, At: enginetest.Ptr(f.Now.Add(-day + 3*time.Hour))})[0].ID

	h, err := f.Svc.Handoff(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.HandoffRequest{From: "kim"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Patterns) != 2 || h.Patterns[0].Category != "pass-planning" || h.Patterns[0].Corrections != 2 ||
		h.Patterns[0].MissingContext != 1 || h.Patterns[1].Category != "style" || h.Patterns[1].Corrections != 1 {
		t.Errorf("patterns %+v", h.Patterns)
	}
	if len(h.Attention) != 3 || h.Attention[0] != (mnemo.HandoffArea{Component: "uplink", Corrections: 2, MissingContext: 1, CriticalEvents: 2}) {
		t.Errorf("attention %+v", h.Attention)
	}
	if !slices.Equal(h.Decisions, []string{decision}) || !slices.Equal(h.Questions, []string{old[1].ID}) ||
		!slices.Equal(h.Timeline, []string{critical, thermal, saturated, named}) {
		t.Errorf("decisions %v, questions %v, timeline %v", h.Decisions, h.Questions, h.Timeline)
	}
	wantLinks := []mnemo.HandoffLink{{From: critical, To: saturated, Why: "same component uplink, 2h0m0s later"}, {From: thermal, To: named, Why: "named"}}
	if !slices.Equal(h.Links, wantLinks) {
		t.Errorf("links %+v, want %+v", h.Links, wantLinks)
	}
	if !strings.Contains(h.Markdown, "Pass aborted ["+named+"] ← follows "+thermal+" (named)") {
		t.Errorf("the timeline does not show the link:\n%s", h.Markdown)
	}
	for _, want := range []string{"# Handoff: ops", "corrections of kim", "## Typical corrections", "brief lacked the backup-link status",
		"## Areas of heightened attention", "## Decisions", "rejected: Wait for Kiruna (misses the window)", "principle: two-operator sign-off",
		"## Open questions", "antenna calibration", "## Escalation timeline", "Uplink power dropped"} {
		if !strings.Contains(h.Markdown, want) {
			t.Errorf("handoff lacks %q:\n%s", want, h.Markdown)
		}
	}
	for _, not := range []string{"not kim's", "Kiruna station as backup", "Routine telemetry"} {
		if strings.Contains(h.Markdown, not) {
			t.Errorf("handoff holds %q", not)
		}
	}
	if n := f.Tok.Count(h.Markdown); n != h.UsedTokens || n > h.Budget || h.Omitted != 0 {
		t.Errorf("used %d, counted %d, budget %d, omitted %d", h.UsedTokens, n, h.Budget, h.Omitted)
	}
	// Everyone's corrections, on a tight budget: exact, within it, and
	// the omitted lines counted.
	tight, err := f.Svc.Handoff(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.HandoffRequest{Budget: 80})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Tok.Count(tight.Markdown); n != tight.UsedTokens || n > 80 || tight.Omitted == 0 || !strings.Contains(tight.Markdown, "corrections of everyone") {
		t.Errorf("tight: used %d, counted %d, omitted %d:\n%s", tight.UsedTokens, n, tight.Omitted, tight.Markdown)
	}
	if tight.Patterns[1].Corrections != 2 { // style: kim's and lee's
		t.Errorf("everyone's patterns %+v", tight.Patterns)
	}
	for name, req := range map[string]mnemo.HandoffRequest{
		"budget too small": {Budget: 5},
		"negative budget":  {Budget: -1},
		"future since":     {Since: f.Now.Add(day)},
		"two-line name":    {From: "kim\nlee"},
	} {
		if _, err := f.Svc.Handoff(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), req); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: %v, want %s", name, err, mnemo.EINVALID)
		}
	}
	empty, err := f.Svc.Handoff(mnemo.WithCallerIn(ctx, enginetest.Admin, "quiet"), mnemo.HandoffRequest{})
	if err != nil || !strings.Contains(empty.Markdown, "Nothing recorded") {
		t.Errorf("empty namespace: %v\n%s", err, empty.Markdown)
	}
}
