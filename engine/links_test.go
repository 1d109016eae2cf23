package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// linkedMission is a decision about night-pass routing that depends on a
// ground-station decision and constrains a briefing decision, neither of
// which shares a word with the task; a secret decision, a forgotten one
// and a fact are linked too, and must never be offered.
func linkedMission(t *testing.T) (*fixture, map[string]string) {
	f := open(t, "", nil)
	ctx := context.Background()
	id := map[string]string{}
	for _, x := range []struct {
		name string
		rec  mnemo.NewRecord
	}{
		{"stations", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Two ground-station contracts stay active year-round.",
			Decision: &mnemo.Decision{Title: "Keep two ground-station contracts", Status: "accepted"}}},
		{"briefs", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Briefs list the backup link status first.",
			Decision: &mnemo.Decision{Title: "Backup link status leads each brief", Status: "accepted"}}},
		{"secret", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "The classified relay contract is renewed quietly.", AccessLevel: 3,
			Decision: &mnemo.Decision{Title: "Classified relay"}}},
		{"forgotten", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Old weekend staffing rota for operators.",
			Decision: &mnemo.Decision{Title: "Weekend rota"}}},
		{"fact", mnemo.NewRecord{Text: "Kiruna antenna recalibration took eleven hours."}},
		{"window", mnemo.NewRecord{Text: "The Svalbard night pass window opens at 02:10 tonight.", Importance: fp(0.4)}},
	} {
		id[x.name] = f.remember(t, "ops", x.rec)[0].ID
	}
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, "ops"), id["forgotten"]); err != nil {
		t.Fatal(err)
	}
	id["routing"] = f.remember(t, "ops", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Night passes go through Svalbard.", Importance: fp(0.9),
		Decision: &mnemo.Decision{Title: "Route night passes via Svalbard", Status: "accepted",
			DependsOn:  []string{id["stations"], id["secret"], id["fact"], "01NOSUCHRECORD"},
			Constrains: []string{id["briefs"], id["forgotten"]}}})[0].ID
	return f, id
}

const linkTask = "plan tonight's Svalbard night pass routing"

// A digest that places a decision shows its links and offers the decisions
// it depends on and constrains, right after it, when they fit; never one
// the caller may not see, a forgotten one or another kind.
func TestDigestFollowsDecisionLinks(t *testing.T) {
	f, id := linkedMission(t)
	ctx := context.Background()
	d, err := f.svc.Digest(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "reader", Role: mnemo.RoleAdmin}, "ops"), mnemo.DigestRequest{Task: linkTask, Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown
	ref := mnemo.ShortRef
	if !strings.Contains(md, "  - depends on: "+ref(id["stations"])+", "+ref(id["secret"])+", "+ref(id["fact"])+", 01NOSUCHRECORD\n") ||
		!strings.Contains(md, "  - constrains: "+ref(id["briefs"])+", "+ref(id["forgotten"])) {
		t.Errorf("the decision's entry does not show its links:\n%s", md)
	}
	var order []string
	for _, e := range d.Entries {
		order = append(order, e.ID)
	}
	i := slices.Index(order, id["routing"])
	if i < 0 || len(order) < i+3 || order[i+1] != id["stations"] || order[i+2] != id["briefs"] {
		t.Fatalf("entries %v: want routing, then stations and briefs (%v)\n%s", order, id, md)
	}
	for _, n := range []string{"secret", "forgotten", "fact"} {
		if slices.Contains(order, id[n]) {
			t.Errorf("the %s record was offered:\n%s", n, md)
		}
	}
	if !strings.Contains(md, "- (linked) decision — Two ground-station contracts stay active year-round.") || d.Entries[i+1].Section != "workflow" {
		t.Errorf("linked entry:\n%s", md)
	}
	if n := f.tok.Count(md); n != d.UsedTokens || n > 2000 {
		t.Errorf("markdown is %d tokens, used_tokens %d", n, d.UsedTokens)
	}
	// An operator with clearance sees the secret one offered too.
	d, _ = f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: linkTask, Budget: 2000})
	if !strings.Contains(d.Markdown, "The classified relay contract") {
		t.Errorf("cleared digest lacks the secret linked decision:\n%s", d.Markdown)
	}
	// A domain-only digest offers no workflow decisions.
	d, _ = f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: linkTask, Budget: 2000, Scope: mnemo.ScopeDomain})
	if strings.Contains(d.Markdown, "(linked)") {
		t.Errorf("domain digest:\n%s", d.Markdown)
	}
}

// Links are offered only in what the ranked entries leave: at every
// budget the ranked entries are exactly those of the same digest without
// the linked decisions, and the digest never exceeds its budget.
func TestDigestLinksWithinBudget(t *testing.T) {
	f, id := linkedMission(t)
	ctx := context.Background()
	ranked := func(d *mnemo.Digest) []string {
		var out []string
		for _, e := range d.Entries {
			if e.Why != nil {
				out = append(out, e.ID)
			}
		}
		return out
	}
	type run struct {
		ranked []string
		linked int
	}
	digest := func(budget int) run {
		d, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: linkTask, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if n := f.tok.Count(d.Markdown); n > budget || n != d.UsedTokens {
			t.Fatalf("budget %d: %d tokens (used_tokens %d)\n%s", budget, n, d.UsedTokens, d.Markdown)
		}
		return run{ranked(d), strings.Count(d.Markdown, "- (linked)")}
	}
	var with []run
	budgets := []int{}
	for b := 40; b <= 600; b += 7 {
		budgets = append(budgets, b)
		with = append(with, digest(b))
	}
	sawSome, sawAll := false, false
	for _, r := range with {
		sawSome = sawSome || r.linked > 0 && r.linked < 3
		sawAll = sawAll || r.linked == 3
	}
	if !sawSome || !sawAll {
		t.Errorf("no budget offered some but not all links, or none offered all: %+v", with)
	}
	for _, n := range []string{"stations", "briefs", "secret"} {
		if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, "ops"), id[n]); err != nil {
			t.Fatal(err)
		}
	}
	for i, b := range budgets {
		without := digest(b)
		if without.linked != 0 || !slices.Equal(without.ranked, with[i].ranked) {
			t.Errorf("budget %d: ranked %v with links, %v without", b, with[i].ranked, without.ranked)
		}
	}
}

// A digest that places a decision shows the principles it applies and
// offers them after it, as it offers the decisions it links to.
func TestDigestOffersAppliedPrinciples(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	p := f.remember(t, "ops", mnemo.NewRecord{Kind: mnemo.KindPrinciple, Text: "Redundancy beats cost for every critical link."})
	d := f.remember(t, "ops", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Night passes go through Svalbard and Inuvik both.",
		Decision: &mnemo.Decision{Title: "Two stations for night passes", Principles: []string{p[0].ID}}})
	got, err := f.svc.Digest(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "reader", Role: mnemo.RoleAdmin}, "ops"), mnemo.DigestRequest{Task: "route the night passes", Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Markdown, "  - applies: "+mnemo.ShortRef(p[0].ID)) {
		t.Errorf("the decision's entry does not name its principle:\n%s", got.Markdown)
	}
	var order []string
	for _, e := range got.Entries {
		order = append(order, e.ID)
	}
	i := slices.Index(order, d[0].ID)
	if i < 0 || len(order) < i+2 || order[i+1] != p[0].ID {
		t.Errorf("entries %v: want the decision, then its principle\n%s", order, got.Markdown)
	}
}
