package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

// Degraded mode follows the namespace's event rate whoever writes: two
// services on one SQLite file (two processes, or a server and the CLI)
// flood events together; both see the same rate, α rises with every
// burst, the digest says it is in triage and why, and a minute after the
// flood both rank normally again.
func TestTriageRateIsSharedThroughTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	var mu sync.Mutex
	clock := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	mod := func(c *engine.Config) { c.TriageCapacity = 10; c.Now = now }
	a, b := open(t, path, mod), open(t, path, mod)
	ctx := context.Background()
	digest := func(f *fixture) *mnemo.Digest {
		t.Helper()
		d, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, ""), mnemo.DigestRequest{Task: "relay link alarm", Budget: 2000})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	alpha := func(d *mnemo.Digest) float64 {
		if d.Triage == nil {
			return 0
		}
		return d.Triage.Alpha
	}
	if d := digest(a); d.Triage != nil || strings.Contains(d.Markdown, "Triage") {
		t.Fatalf("triage before any event: %+v", d.Triage)
	}
	prev, events := 0.0, 0
	for step := range 12 {
		var wg sync.WaitGroup
		for i, f := range []*fixture{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var evs []mnemo.NewRecord
				for j := range 3 {
					evs = append(evs, mnemo.NewRecord{Kind: mnemo.KindEvent, Criticality: fp(float64(j) / 3),
						Text: fmt.Sprintf("relay link alarm %d from process %d at step %d", j, i, step)})
				}
				if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), evs, mnemo.WriteOptions{}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		events += 6
		advance(2 * time.Second)
		da, db := digest(a), digest(b)
		if alpha(da) != alpha(db) {
			t.Fatalf("step %d: the two processes disagree: α %v and %v", step, alpha(da), alpha(db))
		}
		if alpha(da) < prev || (events > 10 && alpha(da) <= prev) {
			t.Fatalf("step %d: α %v after %v with %d events", step, alpha(da), prev, events)
		}
		prev = alpha(da)
		if events > 10 {
			if da.Triage.Rate != float64(events) || da.Triage.Limit != 10 {
				t.Fatalf("step %d: triage %+v, want rate %d", step, da.Triage, events)
			}
			note := fmt.Sprintf("_Triage: %d events in the last minute, over this namespace's capacity of 10 a minute", events)
			if !strings.Contains(da.Markdown, note) || da.UsedTokens > 2000 {
				t.Fatalf("step %d: digest lacks the triage note:\n%s", step, da.Markdown)
			}
		}
	}
	if want := 1 - 10.0/72; prev < want-1e-9 || prev > want+1e-9 {
		t.Fatalf("α at the end of the flood %v, want %v", prev, want)
	}
	advance(61 * time.Second)
	for _, f := range []*fixture{a, b} {
		d := digest(f)
		if d.Triage != nil || strings.Contains(d.Markdown, "Triage") {
			t.Fatalf("still in triage a minute after the flood: %+v", d.Triage)
		}
		res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, ""), mnemo.RecallRequest{Query: "relay link alarm"})
		if err != nil || res.Triage != nil {
			t.Fatalf("recall after the flood: %+v %v", res.Triage, err)
		}
	}
}
