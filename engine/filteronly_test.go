package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// A request with a filter and no query text answers with every record the
// filter selects that the caller may see, ordered by the priors; without a
// filter an empty query is refused.
func TestFilterOnlyRequests(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	f.remember(t, "ops",
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Night passes go through Svalbard.", Importance: fp(0.9)},
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Briefs list the backup link first.", Importance: fp(0.3)},
		mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "The secret decision.", AccessLevel: 3},
		mnemo.NewRecord{Kind: mnemo.KindFact, Text: "Inuvik is in maintenance."},
		mnemo.NewRecord{Kind: mnemo.KindCore, Text: "Never plan a pass with a single point of failure."},
	)
	reader := mnemo.Caller{Name: "reader", Clearance: 1, Role: mnemo.RoleAdmin}
	decisions := mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindDecision}}
	res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, reader, "ops"), mnemo.RecallRequest{Filter: decisions})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.Text)
		if h.Why == nil || h.Why.Evidence != "filter" {
			t.Errorf("%q: why %+v, want the evidence filter", h.Text, h.Why)
		}
	}
	if len(got) != 2 || got[0] != "Night passes go through Svalbard." || got[1] != "Briefs list the backup link first." {
		t.Errorf("filter-only recall = %q, want the two visible decisions, the more important first", got)
	}
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, reader, "ops"), mnemo.RecallRequest{Query: "  "}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("an empty query without a filter: %v, want EINVALID", err)
	}
	if _, err := f.svc.Digest(mnemo.WithCallerIn(ctx, reader, "ops"), mnemo.DigestRequest{}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("an empty task without a filter: %v, want EINVALID", err)
	}
	d, err := f.svc.Digest(mnemo.WithCallerIn(ctx, reader, "ops"), mnemo.DigestRequest{Filter: decisions, Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Night passes go through Svalbard.", "Briefs list the backup link first.", "single point of failure", "records matching"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("filter-only digest lacks %q:\n%s", want, d.Markdown)
		}
	}
	for _, not := range []string{"secret", "Inuvik", "Nothing in memory"} {
		if strings.Contains(d.Markdown, not) {
			t.Errorf("filter-only digest holds %q:\n%s", not, d.Markdown)
		}
	}
	d, err = f.svc.Digest(mnemo.WithCallerIn(ctx, reader, "ops"), mnemo.DigestRequest{Scope: mnemo.ScopeWorkflow, Budget: 500})
	if err != nil || !strings.Contains(d.Markdown, "Night passes") || strings.Contains(d.Markdown, "Inuvik") {
		t.Errorf("a workflow digest without a task: %v\n%s", err, d.Markdown)
	}
}
