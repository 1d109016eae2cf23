package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/storetest"
)

// evictNS is the i-th namespace of the eviction tests.
func evictNS(i int) string { return fmt.Sprintf("ev/ns%02d", i) }

// evictRecords makes n records of namespace ns: Zipf texts, 16-dimension
// vectors, some threads, access levels and tags.
func evictRecords(ns string, seed uint64, n int, now time.Time) []*mnemo.Record {
	rng := rand.New(rand.NewPCG(seed, 11))
	var out []*mnemo.Record
	for i, text := range zipfTexts(seed, n, 12) {
		r := textRecord(ns, fmt.Sprintf("r%04d", i), text, now.Add(-time.Duration(n-i)*time.Minute))
		r.Embedding = make([]float32, 16)
		for j := range r.Embedding {
			r.Embedding[j] = float32(rng.NormFloat64())
		}
		if i%5 == 0 {
			r.Thread = fmt.Sprintf("t%d", i%3)
		}
		r.AccessLevel = i % 3
		if i%7 == 0 {
			r.Tags = []string{"seven"}
		}
		out = append(out, r)
	}
	return out
}

// evictQueries are the probes each namespace is compared on.
type evictProbe struct {
	words string
	vec   []float32
	ids   []string
}

func evictProbes(seed uint64) []evictProbe {
	rng := rand.New(rand.NewPCG(seed, 5))
	var ps []evictProbe
	for i, text := range zipfTexts(seed+100, 4, 3) {
		p := evictProbe{words: text, vec: make([]float32, 16)}
		for j := range p.vec {
			p.vec[j] = float32(rng.NormFloat64())
		}
		for k := range 6 {
			p.ids = append(p.ids, fmt.Sprintf("r%04d", (i*37+k*53)%300))
		}
		ps = append(ps, p)
	}
	return ps
}

// answers is everything a store answers for a namespace's probes, as text.
func answers(t testing.TB, s *Store, ns string, ps []evictProbe) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, clearance := range []int{0, 2} {
		sc := mnemo.Scope{Namespace: ns, Clearance: clearance}
		for _, p := range ps {
			kw, err := s.Keyword(ctx, sc, p.words, mnemo.Filter{}, 1000)
			if err != nil {
				t.Fatal(err)
			}
			// Ties keep no particular order: sort them.
			slices.SortStableFunc(kw, func(a, b mnemo.Hit) int {
				if a.Score != b.Score {
					if a.Score > b.Score {
						return -1
					}
					return 1
				}
				return strings.Compare(a.ID, b.ID)
			})
			fmt.Fprintf(&b, "kw %q: %v\n", p.words, kw)
			tagged, err := s.Keyword(ctx, sc, p.words, mnemo.Filter{Tags: []string{"seven"}}, 5)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "kw tagged: %d\n", len(tagged))
			vec, err := s.Vector(ctx, sc, p.vec, mnemo.Filter{}, 20)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "vec: %v\n", vec)
			idf, unseen, err := s.IDF(ctx, sc, p.words)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "idf: %v %v\n", idf, unseen)
			recs, err := s.GetMany(ctx, sc, p.ids)
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(recs, func(a, b *mnemo.Record) int { return strings.Compare(a.ID, b.ID) })
			for _, r := range recs {
				fmt.Fprintf(&b, "rec %s %q deleted=%v\n", r.ID, r.Text, r.DeletedAt != nil)
			}
			if r, err := s.Get(ctx, sc, p.ids[0]); err == nil {
				fmt.Fprintf(&b, "get %s %q\n", r.ID, r.Text)
			} else {
				fmt.Fprintf(&b, "get: %v\n", mnemo.ErrorCode(err))
			}
		}
	}
	return b.String()
}

// evictFixture writes nsCount namespaces of 300 records through a store
// without a bound, returned with the database path and the estimated bytes
// of one loaded namespace.
func evictFixture(t *testing.T, nsCount int, opt Options) (string, *Store, int64) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "evict.db")
	ref := openTest(t, path, opt)
	now := time.Now()
	for i := range nsCount {
		if _, err := ref.Insert(ctx, evictRecords(evictNS(i), uint64(i+1), 300, now), "", ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := ref.Warm(ctx, evictNS(0)); err != nil {
		t.Fatal(err)
	}
	_, one, _, _ := ref.IndexMemory()
	return path, ref, one
}

// TestIndexMemoryEviction runs the eviction contract (storetest.Eviction)
// on eight namespaces, against another process's store on the same file,
// and after the bounded store's own writes.
func TestIndexMemoryEviction(t *testing.T) {
	const nsCount = 8
	path, ref, one := evictFixture(t, nsCount, Options{NoIndexSnapshots: true})
	capped := openTest(t, path, Options{NoIndexSnapshots: true, IndexMemory: one*5/2 + 1})
	probes := make([][]evictProbe, nsCount)
	for i := range probes {
		probes[i] = evictProbes(uint64(i + 7))
	}
	storetest.Eviction(t, ref, capped, nsCount, evictNS, "ropiven0", true, func(s storetest.Evicting, i int) string {
		return answers(t, s.(*Store), evictNS(i), probes[i])
	})
}

// TestIndexMemoryReloadsFromSnapshot: a namespace evicted with no fresh
// snapshot gets one written as it is dropped, and its next read loads it
// from that snapshot (read into memory, not mapped), answering as before.
func TestIndexMemoryReloadsFromSnapshot(t *testing.T) {
	smallSnapshots(t)
	const nsCount = 4
	path, ref, one := evictFixture(t, nsCount, Options{NoIndexSnapshots: true})
	capped := openTest(t, path, Options{IndexMemory: one*3/2 + 1})
	probes := evictProbes(3)
	before := make([]string, nsCount)
	for i := range nsCount {
		before[i] = answers(t, capped, evictNS(i), probes)
		if want := answers(t, ref, evictNS(i), probes); before[i] != want {
			t.Fatalf("namespace %d answers differently under the bound", i)
		}
	}
	capped.snapWG.Wait() // the snapshots written as namespaces were evicted
	capped.idx.mu.Lock()
	st := *capped.idx.snap(evictNS(0))
	_, loaded := capped.idx.ns[evictNS(0)]
	capped.idx.mu.Unlock()
	if loaded || st.seq == 0 {
		t.Fatalf("namespace 0: loaded %v, snapshot seq %d: want evicted with a snapshot", loaded, st.seq)
	}
	if got := answers(t, capped, evictNS(0), probes); got != before[0] {
		t.Fatalf("reloaded from its snapshot, namespace 0 answers differently:\n got %.400s\nwant %.400s", got, before[0])
	}
	capped.idx.mu.Lock()
	st = *capped.idx.snap(evictNS(0))
	n := capped.idx.ns[evictNS(0)]
	capped.idx.mu.Unlock()
	if n == nil || st.seq == 0 || st.changed != 0 {
		t.Errorf("namespace 0 after its read: loaded %v, snapshot seq %d, changed %d: want read from the snapshot", n != nil, st.seq, st.changed)
	}
}

// TestIndexMemoryConcurrent reads every namespace from many goroutines
// while a small bound evicts and reloads them, and a writer writes to one
// of them: every read answers as the store without a bound (run it with
// -race).
func TestIndexMemoryConcurrent(t *testing.T) {
	ctx := context.Background()
	const nsCount = 6
	path, ref, one := evictFixture(t, nsCount, Options{NoIndexSnapshots: true})
	capped := openTest(t, path, Options{NoIndexSnapshots: true, IndexMemory: one*3/2 + 1})
	probes := evictProbes(9)[:2]
	want := make([]string, nsCount)
	for i := range nsCount {
		want[i] = answers(t, ref, evictNS(i), probes)
	}
	readers, rounds := 4, 3
	var wg sync.WaitGroup
	errs := make(chan string, readers)
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // a writer in a namespace of its own
		defer wg.Done()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			r := textRecord("ev/writer", fmt.Sprintf("w%05d", k), "written while reading ropiven0", time.Now())
			if _, err := capped.Insert(ctx, []*mnemo.Record{r}, "", ""); err != nil {
				errs <- err.Error()
				return
			}
			if _, err := capped.Keyword(ctx, mnemo.Scope{Namespace: "ev/writer"}, "ropiven0", mnemo.Filter{}, 5); err != nil {
				errs <- err.Error()
				return
			}
		}
	}()
	var rd sync.WaitGroup
	for g := range readers {
		rd.Add(1)
		go func() {
			defer rd.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range rounds * nsCount {
				i := rng.IntN(nsCount)
				if got := answers(t, capped, evictNS(i), probes); got != want[i] {
					errs <- fmt.Sprintf("namespace %d answers differently while others are evicted", i)
					return
				}
			}
		}()
	}
	rd.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if _, _, _, ev := capped.IndexMemory(); ev == 0 {
		t.Error("nothing was evicted")
	}
}

// TestIndexMemoryWarm: warming loads namespaces until the bound is full,
// then none; a negative bound is refused.
func TestIndexMemoryWarm(t *testing.T) {
	ctx := context.Background()
	path, _, one := evictFixture(t, 5, Options{NoIndexSnapshots: true})
	capped := openTest(t, path, Options{NoIndexSnapshots: true, IndexMemory: one*2 + one/2})
	for i := range 5 {
		if err := capped.Warm(ctx, evictNS(i)); err != nil {
			t.Fatal(err)
		}
	}
	// The bound holds two and a half namespaces: the third one loaded
	// passes it (and evicts the first), the last two are not loaded.
	lim, used, loaded, evicted := capped.IndexMemory()
	if loaded != 2 || evicted != 1 || used > lim {
		t.Errorf("warm-up: %d namespaces loaded, %d evicted (used %d of %d): want 2 loaded, 1 evicted", loaded, evicted, used, lim)
	}
	if _, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "x.db"), IndexMemory: -1}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("negative bound: %v, want EINVALID", err)
	}
}
