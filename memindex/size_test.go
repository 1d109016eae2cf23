package memindex

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/mnemo-dev/mnemo"
)

// sizeNamespace builds a namespace of n records of dimension dim as a
// store would: every string freshly allocated, text of a dozen words
// from a Zipf vocabulary, some threads and tags.
func sizeNamespace(n, dim int, seed uint64) *Namespace[int64] {
	rng := rand.New(rand.NewPCG(seed, 1))
	z := rand.NewZipf(rng, 1.1, 2, 4999)
	ns := New[int64](n, dim)
	emb := make([]byte, 4*dim)
	var text strings.Builder
	for i := range n {
		e := Entry{ID: fmt.Sprintf("01J%023d", i), Layer: mnemo.Layer(strings.Clone("domain")), Kind: mnemo.Kind(strings.Clone("fact")),
			Scope: fmt.Sprintf("/repo/dir%d", i%50), Component: fmt.Sprintf("comp%d", i%9),
			Created: int64(i), ValidFrom: math.MinInt64, ValidTo: math.MaxInt64, Seq: int64(i + 1), AccessLevel: i % 2}
		if i%4 == 0 {
			e.Thread = fmt.Sprintf("thread-%d", i/40)
		}
		if i%3 == 0 {
			e.Tags = []string{fmt.Sprintf("tag%d", i%5), "common"}
		}
		for j := range dim {
			binary.LittleEndian.PutUint32(emb[4*j:], math.Float32bits(float32(rng.NormFloat64())))
		}
		text.Reset()
		for range 12 {
			fmt.Fprintf(&text, "word%d ", z.Uint64())
		}
		ns.Put(int64(i+1), e, emb, []byte(text.String()))
	}
	return ns
}

// heapOf measures the live heap that build's result holds.
func heapOf(build func() any) (int64, any) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&b)
	return int64(b.HeapAlloc) - int64(a.HeapAlloc), v
}

// TestMemoryBytes: the estimate is within a third of the heap a namespace
// actually holds, with and without sketches, and grows with the namespace.
func TestMemoryBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	for _, tc := range []struct {
		n, dim   int
		sketches bool
	}{{3000, 64, false}, {20000, 64, true}, {5000, 384, false}} {
		t.Run(fmt.Sprintf("%dx%d", tc.n, tc.dim), func(t *testing.T) {
			heap, v := heapOf(func() any {
				ns := sizeNamespace(tc.n, tc.dim, 1)
				if tc.sketches {
					ns.BuildSketches()
				}
				return ns
			})
			ns := v.(*Namespace[int64])
			est := ns.MemoryBytes()
			ratio := float64(est) / float64(heap)
			t.Logf("%d records of dimension %d: estimate %d bytes, heap %d bytes (%.2f)", tc.n, tc.dim, est, heap, ratio)
			if ratio < 0.67 || ratio > 1.5 {
				t.Errorf("estimate %d bytes, heap %d bytes: off by more than a third", est, heap)
			}
			runtime.KeepAlive(ns)
		})
	}
	small, big := sizeNamespace(100, 16, 2).MemoryBytes(), sizeNamespace(1000, 16, 2).MemoryBytes()
	if small <= 0 || big < 5*small {
		t.Errorf("100 records: %d bytes, 1000 records: %d bytes", small, big)
	}
	if (&Namespace[string]{}).MemoryBytes() != 0 {
		t.Error("an empty namespace has a size")
	}
}

// TestMemoryBytesSnapshot: a namespace read back from a snapshot (into a
// heap buffer) is estimated, with the entry table the store adds, near the
// heap it holds.
func TestMemoryBytesSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	src := sizeNamespace(10000, 64, 3)
	var buf strings.Builder
	if err := src.WriteSnapshot(&buf, "size", 1, func(k int64) uint64 { return uint64(k) }); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	heap, v := heapOf(func() any {
		words := make([]uint64, (len(file)+7)/8)
		data := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 8*len(words))[:len(file)]
		copy(data, file)
		ns, _, err := ReadSnapshot(data, func(k uint64) int64 { return int64(k) }, func(k int64) uint64 { return uint64(k) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ns
	})
	ns := v.(*Namespace[int64])
	est := ns.MemoryBytes() + SnapshotEntryBytes*int64(ns.Len())
	ratio := float64(est) / float64(heap)
	t.Logf("snapshot of %d bytes: estimate %d bytes, heap %d bytes (%.2f)", len(file), est, heap, ratio)
	if ratio < 0.67 || ratio > 1.5 {
		t.Errorf("estimate %d bytes, heap %d bytes: off by more than a third", est, heap)
	}
	runtime.KeepAlive(ns)
	runtime.KeepAlive(src)
	runtime.KeepAlive(file)
}

// TestBudget: the least recently used namespaces go first, never the one
// kept, only once the sum passes the limit; a nil budget bounds nothing.
func TestBudget(t *testing.T) {
	sizes := map[string]int64{"a": 100, "b": 100, "c": 100, "d": 100}
	unsettled := map[string]bool{}
	size := func(ns string) (int64, bool) {
		if s, ok := sizes[ns]; ok {
			return s, !unsettled[ns]
		}
		return -1, true
	}
	b := NewBudget(250)
	for _, ns := range []string{"a", "b"} {
		b.Loaded(ns, 0)
		if out := b.Evict(ns, size); len(out) != 0 {
			t.Fatalf("evicted %v under the limit", out)
		}
	}
	b.Use("a") // b is now the least recently used
	b.Loaded("c", 0)
	if out := b.Evict("c", size); !slices.Equal(out, []string{"b"}) {
		t.Fatalf("evicted %v, want [b]", out)
	}
	delete(sizes, "b")
	// A namespace larger than the limit alone stays; all others go.
	sizes["d"] = 1000
	b.Loaded("d", 0)
	if out := b.Evict("d", size); len(out) != 2 || slices.Contains(out, "d") {
		t.Fatalf("evicted %v, want a and c", out)
	}
	if used := b.Used(size); used != 1000 {
		t.Errorf("used %d, want 1000", used)
	}
	sizes["d"] = 100
	b.Changed("d")
	if b.Used(size) != 100 {
		t.Errorf("a changed namespace is not estimated again")
	}
	if b.Evictions.Load() != 3 {
		t.Errorf("evictions %d, want 3", b.Evictions.Load())
	}
	// Growth by one row is accounted at the next check: e, loaded at 100,
	// grows to 200 with one changed row, and d (the least recently used)
	// goes.
	sizes["e"] = 100
	b.Loaded("e", 0)
	if out := b.Evict("e", size); len(out) != 0 {
		t.Fatalf("evicted %v under the limit", out)
	}
	if out := b.Evict("e", size); len(out) != 0 {
		t.Fatalf("evicted %v with nothing changed", out)
	}
	sizes["e"] = 200
	b.Changed("e")
	if out := b.Evict("e", size); !slices.Equal(out, []string{"d"}) {
		t.Fatalf("after one row grew e past the limit: evicted %v, want [d]", out)
	}
	// An estimate that is not settled (a sketch build in flight) is taken
	// again at every check, with no row changed.
	sizes["f"] = 10
	unsettled["f"] = true
	b.Loaded("f", 0)
	if out := b.Evict("f", size); len(out) != 0 {
		t.Fatalf("evicted %v under the limit", out)
	}
	sizes["f"] = 100
	unsettled["f"] = false
	if out := b.Evict("f", size); !slices.Equal(out, []string{"e"}) {
		t.Fatalf("after f's build: evicted %v, want [e]", out)
	}
	if used := b.Used(size); used != 100 {
		t.Errorf("used %d, want 100", used)
	}
	var none *Budget
	none.Loaded("x", 0)
	none.Use("x")
	if none.Evict("x", size) != nil || none.Full(size) || none.Limit() != 0 || NewBudget(0) != nil {
		t.Error("a nil budget bounds something")
	}
}

// TestBudgetUseConcurrent: Use runs under a read lock beside other
// readers (run with -race).
func TestBudgetUseConcurrent(t *testing.T) {
	var mu sync.RWMutex
	b := NewBudget(1000)
	b.Loaded("a", 0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				mu.RLock()
				b.Use("a")
				mu.RUnlock()
			}
		}()
	}
	for range 100 {
		mu.Lock()
		b.Changed("a")
		b.Evict("", func(string) (int64, bool) { return 10, true })
		mu.Unlock()
	}
	wg.Wait()
}

// capSums returns the sums of the capacities of n's postings and thread
// lists, counted by walking them.
func capSums[K comparable](n *Namespace[K]) (post, thr int64) {
	for _, p := range n.kw.postings {
		post += int64(cap(p))
	}
	for _, ms := range n.thr {
		thr += int64(cap(ms))
	}
	return post, thr
}

// TestMemoryBytesCounters: the capacities MemoryBytes reads from counters
// kept by every write equal those of the lists themselves, through new
// records, rewritten texts, threads changed and emptied, removals, and a
// namespace read back from a snapshot and written to again.
func TestMemoryBytesCounters(t *testing.T) {
	check := func(stage string, n *Namespace[int64]) {
		t.Helper()
		post, thr := capSums(n)
		if n.kw.postCap != post || n.thrCap != thr {
			t.Fatalf("%s: counted postings %d, threads %d; the lists hold %d, %d", stage, n.kw.postCap, n.thrCap, post, thr)
		}
	}
	n := sizeNamespace(500, 16, 5)
	check("built", n)
	rng := rand.New(rand.NewPCG(5, 6))
	emb := make([]byte, 4*16)
	write := func(n *Namespace[int64], key int64) {
		e := Entry{ID: fmt.Sprintf("01J%023d", key-1), Created: rng.Int64N(1000), ValidFrom: math.MinInt64, ValidTo: math.MaxInt64, Seq: key}
		if rng.IntN(3) > 0 {
			e.Thread = fmt.Sprintf("thread-%d", rng.IntN(400))
		}
		text := fmt.Sprintf("word%d word%d fresh%d", rng.IntN(50), rng.IntN(5000), rng.IntN(100))
		n.Put(key, e, emb, []byte(text))
	}
	for range 2000 {
		switch key := int64(1 + rng.IntN(700)); rng.IntN(4) {
		case 0:
			n.Remove(key)
		default:
			write(n, key)
		}
	}
	check("after writes and removals", n)
	var buf strings.Builder
	if err := n.WriteSnapshot(&buf, "counters", 1, func(k int64) uint64 { return uint64(k) }); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadSnapshot([]byte(buf.String()), func(k uint64) int64 { return int64(k) }, func(k int64) uint64 { return uint64(k) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("read from a snapshot", back)
	for range 500 {
		write(back, int64(1+rng.IntN(800)))
	}
	check("written to after the snapshot", back)
}
