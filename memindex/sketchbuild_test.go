package memindex

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

const testDim = 64

// testVec returns a random vector of dimension dim as the raw
// little-endian bytes Upsert takes.
func testVec(rng *rand.Rand, dim int) []byte {
	emb := make([]byte, 4*dim)
	for j := range dim {
		binary.LittleEndian.PutUint32(emb[4*j:], math.Float32bits(float32(rng.NormFloat64())))
	}
	return emb
}

func testEntry(key int) Entry {
	return Entry{ID: fmt.Sprintf("%08d", key), Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: "/",
		ValidFrom: math.MinInt64, ValidTo: math.MaxInt64}
}

// fillNamespace returns a namespace of count entries with random vectors.
func fillNamespace(rng *rand.Rand, count int) *Namespace[int] {
	n := New[int](count, testDim)
	for k := range count {
		n.Upsert(k, testEntry(k), testVec(rng, testDim), fmt.Appendf(nil, "record %d", k))
	}
	return n
}

// checkSketches fails unless every entry with a vector of the sketch
// dimension has exactly one live sketch slot, holding the sketch of its
// current vector; every other slot is stale.
func checkSketches[K comparable](t *testing.T, n *Namespace[K]) {
	t.Helper()
	if !n.sketching {
		t.Fatal("sketches are not installed")
	}
	words := sketchWords(n.sketchDim)
	want, got := make([]uint64, words), make([]uint64, words)
	buf := make([]float32, words*64)
	live := 0
	for i := range n.Len() {
		e := n.ent(i)
		if e.dim != n.sketchDim || e.dim == 0 {
			continue // any slot it holds is stale: counted below
		}
		if e.sk < 0 {
			t.Fatalf("entry %d (%s) has no sketch", i, e.ID)
		}
		if got := int(n.skEnt[e.sk]); got != i {
			t.Fatalf("sketch slot of entry %d names entry %d", i, got)
		}
		sketch(n.vector(e), want, buf)
		n.signs.get(e.sk, got)
		if !slices.Equal(got, want) {
			t.Fatalf("entry %d (%s): sketch is not that of its current vector", i, e.ID)
		}
		live++
	}
	// Every slot is either an entry's live one or stale (its entry moved to
	// another slot or lost its vector), which sketchSearch skips.
	stale := 0
	for k, i := range n.skEnt {
		if e := n.ent(int(i)); e.sk != k || e.dim != n.sketchDim {
			stale++
		}
	}
	if live+stale != len(n.skEnt) {
		t.Fatalf("%d live and %d stale sketch slots, %d in all", live, stale, len(n.skEnt))
	}
}

// checkSelfSearch fails unless searching the sketches for an entry's own
// vector finds that entry first, as the exact scan does, for the entries
// at position from and after, those in also, and every 50th.
func checkSelfSearch(t *testing.T, n *Namespace[int], from int, also ...int) {
	t.Helper()
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: mnemo.MaxAccessLevel}, mnemo.Filter{}, time.Now())
	for i := range n.Len() {
		if i < from && i%50 != 0 && !slices.Contains(also, i) {
			continue
		}
		e := n.ent(i)
		if e.dim != testDim || e.Deleted {
			continue
		}
		q := slices.Clone(n.vector(e))
		cs := n.sketchSearch(q, 1, c, 1)
		if cs == nil {
			t.Fatalf("sketch search for the vector of %s found too few candidates", e.ID)
		}
		got := n.rescore(q, cs, 1, nil)
		exact := n.exactTop(q, c, 1)
		if len(got) == 0 || got[0].ID != e.ID || !slices.Equal(got, exact) {
			t.Fatalf("sketch search for the vector of %s: %v, exact scan: %v", e.ID, got, exact)
		}
	}
}

// exactTop is Vector without the sketches.
func (idx *Namespace[K]) exactTop(q []float32, c *Cond, n int) []mnemo.Hit {
	on := idx.sketching
	idx.sketching = false
	defer func() { idx.sketching = on }()
	return idx.Vector(q, c, n)
}

// TestSketchBuildCatchesUpWrites interleaves every kind of write with the
// chunks of a background build: the build is installed, and its sketches
// cover exactly the entries as they are at install time.
func TestSketchBuildCatchesUpWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	n := fillNamespace(rng, 3000)
	n.Upsert(5000, testEntry(5000), nil, []byte("no vector yet"))
	b := &sketchBuild{count: n.Len()}
	n.build = b
	next := 6000
	for step := 0; ; step++ {
		done := b.step(n.vecs, n.ent)
		switch step % 6 {
		case 0: // a new record
			n.Upsert(next, testEntry(next), testVec(rng, testDim), []byte("new"))
			next++
		case 1: // an existing record gets a new vector, in place
			k := rng.Intn(3000)
			n.Upsert(k, testEntry(k), testVec(rng, testDim), []byte("changed"))
		case 2: // a record already sketched by this build changes
			k := rng.Intn(max(1, b.next))
			n.Upsert(k, testEntry(k), testVec(rng, testDim), []byte("changed again"))
		case 3: // a record is purged
			n.Remove(rng.Intn(3000))
		case 4: // a vector of another dimension
			k := rng.Intn(3000)
			n.Upsert(k, testEntry(k), testVec(rng, testDim/2), []byte("other model"))
		case 5: // a record without a vector gets one
			n.Upsert(5000, testEntry(5000), testVec(rng, testDim), []byte("now with a vector"))
		}
		if done {
			break
		}
	}
	if len(b.dirty) == 0 {
		t.Fatal("no write touched an entry of the build")
	}
	n.install(b)
	if n.build != nil {
		t.Fatal("the build is still marked as running")
	}
	checkSketches(t, n)
	checkSelfSearch(t, n, b.count, b.dirty...)
	// From now on writes keep the sketches current without a new build.
	var mu sync.RWMutex
	for k := range 200 {
		n.Upsert(k*7, testEntry(k*7), testVec(rng, testDim), []byte("later"))
		n.Upsert(next, testEntry(next), testVec(rng, testDim), []byte("later new"))
		next++
		n.Sketch(&mu)
	}
	if n.builds != 0 {
		t.Fatalf("%d full builds after the installed one", n.builds)
	}
	checkSketches(t, n)
	checkSelfSearch(t, n, b.count)
}

// TestSketchBuildUnderSteadyWrites writes without pause while the
// background build runs, calling Sketch after every write as the stores
// do: one build happens and is installed while the writes go on.
func TestSketchBuildUnderSteadyWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	n := fillNamespace(rng, sketchAsyncMin+500)
	var mu sync.RWMutex
	mu.Lock()
	n.Sketch(&mu)
	mu.Unlock()
	const maxWrites = 200000
	next, writes := 100000, 0
	for ; writes < maxWrites; writes++ {
		mu.Lock()
		if writes%2 == 0 {
			n.Upsert(next, testEntry(next), testVec(rng, testDim), []byte("new"))
			next++
		} else {
			k := rng.Intn(sketchAsyncMin)
			n.Upsert(k, testEntry(k), testVec(rng, testDim), []byte("changed"))
		}
		n.Sketch(&mu)
		installed := n.sketching
		mu.Unlock()
		if installed {
			break
		}
		runtime.Gosched()
	}
	if writes == maxWrites {
		t.Fatalf("sketches not installed after %d writes", writes)
	}
	mu.Lock()
	defer mu.Unlock()
	if n.builds != 1 {
		t.Fatalf("%d full builds of the sketches over %d writes, want 1", n.builds, writes)
	}
	t.Logf("installed after %d writes", writes)
	checkSketches(t, n)
	checkSelfSearch(t, n, sketchAsyncMin+500)
}

// TestSketchBuildDropped checks that a synchronous build drops a
// background one in flight, which then installs nothing.
func TestSketchBuildDropped(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	n := fillNamespace(rng, sketchAsyncMin)
	var mu sync.RWMutex
	b := &sketchBuild{count: n.Len()}
	n.build = b
	n.BuildSketches()
	n.Upsert(1, testEntry(1), testVec(rng, testDim), []byte("changed"))
	n.buildSketchesAsync(&mu, b) // returns at once: b was dropped
	if n.build != nil || b.next != 0 {
		t.Fatal("a dropped build ran")
	}
	checkSketches(t, n)
	checkSelfSearch(t, n, n.Len())
}

// BenchmarkSketch measures the sketch of one 384-dimensional vector, the
// unit of a build (a build of n entries costs n of them).
func BenchmarkSketch(b *testing.B) {
	rng := rand.New(rand.NewSource(4))
	v := make([]float32, 384)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	words := sketchWords(len(v))
	out, buf := make([]uint64, words), make([]float32, words*64)
	for b.Loop() {
		sketch(v, out, buf)
	}
}
