package loops_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/tuning"
)

// BenchmarkCycles times one warm and one cold cycle (the cold one repairing
// a configuration that ignores meaning) on a store of N records (topics of
// 16 records each): 10,000 by default, MNEMO_LOOPS_BENCH_N to change it.
//
//	go test ./loops/ -run '^$' -bench Cycles -benchtime 1x
func BenchmarkCycles(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_LOOPS_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	f := open(b)
	ctx := context.Background()
	f.seed(b, "ops", n/16, 16, 9, 0)
	l := loops.New(f.svc)
	l.NoAdjust = true
	b.Run(fmt.Sprintf("warm/%d", n), func(b *testing.B) {
		for range b.N {
			run, err := l.Warm(ctx, admin, "ops")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(run.Validation, "validation")
			b.ReportMetric(float64(run.Probes), "probes")
		}
	})
	b.Run(fmt.Sprintf("cold/%d", n), func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			if _, err := f.svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, "ops"), broken(f.svc), tuning.ConfigChange{Reason: "bench: ignore meaning"}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			run, err := l.Cold(ctx, admin, "ops")
			if err != nil {
				b.Fatal(err)
			}
			if !run.Accepted {
				b.Fatalf("cold: %+v", run)
			}
			b.ReportMetric(run.ValidationBefore, "before")
			b.ReportMetric(run.ValidationAfter, "after")
		}
	})
}
