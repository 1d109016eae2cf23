package memindex

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// BenchmarkSketchSearch times a top-100 vector search through the
// sketches of MNEMO_BENCH_SKETCH_N clustered vectors (default 300,000),
// and reports the share of the exact top 100 it finds (recall):
//
//	MNEMO_BENCH_SKETCH_N=1000000 go test ./memindex -run '^$' -bench SketchSearch
func BenchmarkSketchSearch(b *testing.B) {
	n := 300000
	if s := os.Getenv("MNEMO_BENCH_SKETCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	const dim, clusters = 384, 2000
	rng := rand.New(rand.NewSource(5))
	centers := make([][]float32, clusters)
	for i := range centers {
		centers[i] = make([]float32, dim)
		for j := range centers[i] {
			centers[i][j] = float32(rng.NormFloat64())
		}
	}
	idx := New[int64](n, dim)
	emb := make([]byte, 4*dim)
	for i := range n {
		ctr := centers[rng.Intn(clusters)]
		for j := range dim {
			binary.LittleEndian.PutUint32(emb[4*j:], math.Float32bits(ctr[j]+float32(rng.NormFloat64()*0.8)))
		}
		idx.put(int64(i+1), Entry{ID: fmt.Sprintf("%08d", i), Layer: mnemo.LayerDomain, Kind: mnemo.KindFact,
			Scope: "/", ValidFrom: math.MinInt64, ValidTo: math.MaxInt64}, emb, nil)
	}
	idx.BuildSketches()
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: 1}, mnemo.Filter{}, time.Now())
	qs := make([][]float32, 64)
	for i := range qs {
		q := make([]float32, dim)
		ctr := centers[rng.Intn(clusters)]
		for j := range q {
			q[j] = ctr[j] + float32(rng.NormFloat64())
		}
		qs[i] = make([]float32, dim)
		normalizeVec(q, qs[i])
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		idx.VectorExact(qs[i%len(qs)], c, 100, nil)
		i++
	}
	b.StopTimer()
	found := 0
	for _, q := range qs {
		want := map[string]bool{}
		for _, h := range idx.exactTop(q, c, 100) {
			want[h.ID] = true
		}
		for _, h := range idx.VectorExact(q, c, 100, nil) {
			if want[h.ID] {
				found++
			}
		}
	}
	b.ReportMetric(float64(found)/float64(100*len(qs)), "recall")
}
