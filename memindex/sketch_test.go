package memindex

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
)

// TestSketchSearchRecall checks that the sign-sketch prefilter finds
// (almost) the same top 100 as the exact scan, on hashed embeddings of
// varied text.
func TestSketchSearchRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds 25,000 texts")
	}
	const n = 25000
	rng := rand.New(rand.NewSource(7))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d%c", i, 'a'+rune(i%26))
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	text := func() string {
		var b strings.Builder
		for k := 0; k < 8+rng.Intn(20); k++ {
			b.WriteString(vocab[zipf.Uint64()])
			b.WriteByte(' ')
		}
		return b.String()
	}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = text()
	}
	vecs, err := embed.NewHash(384).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	idx := New[int64](n, 384)
	norm := make([][]float32, n) // the float32 vectors, normalised
	for i, v := range vecs {
		norm[i] = make([]float32, len(v))
		normalizeVec(v, norm[i])
		emb := make([]byte, 4*len(v))
		for j, x := range v {
			binary.LittleEndian.PutUint32(emb[4*j:], math.Float32bits(x))
		}
		idx.put(int64(i+1), Entry{ID: fmt.Sprintf("%08d", i), Layer: mnemo.LayerDomain, Kind: mnemo.KindFact,
			Scope: "/", Created: 0, ValidFrom: math.MinInt64, ValidTo: math.MaxInt64}, emb, nil)
	}
	idx.BuildSketches()
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: 1}, mnemo.Filter{}, time.Now())
	// Both ways of scanning: every slot by its whole sketch (as among
	// 25,000), and the first round first (as among many more).
	defer func(s int) { firstShare = s }(firstShare)
	for _, share := range []int{1 << 40, 1} {
		firstShare = share
		sketchRecall(t, idx, norm, text, c, map[bool]string{true: "in two stages", false: "in one"}[share == 1])
	}
}

// sketchRecall fails unless sketch search in idx (whose float32 vectors,
// normalised, are norm), scanning how, finds at least 95 % of the exact
// top 100 of the hashed embeddings of 40 texts from text.
func sketchRecall(t *testing.T, idx *Namespace[int64], norm [][]float32, text func() string, c *Cond, how string) {
	t.Helper()
	n := idx.Len()
	queries := 40
	total := 0.0
	for qi := 0; qi < queries; qi++ {
		qv, _ := embed.NewHash(384).Embed(context.Background(), []string{text()})
		q := qv[0]
		exact := make([]scored, 0, n)
		for i := range idx.Len() {
			e := idx.ent(i)
			if e.dim > 0 {
				exact = append(exact, scored{i, dot(q, norm[i])})
			}
		}
		sort.Slice(exact, func(a, b int) bool { return exact[a].score > exact[b].score })
		want := map[string]bool{}
		for _, x := range exact[:100] {
			want[idx.ent(int(x.i)).ID] = true
		}
		got := idx.VectorExact(q, c, 100, nil)
		if len(got) != 100 {
			t.Fatalf("sketch search returned %d hits", len(got))
		}
		hit := 0
		for _, h := range got {
			if want[h.ID] {
				hit++
			}
		}
		total += float64(hit) / 100
		for k := 1; k < len(got); k++ {
			if got[k].Score > got[k-1].Score {
				t.Fatal("hits out of order")
			}
		}
	}
	if r := total / float64(queries); r < 0.95 {
		t.Fatalf("sketch recall of the exact top 100 %s: %.3f, want >= 0.95", how, r)
	} else {
		t.Logf("sketch recall of the exact top 100 %s: %.3f", how, r)
	}
}

// TestSketchMatchesReference checks the fast sketch bit for bit against
// its plain definition, on dense, sparse and signed-zero vectors of the
// dimensions in use and of odd ones.
func TestSketchMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, dim := range []int{1, 3, 64, 100, 256, 384, 768, 1024, 1536, 3072, 4096, 5000} {
		words := sketchWords(dim)
		for trial := range 40 {
			v := make([]float32, dim)
			for i := range v {
				switch {
				case trial%4 == 1 && rng.Intn(10) > 0: // sparse
				case trial%4 == 2 && rng.Intn(2) == 0:
					v[i] = float32(math.Copysign(0, -1))
				case trial%4 == 3:
					v[i] = float32(rng.Intn(3) - 1) // ties: sums of exactly 0
				default:
					v[i] = float32(rng.NormFloat64())
				}
			}
			got, want := make([]uint64, words), make([]uint64, words)
			for i := range got {
				got[i] = rng.Uint64() // sketch must overwrite every word
			}
			sketch(v, got, make([]float32, words*64/sketchRounds))
			sketchReference(v, want, make([]float32, words*64/sketchRounds))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("dim %d trial %d: word %d is %x, want %x", dim, trial, i, got[i], want[i])
				}
			}
		}
	}
}

func BenchmarkSketchFast(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	v := make([]float32, 384)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	words := sketchWords(len(v))
	out, buf := make([]uint64, words), make([]float32, words*64/sketchRounds)
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			sketch(v, out, buf)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			sketchReference(v, out, buf)
		}
	})
}

// TestSketchSearchParallel checks that a search split over several cores
// answers exactly as one pass does, with filters and removed entries.
func TestSketchSearchParallel(t *testing.T) {
	defer func(p int) { parallelSlots = p }(parallelSlots)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewSource(8))
	n := New[int](0, testDim)
	for k := range 9000 {
		e := testEntry(k)
		e.AccessLevel = k % 3
		if k%5 == 0 {
			e.Scope = "/x"
		}
		n.Upsert(k, e, testVec(rng, testDim), nil)
		if k%97 == 0 {
			n.Remove(k / 2)
		}
	}
	n.BuildSketches()
	for q := range 40 {
		v := make([]float32, testDim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		v, _ = Normalize(v)
		f := mnemo.Filter{}
		if q%3 == 0 {
			f.ScopePrefix = "/x"
		}
		c := Compile(mnemo.Scope{Clearance: q % 3}, f, time.Now())
		parallelSlots = 1 << 40
		want := n.Vector(v, c, 1+q%25)
		parallelSlots = 1000
		if got := n.Vector(v, c, 1+q%25); !slices.Equal(got, want) {
			t.Fatalf("query %d: in parallel %v, in one pass %v", q, got, want)
		}
	}
}
