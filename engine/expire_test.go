package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestExpireArchivesUnimportantUnusedRecords(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	day := 24 * time.Hour
	f.now = f.now.Add(-200 * day) // written 200 days ago
	w := f.remember(t, "",
		mnemo.NewRecord{Text: "stale trivia about the canteen menu", Importance: fp(0.05)},
		mnemo.NewRecord{Text: "stale but important relay handover rule", Importance: fp(0.9)},
		mnemo.NewRecord{Text: "unimportant but read lately: antenna wax schedule", Importance: fp(0.05)},
		mnemo.NewRecord{Text: "pinned identity of the mission", Importance: fp(0.01), Kind: mnemo.KindCore},
		mnemo.NewRecord{Text: "unimportant, edited lately: parking rota", Importance: fp(0.02)},
		mnemo.NewRecord{Text: "a second stale trivia line about mugs", Importance: fp(0.09), AccessLevel: 3},
	)
	trivia, important, read, core, edited, secret := w[0].ID, w[1].ID, w[2].ID, w[3].ID, w[4].ID, w[5].ID
	f.now = f.now.Add(170 * day) // 30 days ago: a read and an edit
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "antenna wax schedule", K: 1}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rota := "unimportant, edited lately: parking rota v2"
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), edited, mnemo.RecordPatch{Text: &rota}); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(30 * day) // today

	dry, err := f.svc.Expire(mnemo.WithCallerIn(ctx, admin, ""), mnemo.ExpireOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || dry.Checked != 6 || !slices.Equal(dry.Archived, []string{trivia, secret}) {
		t.Fatalf("dry run %+v, want %s and %s", dry, trivia, secret)
	}
	if r := get(t, f, "", trivia); r.DeletedAt != nil {
		t.Fatal("a dry run archived a record")
	}
	// A caller archives only what its clearance sees.
	low := mnemo.Caller{Name: "ops", Clearance: 1, Role: mnemo.RoleAdmin}
	res, err := f.svc.Expire(mnemo.WithCallerIn(ctx, low, ""), mnemo.ExpireOptions{})
	if err != nil || !slices.Equal(res.Archived, []string{trivia}) {
		t.Fatalf("expire: %+v %v", res, err)
	}
	for id, gone := range map[string]bool{trivia: true, important: false, read: false, core: false, edited: false, secret: false} {
		if r := get(t, f, "", id); (r.DeletedAt != nil) != gone {
			t.Errorf("%s (%q): archived %v, want %v", id, r.Text, r.DeletedAt != nil, gone)
		}
	}
	hist, err := f.svc.History(mnemo.WithCallerIn(ctx, admin, ""), trivia)
	if err != nil || hist[len(hist)-1].Action != "expire" || hist[len(hist)-1].Actor != "ops" {
		t.Fatalf("history of the archived record: %+v %v", hist, err)
	}
	if _, err := f.svc.Restore(mnemo.WithCallerIn(ctx, admin, ""), trivia); err != nil {
		t.Fatal(err)
	}
	if r := get(t, f, "", trivia); r.DeletedAt != nil {
		t.Error("restore did not bring the archived record back")
	}
	for _, bad := range []mnemo.ExpireOptions{{MaxImportance: 2}, {MaxImportance: -0.1}, {Idle: time.Hour}} {
		if _, err := f.svc.Expire(mnemo.WithCallerIn(ctx, admin, ""), bad); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%+v: %v, want %s", bad, err, mnemo.EINVALID)
		}
	}
}

func TestExpireAll(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	f.now = f.now.Add(-365 * 24 * time.Hour)
	for _, ns := range []string{"a", "b"} {
		f.remember(t, ns, mnemo.NewRecord{Text: "stale trivia in " + ns, Importance: fp(0.01)},
			mnemo.NewRecord{Text: "kept rule in " + ns, Importance: fp(0.8)})
	}
	f.remember(t, "c", mnemo.NewRecord{Text: "kept rule in c", Importance: fp(0.8)})
	f.now = f.now.Add(365 * 24 * time.Hour)
	got, err := f.svc.ExpireAll(ctx, "expiry", mnemo.ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a"] != 1 || got["b"] != 1 {
		t.Errorf("ExpireAll = %v, want a:1 b:1", got)
	}
	if got, _ := f.svc.ExpireAll(ctx, "expiry", mnemo.ExpireOptions{}); len(got) != 0 {
		t.Errorf("second run archived %v", got)
	}
}

func TestPurgeAfterRetention(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	w := f.remember(t, "", mnemo.NewRecord{Text: "forgotten long ago"}, mnemo.NewRecord{Text: "forgotten lately"},
		mnemo.NewRecord{Text: "kept"})
	f.now = f.now.Add(-400 * 24 * time.Hour)
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), w[0].ID); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(390 * 24 * time.Hour)
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), w[1].ID); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(10 * 24 * time.Hour)
	if _, err := f.svc.Purge(mnemo.WithCallerIn(ctx, admin, ""), time.Hour); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("a retention under a day: %v", err)
	}
	got, err := f.svc.PurgeAll(ctx, 365*24*time.Hour)
	if err != nil || got[mnemo.DefaultNamespace] != 1 || len(got) != 1 {
		t.Fatalf("PurgeAll = %v %v, want 1 in the default namespace", got, err)
	}
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, ""), w[0].ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("purged record: %v", err)
	}
	if _, err := f.svc.Restore(mnemo.WithCallerIn(ctx, admin, ""), w[0].ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("restore of a purged record: %v", err)
	}
	if _, err := f.svc.Restore(mnemo.WithCallerIn(ctx, admin, ""), w[1].ID); err != nil {
		t.Errorf("a record forgotten within the retention period should still restore: %v", err)
	}
}
