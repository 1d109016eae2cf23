package storetest

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Evicting is a store whose in-memory indexes are held under a memory
// bound: IndexMemory reports the bound, the estimated bytes loaded, the
// namespaces loaded and how many were evicted since the store was opened.
type Evicting interface {
	mnemo.Store
	IndexMemory() (limit, used int64, loaded int, evicted int64)
}

// Eviction checks a store under a bound that holds about two and a half
// namespaces against a store on the same database without one. ref has
// written nsCount namespaces (ns(i)) of at least 38 records each, with ids
// r0000, r0001, ... and vectors; answers(s, i) is everything a store
// answers for namespace i, as text, its probes searching for word. Reading
// the namespaces in turn evicts the least recently read ones, reloads them
// on their next read, keeps the estimate within the bound, and every
// answer equals that of ref: before and after ref's writes (an edit, a
// forget, a purge in every other namespace, a new record) to loaded and
// evicted namespaces alike, and, with own, after capped's own writes.
func Eviction(t *testing.T, ref, capped Evicting, nsCount int, ns func(int) string, word string, own bool, answers func(s Evicting, i int) string) {
	t.Helper()
	compare := func(stage string, order []int) {
		t.Helper()
		for _, i := range order {
			if got, want := answers(capped, i), answers(ref, i); got != want {
				t.Fatalf("%s: namespace %s answers differently under the bound:\n got %.400s\nwant %.400s", stage, ns(i), got, want)
			}
			// The sum is checked at every load and after every batch of
			// rows applied, so it holds after every read: only one
			// namespace larger than the bound may pass it, alone.
			if lim, used, loaded, _ := capped.IndexMemory(); used > lim && loaded > 1 {
				t.Fatalf("%s: %d bytes loaded in %d namespaces, over the bound %d", stage, used, loaded, lim)
			}
		}
	}
	all := make([]int, nsCount)
	var ends []int // the last, the first, the last but one, ...
	for i := range nsCount {
		all[i] = i
		if i%2 == 0 {
			ends = append(ends, nsCount-1-i/2)
		} else {
			ends = append(ends, i/2)
		}
	}
	compare("first pass", all)
	compare("second pass", append(ends, ends[nsCount-1], 0))
	_, _, loaded, evicted := capped.IndexMemory()
	if evicted == 0 || loaded > 2 {
		t.Fatalf("evicted %d, %d namespaces loaded under a bound of 2.5 namespaces: the bound did not evict", evicted, loaded)
	}

	// Writes by the other store, to loaded and evicted namespaces alike.
	now := time.Now()
	dim := 0
	sc := func(i int) mnemo.Scope { return mnemo.Scope{Namespace: ns(i), Clearance: mnemo.MaxAccessLevel} }
	for i := range nsCount {
		r, err := ref.Get(bg, sc(i), "r0000")
		if err != nil {
			t.Fatal(err)
		}
		r.Text = word + " edited in namespace " + ns(i)
		dim = len(r.Embedding)
		r.Embedding = unit(dim, 0)
		if err := ref.Update(bg, r, "update", "test"); err != nil {
			t.Fatal(err)
		}
		f, err := ref.Get(bg, sc(i), "r0037")
		if err != nil {
			t.Fatal(err)
		}
		gone := now.Add(-time.Hour)
		f.DeletedAt = &gone
		if err := ref.Update(bg, f, "forget", "test"); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if n, err := ref.Purge(bg, sc(i), now); err != nil || n != 1 {
				t.Fatalf("purge %s: %d, %v", ns(i), n, err)
			}
		}
		nr := NewRecord(ns(i), "a fresh "+word+" record", unit(dim, 1))
		if _, err := ref.Insert(bg, []*mnemo.Record{nr}, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	shuffled := slices.Clone(all)
	rand.New(rand.NewPCG(uint64(nsCount), 1)).Shuffle(nsCount, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	compare("after another store's writes", append(shuffled, 0, 1))
	if !own {
		return
	}

	// Writes by the bounded store itself (published to what it holds).
	for _, i := range []int{0, nsCount / 2, 1} {
		nr := NewRecord(ns(i), "written under the bound "+word, unit(dim, 2))
		if _, err := capped.Insert(bg, []*mnemo.Record{nr}, "", ""); err != nil {
			t.Fatal(err)
		}
		r, err := capped.Get(bg, sc(i), "r0001")
		if err != nil {
			t.Fatal(err)
		}
		r.Text = "edited under the bound"
		if err := capped.Update(bg, r, "update", "test"); err != nil {
			t.Fatal(err)
		}
	}
	compare("after its own writes", all)
	if _, _, _, ev := capped.IndexMemory(); ev <= evicted {
		t.Errorf("no eviction after the writes (%d before, %d after)", evicted, ev)
	}
}

// unit is the dim-dimension vector with a 1 at i.
func unit(dim, i int) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	return v
}
