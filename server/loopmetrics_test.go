package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/server"
)

// TestLoopMetrics: with scheduled loops, /metrics counts their runs and
// shows the last validation score per namespace.
func TestLoopMetrics(t *testing.T) {
	var runner *loops.Runner
	f := newFixture(t, func(c *server.Config) {
		c.LoopMetrics = func() map[string]loops.NamespaceMetrics { return runner.Metrics() }
	})
	var recs []mnemo.NewRecord
	for i := 0; i < 12; i++ {
		recs = append(recs, mnemo.NewRecord{Text: fmt.Sprintf("Relay station kv%d handles the zt%d uplink window at %02d:00", i, i, i)})
	}
	if _, err := f.svc.Remember(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: "t", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "default"), recs, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	runner = &loops.Runner{Loops: loops.New(f.svc), Caller: mnemo.Caller{Name: "loop", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin},
		WarmEvery: time.Hour, ColdEvery: time.Hour}
	runner.Tick(context.Background())
	_, _, b := f.do(t, call{method: "GET", path: "/metrics"})
	for _, want := range []string{
		`mnemo_loop_runs_total{namespace="default",loop="warm"} 1`,
		`mnemo_loop_failures_total{namespace="default"} 0`,
		`mnemo_loop_validation{namespace="default"} `,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %q:\n%s", want, b)
		}
	}
}
