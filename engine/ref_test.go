package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// A digest names its entries by short references; every operation that
// takes a record id takes them as well, within the caller's clearance,
// and an ambiguous one is refused.
func TestShortReferences(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	w := f.remember(t, "ops",
		mnemo.NewRecord{Text: "The Svalbard ground station takes the night passes."},
		mnemo.NewRecord{Text: "The Svalbard uplink needs the RF safety officer above 200 W.", AccessLevel: 3},
		mnemo.NewRecord{ID: "01J" + strings.Repeat("A", 16) + "ZQ00001", Text: "Inuvik is in maintenance this week."},
		mnemo.NewRecord{ID: "01J" + strings.Repeat("B", 16) + "ZQ00001", Text: "Inuvik returns next Monday."},
	)
	id, secret := w[0].Record.ID, w[1].Record.ID
	ref := mnemo.ShortRef(id)
	if len(ref) != mnemo.RefLen || !strings.HasSuffix(id, ref) {
		t.Fatalf("ShortRef(%s) = %s", id, ref)
	}
	reader := mnemo.Caller{Name: "reader", Clearance: 1, Role: mnemo.RoleAdmin}
	d, err := f.svc.Digest(mnemo.WithCallerIn(ctx, reader, "ops"), mnemo.DigestRequest{Task: "who takes the Svalbard night passes", Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Markdown, "["+ref+"]") || strings.Contains(d.Markdown, id) {
		t.Errorf("the digest does not name the entry by its reference %s:\n%s", ref, d.Markdown)
	}
	if len(d.Entries) == 0 || d.Entries[0].ID != id {
		t.Errorf("the digest's entries keep whole ids: %+v", d.Entries)
	}
	if got, err := f.svc.Get(mnemo.WithCallerIn(ctx, reader, "ops"), ref); err != nil || got.ID != id {
		t.Errorf("Get(%s) = %v, %v", ref, got, err)
	}
	if revs, err := f.svc.History(mnemo.WithCallerIn(ctx, reader, "ops"), ref); err != nil || len(revs) == 0 {
		t.Errorf("History(%s) = %v, %v", ref, revs, err)
	}
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, reader, "ops"), mnemo.ShortRef(secret)); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("a reference above the clearance: %v, want ENOTFOUND", err)
	}
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, reader, "other"), ref); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("a reference in another namespace: %v, want ENOTFOUND", err)
	}
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, reader, "ops"), "ZQ00001"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("a suffix shorter than a reference: %v, want ENOTFOUND", err)
	}
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, reader, "ops"), "XZQ00001"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND && err == nil {
		t.Errorf("an unknown reference forgot something")
	}
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, "ops"), "BZQ00001"); err != nil {
		t.Errorf("Forget by a unique reference: %v", err)
	}
	w2 := f.remember(t, "ops", mnemo.NewRecord{ID: "01J" + strings.Repeat("C", 15) + "BZQ00001", Text: "Inuvik is back."})
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, "ops"), "BZQ00001"); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("an ambiguous reference: %v, want EINVALID", err)
	}
	r, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{{Text: "The Svalbard station takes every night pass from Monday.", Supersedes: ref}}, mnemo.WriteOptions{})
	if err != nil || len(r) != 1 {
		t.Fatalf("supersede by reference: %v", err)
	}
	if old, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, "ops"), id); err != nil || old.ValidTo == nil {
		t.Errorf("the record superseded by reference is still valid: %+v %v", old, err)
	}
	_ = w2
}
