package postgres_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/storetest"
)

func pgEvictNS(i int) string { return fmt.Sprintf("ev/ns%02d", i) }

// pgEvictFixture writes nsCount namespaces of n records (16-dimension
// vectors, words from a small vocabulary, access levels, tags) and
// returns the database URL, a store without a bound that has loaded one
// namespace, and that namespace's estimated bytes.
func pgEvictFixture(t *testing.T, nsCount, n int) (string, *postgres.Store, int64) {
	t.Helper()
	u := newDatabase(t, "")
	ref := openURL(t, u)
	t.Cleanup(func() { ref.Close() })
	words := []string{"heron", "river", "stone", "delta", "cedar", "amber", "quartz", "harbor", "meadow", "falcon"}
	for i := range nsCount {
		rng := rand.New(rand.NewPCG(uint64(i+1), 2))
		var recs []*mnemo.Record
		for j := range n {
			v := make([]float32, 16)
			for k := range v {
				v[k] = float32(rng.NormFloat64())
			}
			text := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			r := &mnemo.Record{ID: fmt.Sprintf("r%04d", j), Namespace: pgEvictNS(i), Kind: mnemo.KindFact, Text: text,
				Embedding: v, AccessLevel: j % 3}
			if j%7 == 0 {
				r.Tags = []string{"seven"}
			}
			r.Normalize(time.Now().Add(-time.Duration(n-j) * time.Minute))
			recs = append(recs, r)
		}
		if _, err := ref.Insert(bg, recs, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := ref.Warm(bg, pgEvictNS(0)); err != nil {
		t.Fatal(err)
	}
	_, one, _, _ := ref.IndexMemory()
	return u, ref, one
}

// pgAnswers is what a store answers for a namespace's probes, as text.
func pgAnswers(t testing.TB, s *postgres.Store, ns string, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	for _, clearance := range []int{0, 2} {
		sc := mnemo.Scope{Namespace: ns, Clearance: clearance}
		for range 3 {
			v := make([]float32, 16)
			for k := range v {
				v[k] = float32(rng.NormFloat64())
			}
			for _, f := range []mnemo.Filter{{}, {Tags: []string{"seven"}}} {
				hits, err := s.Vector(bg, sc, v, f, 15)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "vec %v\n", hits)
			}
		}
		kw, err := s.Keyword(bg, sc, "heron falcon", mnemo.Filter{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(kw))
		for i, h := range kw {
			ids[i] = h.ID
		}
		slices.Sort(ids)
		fmt.Fprintf(&b, "kw %v\n", ids)
	}
	return b.String()
}

// TestIndexMemoryEviction runs the eviction contract (storetest.Eviction)
// on six namespaces, against another store on the same database; a
// negative bound is refused.
func TestIndexMemoryEviction(t *testing.T) {
	const nsCount = 6
	u, ref, one := pgEvictFixture(t, nsCount, 200)
	capped, err := postgres.Open(bg, postgres.Options{URL: u, IndexMemory: one*5/2 + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer capped.Close()
	storetest.Eviction(t, ref, capped, nsCount, pgEvictNS, "heron", true, func(s storetest.Evicting, i int) string {
		return pgAnswers(t, s.(*postgres.Store), pgEvictNS(i), uint64(i))
	})
	if _, err := postgres.Open(bg, postgres.Options{URL: u, IndexMemory: -1}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("negative bound: %v, want EINVALID", err)
	}
}

// TestIndexMemoryConcurrent reads every namespace from several goroutines
// while a small bound evicts and reloads them: every read answers as the
// store without a bound (run it with -race).
func TestIndexMemoryConcurrent(t *testing.T) {
	const nsCount = 5
	u, ref, one := pgEvictFixture(t, nsCount, 150)
	capped, err := postgres.Open(bg, postgres.Options{URL: u, IndexMemory: one*3/2 + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer capped.Close()
	want := make([]string, nsCount)
	for i := range nsCount {
		want[i] = pgAnswers(t, ref, pgEvictNS(i), uint64(i))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for range 3 * nsCount {
				i := rng.IntN(nsCount)
				if got := pgAnswers(t, capped, pgEvictNS(i), uint64(i)); got != want[i] {
					errs <- fmt.Sprintf("namespace %d answers differently while others are evicted", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if _, _, _, ev := capped.IndexMemory(); ev == 0 {
		t.Error("nothing was evicted")
	}
}
