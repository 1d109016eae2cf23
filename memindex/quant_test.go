package memindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
)

// quantCorpus is a namespace built from vecs and the float32 vectors
// themselves, normalised as the index normalises them.
type quantCorpus struct {
	n    *Namespace[int64]
	raw  map[string][]float32 // id -> vector as written
	norm []float32            // entry position -> normalised vector, dim each
	dim  int
	rng  *rand.Rand
	// signs32 are the sketches of the float32 vectors (withFloatSketches).
	signs32 signTable
}

func newQuantCorpus(vecs [][]float32, seed int64) *quantCorpus {
	dim := len(vecs[0])
	qc := &quantCorpus{n: New[int64](len(vecs), dim), raw: map[string][]float32{}, dim: dim, rng: rand.New(rand.NewSource(seed))}
	for i, v := range vecs {
		emb := make([]byte, 4*len(v))
		for j, x := range v {
			binary.LittleEndian.PutUint32(emb[4*j:], math.Float32bits(x))
		}
		id := fmt.Sprintf("%08d", i)
		e := Entry{ID: id, Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: fmt.Sprintf("/s%d", i%5),
			AccessLevel: i % 3, ValidFrom: math.MinInt64, ValidTo: math.MaxInt64, Seq: int64(i + 1)}
		qc.n.Put(int64(i+1), e, emb, []byte("t"))
		qc.raw[id] = v
		nv := make([]float32, dim)
		normalizeVec(v, nv)
		qc.norm = append(qc.norm, nv...)
	}
	return qc
}

// exact is the store's source of float32 vectors; calls counts the
// vectors asked for.
func (qc *quantCorpus) exact(calls *int) Exact {
	return func(ids []string, seqs []int64) [][]float32 {
		*calls += len(ids)
		out := make([][]float32, len(ids))
		for k, id := range ids {
			out[k] = qc.raw[id]
		}
		return out
	}
}

// scan is the exact float32 search: every entry passing c scored with
// the cosine of its float32 vector as written, best first, ties by
// descending id.
func (qc *quantCorpus) scan(q []float32, c *Cond, n int) []mnemo.Hit {
	var all []scored
	for i := range qc.n.Len() {
		if e := qc.n.ent(i); e.dim == len(q) && c.Matches(e) {
			all = append(all, scored{i, cosineRaw(q, qc.raw[e.ID])})
		}
	}
	qc.n.sortHits(all)
	if len(all) > n {
		all = all[:n]
	}
	return qc.n.hits(all)
}

func hashVectors(t testing.TB, count int, rng *rand.Rand) (vecs [][]float32, text func() string) {
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d%c", i, 'a'+rune(i%26))
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	text = func() string {
		var b strings.Builder
		for range 3 + rng.Intn(20) {
			b.WriteString(vocab[zipf.Uint64()])
			b.WriteByte(' ')
		}
		return b.String()
	}
	texts := make([]string, count)
	for i := range texts {
		texts[i] = text()
	}
	vecs, err := embed.NewHash(384).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vecs, text
}

func denseVectors(count, dim int, rng *rand.Rand) [][]float32 {
	vecs := make([][]float32, count)
	for i := range vecs {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		vecs[i] = v
	}
	return vecs
}

// TestQuantizedMatchesFloat32 compares the quantised index with an exact
// scan of the float32 vectors, on hashed texts (sparse vectors: a few
// dozen non-zero features of 384) and dense Gaussian vectors, with and
// without filters, with and without sketches.
//
// Tolerance: with the store's float32 vectors (VectorExact), the exact-scan
// path returns exactly the float32 answer (ids, order and scores, bit for
// bit); the sketch path returns the exact float32 score of every hit, and
// finds the float32 top n as well as sketches of the float32 vectors do
// (its recall of it within 0.03 of theirs over 45 searches: the sketches
// are of the dequantised vectors, whose sign bits may differ). Without them
// (Vector), every score is within ‖q‖·ve + 1e-4 of the exact one, and
// every hit's exact score is at least the exact n-th best minus twice the
// largest bound.
func TestQuantizedMatchesFloat32(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const count = 5000
	hv, text := hashVectors(t, count, rng)
	queryOf := func(kind string) []float32 {
		var v []float32
		if kind == "hash" {
			qv, _ := embed.NewHash(384).Embed(context.Background(), []string{text()})
			v = qv[0]
		} else {
			v = denseVectors(1, 384, rng)[0]
		}
		q, _ := Normalize(v)
		return q
	}
	for _, kind := range []string{"hash", "dense"} {
		vecs := hv
		if kind == "dense" {
			vecs = denseVectors(count, 384, rng)
		}
		qc := newQuantCorpus(vecs, 1)
		maxErr := 0.0
		for i := range qc.n.Len() {
			maxErr = max(maxErr, float64(qc.n.ent(i).ve))
		}
		t.Logf("%s: largest quantisation error norm %.5f", kind, maxErr)
		conds := []*Cond{
			Compile(mnemo.Scope{Namespace: "x", Clearance: mnemo.MaxAccessLevel}, mnemo.Filter{}, time.Now()),
			Compile(mnemo.Scope{Namespace: "x", Clearance: 1}, mnemo.Filter{ScopePrefix: "/s2"}, time.Now()),
		}
		for _, sketches := range []bool{false, true} {
			if sketches {
				qc.n.BuildSketches()
			}
			for ci, c := range conds {
				cname := []string{"all", "scoped"}[ci]
				var asked, queries int
				recall, recall32 := 0.0, 0.0
				for range 15 {
					q := queryOf(kind)
					for _, k := range []int{1, 10, 100} {
						queries++
						want := qc.scan(q, c, k)
						got := qc.n.VectorExact(q, c, k, qc.exact(&asked))
						if !sketches && fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("%s, %s, top %d: quantised %v\nfloat32 %v", kind, cname, k, got, want)
						}
						exactOf := map[string]float64{}
						for _, h := range qc.scan(q, c, count) {
							exactOf[h.ID] = h.Score
						}
						for j, h := range got {
							if h.Score != exactOf[h.ID] {
								t.Fatalf("%s, %s, top %d: hit %s scored %v, float32 %v", kind, cname, k, h.ID, h.Score, exactOf[h.ID])
							}
							if j > 0 && h.Score > got[j-1].Score {
								t.Fatal("hits out of order")
							}
						}
						recall += overlap(got, want)
						if sketches {
							// The same search with the sketches of the float32
							// vectors, as before quantisation.
							var none int
							recall32 += overlap(qc.withFloatSketches(func() []mnemo.Hit { return qc.n.VectorExact(q, c, k, qc.exact(&none)) }), want)
						}
						// Without the store's vectors: within the bound.
						approx := qc.n.Vector(q, c, k)
						if len(approx) != len(want) {
							t.Fatalf("%s: %d hits without exact vectors, want %d", kind, len(approx), len(want))
						}
						if !sketches {
							bound := maxErr + scoreSlack
							for _, h := range approx {
								if d := math.Abs(h.Score - exactOf[h.ID]); d > bound {
									t.Fatalf("%s: code score of %s off by %g > %g", kind, h.ID, d, bound)
								}
								if len(want) > 0 && exactOf[h.ID] < want[len(want)-1].Score-2*bound {
									t.Fatalf("%s: %s (exact %v) is below the n-th best %v by more than twice the bound", kind, h.ID, exactOf[h.ID], want[len(want)-1].Score)
								}
							}
						}
					}
				}
				recall /= float64(queries)
				recall32 /= float64(queries)
				if sketches {
					t.Logf("%s, %s, sketches: recall of the float32 top n %.3f (sketches of the float32 vectors: %.3f); %.1f vectors read from the store per search",
						kind, cname, recall, recall32, float64(asked)/float64(queries))
				} else {
					t.Logf("%s, %s, exact scan: recall of the float32 top n %.3f; %.1f vectors read from the store per search",
						kind, cname, recall, float64(asked)/float64(queries))
				}
				if !sketches && recall != 1 {
					t.Fatalf("exact scan: recall %.3f, want 1", recall)
				}
				if sketches && recall < recall32-0.03 {
					t.Fatalf("sketch search: recall %.3f of the float32 top n, %.3f with sketches of the float32 vectors", recall, recall32)
				}
			}
		}
	}
}

// overlap is the share of want's ids that got holds (1 when want is empty).
func overlap(got, want []mnemo.Hit) float64 {
	if len(want) == 0 {
		return 1
	}
	in := map[string]bool{}
	for _, h := range got {
		in[h.ID] = true
	}
	hit := 0
	for _, h := range want {
		if in[h.ID] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

// withFloatSketches runs f with every sketch computed from the float32
// vector instead of the stored (dequantised) one.
func (qc *quantCorpus) withFloatSketches(f func() []mnemo.Hit) []mnemo.Hit {
	n := qc.n
	if qc.signs32.per == 0 {
		qc.signs32.per = n.signs.per
		qc.signs32.first, qc.signs32.rest = slices.Clone(n.signs.first), slices.Clone(n.signs.rest)
		words := sketchWords(n.sketchDim)
		buf, bits := make([]float32, words*64), make([]uint64, words)
		for i := range n.Len() {
			if e := n.ent(i); e.sk >= 0 {
				sketch(qc.norm[i*qc.dim:(i+1)*qc.dim], bits, buf)
				qc.signs32.set(e.sk, bits)
			}
		}
	}
	saved := n.signs
	n.signs = qc.signs32
	defer func() { n.signs = saved }()
	return f()
}

// TestSnapshotOldVersionRefused checks that a snapshot of the format
// before quantised vectors (version 2, float32 vectors) is refused as a
// whole, never read as int8.
func TestSnapshotOldVersionRefused(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	n := New[int64](100, 16)
	for i := range 100 {
		r := randRow(rng, int64(i+1), 16)
		n.Put(r.key, r.e, r.emb, []byte(r.text))
	}
	var buf bytes.Buffer
	if err := n.WriteSnapshot(&buf, "l", 1, func(k int64) uint64 { return uint64(k) }); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	binary.LittleEndian.PutUint32(b[8:], 2)
	binary.LittleEndian.PutUint32(b[len(b)-snapTrailer+12:], 2)
	if _, _, err := ReadSnapshot(b, func(k uint64) int64 { return int64(k) }, func(k int64) uint64 { return uint64(k) }, nil); !errors.Is(err, ErrSnapshot) {
		t.Fatalf("a version-2 snapshot: %v, want ErrSnapshot", err)
	}
	if _, err := PeekSnapshot(b); !errors.Is(err, ErrSnapshot) {
		t.Fatalf("peek of a version-2 snapshot: %v, want ErrSnapshot", err)
	}
}

func TestQuantize(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, dim := range []int{1, 7, 384} {
		for range 50 {
			v := make([]float32, dim)
			for j := range v {
				if rng.Intn(3) > 0 {
					v[j] = float32(rng.NormFloat64())
				}
			}
			normalizeVec(v, v)
			codes := make([]int8, dim)
			s, e := quantize(v, codes)
			dq := make([]float32, dim)
			dequantize(codes, s, dq)
			var d float64
			for j := range v {
				x := float64(v[j]) - float64(s)*float64(codes[j])
				d += x * x
				if math.Abs(float64(v[j]-dq[j])) > float64(s)/2*1.0001+1e-9 {
					t.Fatalf("coordinate %d: %v decoded as %v (scale %v)", j, v[j], dq[j], s)
				}
			}
			if math.Sqrt(d) > float64(e) {
				t.Fatalf("error norm %v above the stored %v", math.Sqrt(d), e)
			}
		}
	}
	codes := make([]int8, 3)
	if s, e := quantize([]float32{0, 0, 0}, codes); s != 0 || e != 0 {
		t.Fatalf("zero vector: scale %v, error %v", s, e)
	}
}
