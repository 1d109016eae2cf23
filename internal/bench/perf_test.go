package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/internal/synth"
)

func TestNewLatency(t *testing.T) {
	var s []time.Duration
	for i := 100; i >= 1; i-- {
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	l := NewLatency(s)
	if l.P50 != 50*time.Millisecond || l.P95 != 95*time.Millisecond || l.P99 != 99*time.Millisecond || l.Mean != 50500*time.Microsecond {
		t.Errorf("latency %+v", l)
	}
	if (NewLatency(nil) != Latency{}) {
		t.Error("empty samples")
	}
	if l := NewLatency([]time.Duration{3}); l.P99 != 3 || l.P50 != 3 {
		t.Errorf("one sample: %+v", l)
	}
}

func TestRunPerfSmall(t *testing.T) {
	rep, err := RunPerf(context.Background(), PerfOptions{Sizes: []int{100, 300}, Queries: 5, Batch: 64, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sizes) != 2 || rep.Sizes[1].Records != 300 || rep.WriteRecords != 300 || rep.WriteRecordsPerS <= 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, s := range rep.Sizes {
		if s.Digest.P50 <= 0 || s.Recall.P99 < s.Recall.P50 || s.Floor.P50 <= 0 || s.DigestFloorRatio <= 0 {
			t.Errorf("size %d: %+v", s.Records, s)
		}
	}
	if c := rep.WriteCheck; c == nil || c.Small != 100 || c.Large != 300 || c.Writes != 25 || c.LeadIn != 25 {
		t.Errorf("write check %+v", c)
	}
	if _, ok := processCPU(); ok && rep.WriteCPUSeconds <= 0 {
		t.Errorf("the load's CPU time not reported: %v s", rep.WriteCPUSeconds)
	}
	if rep.HeapBytes == 0 || rep.MemoryAfter != 300 {
		t.Errorf("memory %d heap after %d", rep.HeapBytes, rep.MemoryAfter)
	}
	b, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(b), `"p95_ms"`) {
		t.Errorf("json %s %v", b, err)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "| 300 |") ||
		rep.WriteCPUSeconds > 0 && !strings.Contains(md.String(), "cores busy") {
		t.Errorf("markdown %q %v", md.String(), err)
	}
	if _, err := RunPerf(context.Background(), PerfOptions{Sizes: []int{10, 5}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("descending sizes: %v", err)
	}
}

// BenchmarkDigest measures one digest (budget 2000) on a store of 10k
// synthetic records.
func BenchmarkDigest(b *testing.B) {
	ctx := context.Background()
	svc, _ := enginetest.Open(b, func(c *engine.Config) { c.Embedder = embed.NewCached(embed.NewHash(0), 1024) })
	syn := synth.NewWorkload(1, time.Now())
	for range 20 {
		if _, err := svc.Remember(mnemo.WithCallerIn(ctx, benchCaller, "b"), syn.Records(500), mnemo.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = syn.Query()
	}
	i := 0
	for b.Loop() {
		if _, err := svc.Digest(mnemo.WithCallerIn(ctx, benchCaller, "b"), mnemo.DigestRequest{Task: queries[i%len(queries)], Budget: 2000}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestRunPerfCPUProfile: with CPUProfile set, the queries of the largest
// size leave a CPU profile (gzipped, as runtime/pprof writes it). Its op
// labels are not checked: whether a short run's samples carry any depends
// on the profiler's timing.
func TestRunPerfCPUProfile(t *testing.T) {
	var buf bytes.Buffer
	if _, err := RunPerf(context.Background(), PerfOptions{Sizes: []int{300}, Queries: 40, Batch: 100, Dir: t.TempDir(),
		NoLearned: true, CPUProfile: &buf, WriteCheck: WriteCheckOptions{Small: 20, Large: 40, Writes: 5}}); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatalf("not a gzipped profile: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 {
		t.Fatal("empty profile")
	}
}

// TestRunPerfInFlight: with several writes in flight the load writes every
// record once, and the report says how it was written.
func TestRunPerfInFlight(t *testing.T) {
	dir := t.TempDir()
	rep, err := RunPerf(context.Background(), PerfOptions{Sizes: []int{250, 700}, Queries: 5, Batch: 60, InFlight: 3, Dir: dir,
		NoLearned: true, WriteCheck: WriteCheckOptions{Small: 20, Large: 40, Writes: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.WriteRecords != 700 || rep.InFlight != 3 {
		t.Fatalf("wrote %d records with %d in flight, want 700 with 3", rep.WriteRecords, rep.InFlight)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "3 in flight") {
		t.Errorf("report does not say how it wrote (%v):\n%s", err, md.String())
	}
	if _, err := RunPerf(context.Background(), PerfOptions{Sizes: []int{10}, InFlight: 17, Dir: t.TempDir()}); err == nil {
		t.Error("17 writes in flight accepted")
	}
}

// TestFullStall reads the total of the "full" line of a pressure stall
// file, and -1 from one without it or with a total that is no number.
func TestFullStall(t *testing.T) {
	for text, want := range map[string]int64{
		"some avg10=1.32 avg60=2.27 avg300=6.79 total=637655118\nfull avg10=1.00 avg60=1.99 avg300=6.11 total=475449212\n": 475449212,
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=12\n":                                                                -1,
		"full avg10=1.00 total=x\n": -1,
		"":                          -1,
	} {
		if got := fullStall(text); got != want {
			t.Errorf("fullStall(%q) = %d, want %d", text, got, want)
		}
	}
}
