package engine_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/synth"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// BenchmarkRememberBatch measures batched writes as `mnemo bench perf`
// makes them: batches of 500 generated records (the hash embedder of 384
// dimensions behind its cache, dedup off) into one namespace of a new
// SQLite store whose index is not loaded; one op is one batch.
//
//	go test ./engine -run '^$' -bench RememberBatch -benchtime 40x -cpuprofile cpu.prof
func BenchmarkRememberBatch(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(b.TempDir(), "m.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	tok, err := tokenize.New("")
	if err != nil {
		b.Fatal(err)
	}
	svc, err := engine.New(ctx, engine.Config{Store: st, Embedder: embed.NewCached(embed.NewHash(0), 1024), Tokenizer: tok, NoLearned: true})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	syn := synth.NewWorkload(1, time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	wctx := mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "bench", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "perf")
	batches := make([][]mnemo.NewRecord, b.N)
	for i := range batches {
		batches[i] = syn.Records(500)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := svc.Remember(wctx, batches[i], mnemo.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "records/s")
}
