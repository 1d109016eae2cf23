package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/stats"
)

// percentiles returns p50 and p95 of ds in milliseconds.
func percentiles(ds []time.Duration) (p50, p95 float64) {
	slices.Sort(ds)
	at := func(p float64) float64 { return float64(stats.Percentile(ds, p).Microseconds()) / 1000 }
	return at(0.50), at(0.95)
}

// runProcess times n whole runs of the real mnemo binary with the given stdin.
func runProcess(b *testing.B, n int, stdin func(i int) string, args ...string) []time.Duration {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		cmd := exec.Command(mnemoBin, args...)
		cmd.Stdin = strings.NewReader(stdin(i))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		ds = append(ds, time.Since(start))
		if err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	return ds
}

// BenchmarkProcessCapture times the whole `mnemo capture` process (start to
// exit) per prompt, p50 and p95 over 200 prompts:
//
//	go test -run '^$' -bench ProcessCapture -benchtime 1x ./cmd/mnemo/
func BenchmarkProcessCapture(b *testing.B) {
	for b.Loop() {
		repo := filepath.Join(b.TempDir(), "prompts.git")
		ds := runProcess(b, 200, func(i int) string {
			return fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":"fix the flaky test number %d","permission_mode":"default"}`, i%4, i)
		}, "capture", "--repo", repo)
		p50, p95 := percentiles(ds)
		b.ReportMetric(p50, "p50-ms")
		b.ReportMetric(p95, "p95-ms")
	}
}

// BenchmarkProcessSessionStart times the whole `mnemo hook session-start`
// process over a store of 10,000 records, p50 and p95 over 50 runs:
//
//	go test -run '^$' -bench ProcessSessionStart -benchtime 1x ./cmd/mnemo/
func BenchmarkProcessSessionStart(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "m.db")
	in := filepath.Join(dir, "10k.jsonl")
	writeJSONLB(b, in, 10000)
	if out, err := exec.Command(mnemoBin, "--db", db, "import", in).CombinedOutput(); err != nil {
		b.Fatalf("import: %v\n%s", err, out)
	}
	hookIn := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`
	for b.Loop() {
		ds := runProcess(b, 50, func(int) string { return hookIn }, "--db", db, "hook", "session-start")
		p50, p95 := percentiles(ds)
		b.ReportMetric(p50, "p50-ms")
		b.ReportMetric(p95, "p95-ms")
	}
}

func writeJSONLB(b *testing.B, path string, n int) {
	t := &testing.T{}
	writeJSONL(t, path, "B", n)
	if t.Failed() {
		b.Fatal("writing fixture failed")
	}
}
