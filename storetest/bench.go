package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/stats"
	"github.com/mnemo-dev/mnemo/internal/synth"
)

// The benchmarks below measure any mnemo.Store the same way, so the
// stores' figures compare. Each store's bench_test.go opens the store and
// calls them.

// BenchDim is the dimension of the benchmark vectors.
const BenchDim = 384

// Corpus makes synthetic records: ~200-character texts drawn from a
// Zipf-distributed vocabulary of invented words, and random unit vectors.
type Corpus struct {
	rng   *rand.Rand
	words *synth.Words
}

// corpusSyllables build the corpus's invented words.
var corpusSyllables = []string{"ka", "ro", "mi", "te", "lu", "sa", "ven", "dor", "pli", "qua", "zen", "bri", "mo", "tak", "ex", "ul"}

// NewCorpus returns a deterministic corpus for seed.
func NewCorpus(seed uint64) *Corpus {
	rng := rand.New(rand.NewPCG(seed, 1))
	return &Corpus{rng: rng, words: synth.NewWords(rng, corpusSyllables, 20000, 1.1, 2)}
}

// Text returns about chars characters of words.
func (c *Corpus) Text(chars int) string { return c.words.Text(chars) }

// Vector returns a random unit vector of BenchDim dimensions.
func (c *Corpus) Vector() []float32 {
	v := make([]float32, BenchDim)
	var s float64
	for i := range v {
		v[i] = float32(c.rng.NormFloat64())
		s += float64(v[i] * v[i])
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Records returns n records of namespace ns, created at now, spread over
// 7×13 scopes and 5 components.
func (c *Corpus) Records(ns string, n int, now time.Time) []*mnemo.Record {
	recs := make([]*mnemo.Record, n)
	for i := range recs {
		r := &mnemo.Record{ID: ulid.Make().String(), Namespace: ns, Kind: mnemo.KindFact, Text: c.Text(200), Embedding: c.Vector()}
		r.Normalize(now)
		r.Scope = fmt.Sprintf("/s%d/t%d", i%7, i%13)
		r.Component = fmt.Sprintf("c%d", i%5)
		r.Tokens = 50
		recs[i] = r
	}
	return recs
}

// Queries returns 64 query texts of about 60 characters.
func Queries() []string {
	c := NewCorpus(3)
	q := make([]string, 64)
	for i := range q {
		q[i] = c.Text(60)
	}
	return q
}

// ReportLatency adds the p50 and p95 of d, in milliseconds, to b.
func ReportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(stats.Percentile(d, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(stats.Percentile(d, 0.95).Microseconds())/1000, "p95-ms")
}

// Load inserts n corpus records into namespace ns, 2,000 per batch.
func Load(ctx context.Context, s mnemo.Store, c *Corpus, ns string, n int) error {
	now := time.Now().Add(-time.Hour)
	for done := 0; done < n; done += 2000 {
		if _, err := s.Insert(ctx, c.Records(ns, min(2000, n-done), now), "", ""); err != nil {
			return err
		}
	}
	return nil
}

// BenchInsert measures batched inserts of 200-character records with
// 384-dimension embeddings, 500 per transaction, and reports records/s.
func BenchInsert(b *testing.B, s mnemo.Store) {
	ctx := context.Background()
	c := NewCorpus(1)
	const batch = 500
	pool := c.Records("bench", batch*4, time.Now())
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		recs := make([]*mnemo.Record, batch)
		for j := range recs {
			r := *pool[(i*batch+j)%len(pool)]
			r.ID = ulid.Make().String()
			recs[j] = &r
		}
		b.StartTimer()
		if _, err := s.Insert(ctx, recs, "", ""); err != nil {
			b.Fatal(err)
		}
		total += batch
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "records/s")
}

// BenchKeyword measures Keyword top-100 on namespace "bench" of s, without
// and with a component filter; floor, when set, is measured beside it as
// "floor" (the store's bare full-text query).
func BenchKeyword(b *testing.B, s mnemo.Store, floor func(ctx context.Context, ns, query string, n int) ([]mnemo.Hit, error)) {
	ctx := context.Background()
	qs := Queries()
	sc := mnemo.Scope{Namespace: "bench"}
	timed := func(b *testing.B, fn func(q string) error) {
		var lat []time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if err := fn(qs[i%len(qs)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		ReportLatency(b, lat)
	}
	for _, c := range []struct {
		name string
		f    mnemo.Filter
	}{{"nofilter", mnemo.Filter{}}, {"component", mnemo.Filter{Component: "c3"}}} {
		b.Run(c.name, func(b *testing.B) {
			timed(b, func(q string) error { _, err := s.Keyword(ctx, sc, q, c.f, 100); return err })
		})
	}
	if floor != nil {
		b.Run("floor", func(b *testing.B) {
			timed(b, func(q string) error { _, err := floor(ctx, "bench", q, 100); return err })
		})
	}
}

// BenchVector measures Vector top-100 on namespace "bench" of s.
func BenchVector(b *testing.B, s mnemo.Store) {
	ctx := context.Background()
	c := NewCorpus(4)
	qs := make([][]float32, 16)
	for i := range qs {
		qs[i] = c.Vector()
	}
	sc := mnemo.Scope{Namespace: "bench"}
	if _, err := s.Vector(ctx, sc, qs[0], mnemo.Filter{}, 100); err != nil { // load the index
		b.Fatal(err)
	}
	b.ResetTimer()
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := s.Vector(ctx, sc, qs[i%len(qs)], mnemo.Filter{}, 100); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	ReportLatency(b, lat)
}

// FuzzKeyword checks that no query text makes s.Keyword, or floor (the
// store's bare full-text query) when set, fail. A store's Fuzz function
// calls it with a new store; the seed corpus is HostileQueries.
func FuzzKeyword(f *testing.F, s mnemo.Store, floor func(ctx context.Context, ns, query string, n int) ([]mnemo.Hit, error)) {
	for _, q := range HostileQueries {
		f.Add(q)
	}
	ctx := context.Background()
	now := time.Now()
	var recs []*mnemo.Record
	for i, text := range []string{"alpha beta gamma", "Київ і Москва", "café naïve", "NEAR AND OR NOT text"} {
		r := &mnemo.Record{ID: fmt.Sprintf("fz-%d", i), Namespace: "fz", Kind: mnemo.KindFact, Text: text}
		r.Normalize(now)
		recs = append(recs, r)
	}
	if _, err := s.Insert(ctx, recs, "", ""); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := s.Keyword(ctx, mnemo.Scope{Namespace: "fz"}, q, mnemo.Filter{}, 10); err != nil {
			t.Fatalf("Keyword(%q): %v", q, err)
		}
		if floor != nil {
			if _, err := floor(ctx, "fz", q, 10); err != nil {
				t.Fatalf("floor query (%q): %v", q, err)
			}
		}
	})
}

// touchBatch is about a second of a busy server's retrievals: the access
// counters of 2,000 distinct records.
const touchBatch = 2000

// BenchTouch measures Touch of touchBatch distinct records drawn from the
// first 20,000 of namespace "bench" of s, and reports touched records/s.
func BenchTouch(b *testing.B, s mnemo.Store) {
	ctx := context.Background()
	recs, err := s.List(ctx, mnemo.Scope{Namespace: "bench"}, mnemo.ListOptions{Limit: 20000})
	if err != nil {
		b.Fatal(err)
	}
	if len(recs) < touchBatch {
		b.Fatalf("namespace bench holds %d records, want at least %d", len(recs), touchBatch)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]string, touchBatch)
	for b.Loop() {
		for i, j := range rng.Perm(len(recs))[:touchBatch] {
			ids[i] = recs[j].ID
		}
		if err := s.Touch(ctx, "bench", ids, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(touchBatch*b.N)/b.Elapsed().Seconds(), "records/s")
}
