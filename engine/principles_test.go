package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestPrinciples: decisions cite principles by id (or name them in
// words); the registry lists each principle with the decisions that apply
// it; a citation of an unknown id, of a principle above the writer's
// clearance or more restricted than the decision is refused, and nothing
// above the reader's clearance is listed.
func TestPrinciples(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	public := mnemo.Caller{Name: "reader", Clearance: 0, Role: mnemo.RoleAdmin}
	w := f.remember(t, "",
		mnemo.NewRecord{Kind: mnemo.KindPrinciple, Text: "Prefer boring technology."},
		mnemo.NewRecord{Kind: mnemo.KindPrinciple, Text: "Keep the vault keys offline.", AccessLevel: 3},
		mnemo.NewRecord{Text: "The office has a ramen bar."},
	)
	boring, vault, fact := w[0].ID, w[1].ID, w[2].ID
	if w[0].Record.Layer != mnemo.LayerWorkflow {
		t.Errorf("a principle lands in layer %s, want workflow", w[0].Record.Layer)
	}
	d := f.remember(t, "",
		mnemo.NewRecord{Text: "Use SQLite as the embedded store.", Decision: &mnemo.Decision{Title: "Embedded store",
			Principles: []string{boring, boring}, Status: "accepted"}},
		mnemo.NewRecord{Text: "Deploy with plain systemd units.", Decision: &mnemo.Decision{Principle: "prefer boring technology"}},
		mnemo.NewRecord{Text: "Rotate the vault keys by hand.", Decision: &mnemo.Decision{Principles: []string{vault, boring}}, AccessLevel: 3},
	)
	sqliteDec, systemd, rotate := d[0].ID, d[1].ID, d[2].ID
	if got := d[0].Record.Decision.Principles; len(got) != 1 {
		t.Errorf("cited principles %v, want one (deduplicated)", got)
	}

	remember := func(c mnemo.Caller, n mnemo.NewRecord) error {
		_, err := f.svc.Remember(mnemo.WithCallerIn(ctx, c, ""), []mnemo.NewRecord{n}, mnemo.WriteOptions{})
		return err
	}
	unknown := remember(public, mnemo.NewRecord{Text: "x", Decision: &mnemo.Decision{Principles: []string{"01NOSUCHPRINCIPLE"}}})
	hidden := remember(public, mnemo.NewRecord{Text: "x", Decision: &mnemo.Decision{Principles: []string{vault}}})
	for name, err := range map[string]error{"unknown": unknown, "above clearance": hidden} {
		if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(mnemo.ErrorMessage(err), "is not a principle of this namespace") {
			t.Errorf("%s principle: %v, want EINVALID saying it is not a principle", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "offline") {
			t.Errorf("%s principle: the error leaks the principle: %v", name, err)
		}
	}
	if err := remember(admin, mnemo.NewRecord{Text: "x", Decision: &mnemo.Decision{Principles: []string{fact}}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("citing a fact: %v, want EINVALID", err)
	}
	if err := remember(admin, mnemo.NewRecord{Text: "x", Decision: &mnemo.Decision{Principles: []string{vault}}}); mnemo.ErrorCode(err) != mnemo.EINVALID ||
		!strings.Contains(mnemo.ErrorMessage(err), "more restricted") {
		t.Errorf("a public decision citing a level-3 principle: %v, want EINVALID", err)
	}
	if err := remember(admin, mnemo.NewRecord{Text: "x", Decision: &mnemo.Decision{Principles: []string{"bad id!"}}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("a malformed id: %v, want EINVALID", err)
	}
	// A principle written in the same batch may be cited.
	batch, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{
		{ID: "principle-small-batches", Kind: mnemo.KindPrinciple, Text: "Ship in small batches."},
		{Text: "Release weekly.", Decision: &mnemo.Decision{Principles: []string{"principle-small-batches"}}},
	}, mnemo.WriteOptions{})

	if err != nil {
		t.Fatalf("citing a principle of the same batch: %v", err)
	}
	// An edit is checked as a write.
	bad := mnemo.Decision{Principles: []string{"01NOSUCHPRINCIPLE"}}
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), systemd, mnemo.RecordPatch{Decision: &bad}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("an edit citing an unknown principle: %v, want EINVALID", err)
	}
	lvl0 := 0
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), rotate, mnemo.RecordPatch{AccessLevel: &lvl0}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("lowering a decision below its principle: %v, want EINVALID", err)
	}

	list, err := f.svc.Principles(mnemo.WithCallerIn(ctx, public, ""))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(list)
	if strings.Contains(string(b), "vault") || strings.Contains(string(b), rotate) {
		t.Errorf("clearance 0 sees the level-3 principle or decision: %s", b)
	}
	if len(list) != 2 || list[0].ID != boring {
		t.Fatalf("principles at clearance 0 = %s, want boring technology first, then small batches", b)
	}
	got := map[string]string{}
	for _, d := range list[0].Decisions {
		got[d.ID] = d.Cites
	}
	if len(got) != 2 || got[sqliteDec] != "id" || got[systemd] != "text" {
		t.Errorf("decisions applying boring technology = %v, want the SQLite one by id and the systemd one by text", got)
	}
	if list[1].ID != "principle-small-batches" || len(list[1].Decisions) != 1 || list[1].Decisions[0].ID != batch[1].ID {
		t.Errorf("second principle = %+v", list[1])
	}
	all, err := f.svc.Principles(mnemo.WithCallerIn(ctx, admin, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || len(all[0].Decisions) != 3 {
		t.Errorf("principles at clearance max = %+v, want 3, boring technology applied 3 times", all)
	}
	// A forgotten principle leaves the registry.
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), "principle-small-batches"); err != nil {
		t.Fatal(err)
	}
	if list, _ := f.svc.Principles(mnemo.WithCallerIn(ctx, public, "")); len(list) != 1 {
		t.Errorf("after forgetting one: %d principles, want 1", len(list))
	}
}
