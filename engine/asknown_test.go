package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestAsKnownAt: recall, digest and list with as_known_at answer from the
// records as they were known then — the text of that time, records
// written later or forgotten by then absent — and a caller never sees a
// revision above its clearance, nor a record raised above it since.
func TestAsKnownAt(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	tick := func() time.Time {
		time.Sleep(3 * time.Millisecond)
		now := time.Now().UTC()
		time.Sleep(3 * time.Millisecond)
		f.now = time.Now().UTC()
		return now
	}
	tick()
	lvl3 := 3
	w := f.remember(t, "",
		mnemo.NewRecord{Text: "The release deploy window is Tuesday morning."},
		mnemo.NewRecord{Text: "The staging database runs PostgreSQL 14."},
		mnemo.NewRecord{Text: "The release deploy key rotates every month.", AccessLevel: lvl3},
		mnemo.NewRecord{Text: "The release deploy runbook lives in the team wiki."},
	)
	window, staging, key, runbook := w[0].ID, w[1].ID, w[2].ID, w[3].ID
	t1 := tick()
	thursday := "The release deploy window is Thursday evening."
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), window, mnemo.RecordPatch{Text: &thursday}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), staging); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), runbook, mnemo.RecordPatch{AccessLevel: &lvl3}); err != nil {
		t.Fatal(err)
	}
	later := f.remember(t, "", mnemo.NewRecord{Text: "The release deploy freeze starts in December."})[0].ID
	t2 := tick()

	public := mnemo.Caller{Name: "reader", Clearance: 0, Role: mnemo.RoleAdmin}
	recall := func(c mnemo.Caller, q string, at time.Time) map[string]string {
		t.Helper()
		res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, c, ""), mnemo.RecallRequest{Query: q, K: 10, Filter: mnemo.Filter{AsKnownAt: &at}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, h := range res.Hits {
			out[h.ID] = h.Text
		}
		return out
	}
	got := recall(public, "release deploy window", t1)
	if got[window] != "The release deploy window is Tuesday morning." {
		t.Errorf("at t1 the window reads %q, want Tuesday (hits %v)", got[window], got)
	}
	for _, id := range []string{later, key, runbook} {
		if _, ok := got[id]; ok {
			t.Errorf("at t1, clearance 0, recall shows %s: %v", id, got)
		}
	}
	got = recall(public, "release deploy window", t2)
	if got[window] != thursday {
		t.Errorf("at t2 the window reads %q, want Thursday", got[window])
	}
	if _, ok := got[later]; !ok {
		t.Errorf("at t2 the freeze written after t1 is missing: %v", got)
	}
	if _, ok := got[runbook]; ok {
		t.Errorf("the runbook raised to level 3 shows at clearance 0: %v", got)
	}
	if _, ok := recall(public, "staging database PostgreSQL", t1)[staging]; !ok {
		t.Error("at t1 the staging record, forgotten later, is missing")
	}
	if _, ok := recall(public, "staging database PostgreSQL", t2)[staging]; ok {
		t.Error("at t2 the forgotten staging record shows")
	}
	if _, ok := recall(admin, "release deploy key rotates", t1)[key]; !ok {
		t.Error("at clearance 3 the key record is missing")
	}
	if _, ok := recall(admin, "release deploy runbook wiki", t1)[runbook]; !ok {
		t.Error("at clearance 3 the runbook is missing")
	}
	// Before anything was written, nothing was known.
	if got := recall(admin, "release deploy", t1.Add(-time.Hour)); len(got) != 0 {
		t.Errorf("before the first write: %v", got)
	}

	d, err := f.svc.Digest(mnemo.WithCallerIn(ctx, public, ""), mnemo.DigestRequest{Task: "plan the release deploy window", Filter: mnemo.Filter{AsKnownAt: &t1}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Markdown, "Tuesday") || strings.Contains(d.Markdown, "Thursday") ||
		strings.Contains(d.Markdown, "rotates") || strings.Contains(d.Markdown, "runbook") {
		t.Errorf("digest at t1, clearance 0:\n%s", d.Markdown)
	}
	list, err := f.svc.List(mnemo.WithCallerIn(ctx, public, ""), mnemo.ListOptions{Filter: mnemo.Filter{AsKnownAt: &t1}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range list {
		ids = append(ids, r.ID)
		if r.AccessLevel > 0 {
			t.Errorf("list at clearance 0 shows a level-%d revision", r.AccessLevel)
		}
	}
	if len(ids) != 2 || !slices.Contains(ids, window) || !slices.Contains(ids, staging) {
		t.Errorf("list at t1, clearance 0 = %v, want the window and staging records", ids)
	}
	// The live path is untouched.
	live := recall0(t, f, public, "release deploy window")
	if live[window] != thursday {
		t.Errorf("a live recall reads %q", live[window])
	}
}

func recall0(t *testing.T, f *fixture, c mnemo.Caller, q string) map[string]string {
	t.Helper()
	res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), c, ""), mnemo.RecallRequest{Query: q, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, h := range res.Hits {
		out[h.ID] = h.Text
	}
	return out
}
