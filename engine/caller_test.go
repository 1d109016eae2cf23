package engine_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestServiceFailsClosedWithoutCaller: a context that carries no caller
// is refused by reads and writes alike, and writes nothing.
func TestServiceFailsClosedWithoutCaller(t *testing.T) {
	f := open(t, "", nil)
	r := f.remember(t, "ops", mnemo.NewRecord{Text: "The Svalbard pass needs the backup uplink."})[0]
	bare := mnemo.WithNamespace(context.Background(), "ops") // a namespace, no caller
	if _, err := f.svc.Get(bare, r.ID); mnemo.ErrorCode(err) != mnemo.EUNAUTHORIZED {
		t.Errorf("get without a caller: %v, want %s", err, mnemo.EUNAUTHORIZED)
	}
	if _, err := f.svc.Recall(bare, mnemo.RecallRequest{Query: "Svalbard uplink"}); mnemo.ErrorCode(err) != mnemo.EUNAUTHORIZED {
		t.Errorf("recall without a caller: %v, want %s", err, mnemo.EUNAUTHORIZED)
	}
	if _, err := f.svc.Remember(bare, []mnemo.NewRecord{{Text: "written by nobody"}}, mnemo.WriteOptions{}); mnemo.ErrorCode(err) != mnemo.EUNAUTHORIZED {
		t.Errorf("remember without a caller: %v, want %s", err, mnemo.EUNAUTHORIZED)
	}
	if _, err := f.svc.Purge(bare, 48*time.Hour); mnemo.ErrorCode(err) != mnemo.EUNAUTHORIZED {
		t.Errorf("purge without a caller: %v, want %s", err, mnemo.EUNAUTHORIZED)
	}
	if n, _ := f.store.Count(context.Background(), "ops"); n != 1 {
		t.Errorf("%d records in ops after the refused calls, want 1", n)
	}
}

// TestServiceChecksRoles: the service, not the transports, decides what
// each role may do; a refused call changes nothing.
func TestServiceChecksRoles(t *testing.T) {
	f := open(t, "", nil)
	r := f.remember(t, "ops", mnemo.NewRecord{Text: "The Svalbard pass needs the backup uplink."})[0]
	as := func(role mnemo.Role) context.Context {
		return mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: string(role) + "-key", Role: role, Clearance: mnemo.MaxAccessLevel}, "ops")
	}
	reader, writer := as(mnemo.RoleRead), as(mnemo.RoleWrite)

	// Every role that reads namespaces reads; none and metrics do not.
	for _, role := range []mnemo.Role{mnemo.RoleRead, mnemo.RoleWrite, mnemo.RoleAdmin} {
		if _, err := f.svc.Get(as(role), r.ID); err != nil {
			t.Errorf("get as %s: %v", role, err)
		}
	}
	for _, role := range []mnemo.Role{"", mnemo.RoleMetrics} {
		if _, err := f.svc.Get(as(role), r.ID); mnemo.ErrorCode(err) != mnemo.EFORBIDDEN {
			t.Errorf("get as %q: %v, want %s", role, err, mnemo.EFORBIDDEN)
		}
	}

	// A read key changes nothing.
	text := "changed by a read key"
	writes := map[string]func() error{
		"remember": func() error {
			_, err := f.svc.Remember(reader, []mnemo.NewRecord{{Text: text}}, mnemo.WriteOptions{})
			return err
		},
		"update":  func() error { _, err := f.svc.Update(reader, r.ID, mnemo.RecordPatch{Text: &text}); return err },
		"forget":  func() error { _, err := f.svc.Forget(reader, r.ID); return err },
		"restore": func() error { _, err := f.svc.Restore(reader, r.ID); return err },
		"import": func() error {
			_, err := f.svc.Import(reader, strings.NewReader(`{"id":"x1","text":"`+text+`"}`+"\n"), nil)
			return err
		},
		"summarize": func() error { _, err := f.svc.Summarize(reader, "t", 0); return err },
	}
	for name, op := range writes {
		if err := op(); mnemo.ErrorCode(err) != mnemo.EFORBIDDEN || !strings.Contains(err.Error(), "cannot change records") {
			t.Errorf("%s as read: %v, want %s", name, err, mnemo.EFORBIDDEN)
		}
	}

	// A write key does not administer.
	admins := map[string]func(ctx context.Context) error{
		"expire":      func(ctx context.Context) error { _, err := f.svc.Expire(ctx, mnemo.ExpireOptions{}); return err },
		"purge":       func(ctx context.Context) error { _, err := f.svc.Purge(ctx, 48*time.Hour); return err },
		"consolidate": func(ctx context.Context) error { _, err := f.svc.Consolidate(ctx, true); return err },
		"tune": func(ctx context.Context) error {
			_, err := f.svc.Tune(ctx, mnemo.CorrectionRequest{}, true)
			return err
		},
		"rollback": func(ctx context.Context) error { _, err := f.svc.Rollback(ctx, 0); return err },
		"triples": func(ctx context.Context) error {
			_, err := f.svc.CorrectionTriples(ctx, mnemo.CorrectionRequest{}, func(mnemo.CorrectionTriple) error { return nil })
			return err
		},
	}
	for name, op := range admins {
		for _, ctx := range []context.Context{reader, writer} {
			if err := op(ctx); mnemo.ErrorCode(err) != mnemo.EFORBIDDEN {
				t.Errorf("%s without admin: %v, want %s", name, err, mnemo.EFORBIDDEN)
			}
		}
	}

	var exp bytes.Buffer
	if _, err := f.svc.Export(as(mnemo.RoleAdmin), &exp); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(exp.String(), text) || strings.Count(exp.String(), "\n") != 1 {
		t.Errorf("refused calls changed the namespace:\n%s", exp.String())
	}
	if _, err := f.svc.Forget(writer, r.ID); err != nil {
		t.Errorf("forget as write: %v", err)
	}
}

// TestRetrievalLogVisibility: an administrator sees every caller's
// retrievals, anyone else only their own.
func TestRetrievalLogVisibility(t *testing.T) {
	f := open(t, "", nil)
	f.remember(t, "ops", mnemo.NewRecord{Text: "The Svalbard pass needs the backup uplink."})
	kim := mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: "kim", Role: mnemo.RoleRead}, "ops")
	lee := mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: "lee", Role: mnemo.RoleWrite}, "ops")
	boss := mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: "boss", Role: mnemo.RoleAdmin}, "ops")
	for _, ctx := range []context.Context{kim, lee} {
		if _, err := f.svc.Recall(ctx, mnemo.RecallRequest{Query: "Svalbard uplink"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for ctx, want := range map[context.Context]int{kim: 1, lee: 1, boss: 2} {
		logs, _, err := f.svc.RecentRetrievals(ctx, 0, 10)
		if err != nil || len(logs) != want {
			c, _ := mnemo.CallerFrom(ctx)
			t.Errorf("%s sees %d retrievals (%v), want %d", c.Name, len(logs), err, want)
		}
	}
}
