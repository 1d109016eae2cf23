package postgres_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/postgres/pgtest"
)

const benchDim = 384

// corpus makes synthetic records: ~200-character texts drawn from a
// Zipf-distributed vocabulary, and random unit vectors (as the sqlite
// benchmarks do).
type corpus struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, 1))
	c := &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, 19999)}
	syl := []string{"ka", "ro", "mi", "te", "lu", "sa", "ven", "dor", "pli", "qua", "zen", "bri", "mo", "tak", "ex", "ul"}
	seen := map[string]bool{}
	for len(c.vocab) < 20000 {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	return c
}

func (c *corpus) text(chars int) string {
	var b strings.Builder
	for b.Len() < chars {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.vocab[c.zipf.Uint64()])
	}
	return b.String()
}

func (c *corpus) vector() []float32 {
	v := make([]float32, benchDim)
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

func (c *corpus) records(ns string, n int, now time.Time) []*mnemo.Record {
	recs := make([]*mnemo.Record, n)
	for i := range recs {
		r := newRecord(ns, c.text(200), c.vector())
		r.CreatedAt, r.UpdatedAt, r.ValidFrom = now, now, now
		r.Scope = fmt.Sprintf("/s%d/t%d", i%7, i%13)
		r.Component = fmt.Sprintf("c%d", i%5)
		r.Tokens = 50
		recs[i] = r
	}
	return recs
}

// BenchmarkInsert measures batched inserts of 200-character records with
// 384-dimension embeddings, 500 per transaction.
func BenchmarkInsert(b *testing.B) {
	s := openNew(b)
	defer s.Close()
	c := newCorpus(1)
	const batch = 500
	pool := c.records("bench", batch*4, time.Now())
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		recs := make([]*mnemo.Record, batch)
		for j := range recs {
			r := *pool[(i*batch+j)%len(pool)]
			r.ID = newRecord("bench", "x", nil).ID
			recs[j] = &r
		}
		b.StartTimer()
		if _, err := s.Insert(bg, recs, "", ""); err != nil {
			b.Fatal(err)
		}
		total += batch
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "records/s")
}

var (
	benchOnce  sync.Once
	benchStore *postgres.Store
	benchDB    string
	benchErr   error
)

// benchN is the size of the search benchmarks' namespace (MNEMO_BENCH_N,
// default 10000).
func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 10000
}

func searchStore(b *testing.B) *postgres.Store {
	pgtest.SkipIf(b, startErr)
	benchOnce.Do(func() {
		var u string
		benchDB, u, benchErr = pgtest.CreateDatabase(bg, adminURL, "")
		if benchErr != nil {
			return
		}
		benchStore, benchErr = postgres.Open(bg, postgres.Options{URL: u})
		if benchErr != nil {
			return
		}
		c := newCorpus(2)
		start := time.Now()
		now := time.Now().Add(-time.Hour)
		for done := 0; done < benchN(); done += 2000 {
			if _, benchErr = benchStore.Insert(bg, c.records("bench", min(2000, benchN()-done), now), "", ""); benchErr != nil {
				return
			}
		}
		fmt.Fprintf(os.Stderr, "bench set-up: %d records in %v\n", benchN(), time.Since(start).Round(time.Millisecond))
		// Collect the planner statistics now, as autovacuum would soon:
		// keyword pruning reads them.
		var conn *pgx.Conn
		if conn, benchErr = pgx.Connect(bg, u); benchErr != nil {
			return
		}
		defer conn.Close(bg)
		_, benchErr = conn.Exec(bg, `ANALYZE records`)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchStore
}

// reportLatency adds p50 and p95 in milliseconds.
func reportLatency(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
}

func benchQueries() []string {
	c := newCorpus(3)
	q := make([]string, 64)
	for i := range q {
		q[i] = c.text(60)
	}
	return q
}

// BenchmarkKeyword measures Keyword top-100 on a namespace of benchN()
// records, with and without a filter, and the bare FloorQuery.
func BenchmarkKeyword(b *testing.B) {
	s := searchStore(b)
	qs := benchQueries()
	sc := mnemo.Scope{Namespace: "bench"}
	for _, c := range []struct {
		name string
		f    mnemo.Filter
	}{{"nofilter", mnemo.Filter{}}, {"component", mnemo.Filter{Component: "c3"}}} {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := s.Keyword(bg, sc, qs[i%len(qs)], c.f, 100); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			reportLatency(b, lat)
		})
	}
	b.Run("floor", func(b *testing.B) {
		var lat []time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := s.FloorQuery(bg, "bench", qs[i%len(qs)], 100); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		reportLatency(b, lat)
	})
}

// BenchmarkVector measures Vector top-100 on a namespace of benchN() records.
func BenchmarkVector(b *testing.B) {
	s := searchStore(b)
	c := newCorpus(4)
	qs := make([][]float32, 16)
	for i := range qs {
		qs[i] = c.vector()
	}
	sc := mnemo.Scope{Namespace: "bench"}
	if _, err := s.Vector(bg, sc, qs[0], mnemo.Filter{}, 100); err != nil { // load the index
		b.Fatal(err)
	}
	b.ResetTimer()
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := s.Vector(bg, sc, qs[i%len(qs)], mnemo.Filter{}, 100); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportLatency(b, lat)
}
