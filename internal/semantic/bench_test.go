package semantic

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"
)

// peakHeap samples the live heap (as of the last collection) every few milliseconds while fn runs and
// returns the largest sample in bytes.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak
}

var lastCPU float64

// cpuSeconds returns the process's CPU time since its previous call.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	t := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	d := t - lastCPU
	lastCPU = t
	return d
}

func benchTrain(b *testing.B, n int) {
	texts := zipfCorpus(1, n, 20000)
	var m *Model
	var peak uint64
	cpuSeconds()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			var err error
			if m, err = Train(context.Background(), texts, Config{}); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(m.Len()), "terms")
	b.ReportMetric(float64(m.pairs), "pairs")
	b.ReportMetric(cpuSeconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(len(m.Marshal()))/(1<<20), "model-MB")
}

// BenchmarkTrain6k, 50k and 100k train on 6,000, 50,000 and 100,000
// generated records of 10 to 40 words (zipfCorpus).
func BenchmarkTrain6k(b *testing.B)   { benchTrain(b, 6000) }
func BenchmarkTrain50k(b *testing.B)  { benchTrain(b, 50000) }
func BenchmarkTrain100k(b *testing.B) { benchTrain(b, 100000) }

func BenchmarkExpand(b *testing.B) {
	m, err := Train(context.Background(), zipfCorpus(1, 50000, 20000), Config{})
	if err != nil {
		b.Fatal(err)
	}
	q := []string{m.terms[100], m.terms[2000], m.terms[5000]}
	thr := m.NullSim(0.99)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			m.mu.Lock()
			clear(m.cache)
			m.mu.Unlock()
			m.Expand(q, 10, thr)
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			m.Expand(q, 10, thr)
		}
	})
	b.Run("embed", func(b *testing.B) {
		text := "the " + m.terms[10] + " and " + m.terms[300] + " with " + m.terms[4000] + " " + m.terms[50]
		for b.Loop() {
			m.Embed(text)
		}
	})
}
