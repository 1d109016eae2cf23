package memindex

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func turn(id string, thread string, at int64, level int) Entry {
	return Entry{ID: id, Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: "/", Thread: thread,
		AccessLevel: level, Created: at, ValidFrom: math.MinInt64, ValidTo: math.MaxInt64}
}

func keywordIDs(n *Namespace[int64], clearance int, terms ...string) map[string]float64 {
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: clearance}, mnemo.Filter{}, time.Unix(0, 1000))
	out := map[string]float64{}
	for _, h := range n.Keyword(Terms(terms, 8), 1<<40, c, 100) {
		out[h.ID] = h.Score
	}
	return out
}

// TestNeighbourTerms: a turn is found by the words of the turn before and
// after it, at less than its own words' weight; turns of other threads,
// forgotten turns and turns above its access level lend nothing.
func TestNeighbourTerms(t *testing.T) {
	n := New[int64](8, 0)
	put := func(key int64, e Entry, text string) { n.Put(key, e, nil, []byte(text)) }
	put(1, turn("a1", "a", 10, 0), "Did the kids like the museum trip?")
	put(2, turn("a2", "a", 20, 0), "They loved the dinosaur bones!")
	put(3, turn("a3", "a", 30, 0), "We should go again in spring")
	put(4, turn("b1", "b", 15, 0), "The museum is closed on Mondays")
	put(5, turn("b2", "b", 25, 0), "Parking costs ten euros")
	got := keywordIDs(n, 0, "museum")
	if got["a2"] == 0 {
		t.Fatalf("the answer turn is not found by its question's word: %v", got)
	}
	if !(got["a1"] > got["a2"]) || !(got["b1"] > got["a2"]) {
		t.Fatalf("a neighbour's word weighs as much as the record's own: %v", got)
	}
	if got["a3"] != 0 {
		t.Fatalf("a turn two away took the word: %v", got)
	}
	if got["b2"] == 0 {
		t.Fatalf("b2 does not take its predecessor's word: %v", got)
	}

	// A turn above the record's level lends nothing; the equal-level turn
	// behind it lends instead, so the scores equal a store without it.
	m := New[int64](8, 0)
	m.Put(1, turn("a1", "a", 10, 0), nil, []byte("Where is the spare key?"))
	m.Put(2, turn("s", "a", 15, 3), nil, []byte("The safe code is 4711"))
	m.Put(3, turn("a2", "a", 20, 0), nil, []byte("Under the blue pot"))
	if got := keywordIDs(m, 3, "4711"); got["a2"] != 0 || got["a1"] != 0 {
		t.Fatalf("a level-0 turn carries a level-3 turn's words: %v", got)
	}
	only := New[int64](8, 0)
	only.Put(1, turn("a1", "a", 10, 0), nil, []byte("Where is the spare key?"))
	only.Put(3, turn("a2", "a", 20, 0), nil, []byte("Under the blue pot"))
	for _, q := range []string{"key", "spare", "pot", "blue"} {
		a, b := keywordIDs(m, 0, q), keywordIDs(only, 0, q)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%q: clearance 0 sees %v, a store of its records only %v", q, a, b)
		}
	}

	// A forgotten turn lends no words; a hard-removed one leaves the thread.
	e := turn("a1", "a", 10, 0)
	e.Deleted = true
	put(1, e, "Did the kids like the museum trip?")
	if got := keywordIDs(n, 0, "kids"); len(got) != 0 {
		t.Fatalf("a forgotten turn lends its words: %v", got)
	}
	n.Remove(4)
	if got := keywordIDs(n, 0, "museum"); got["b2"] != 0 {
		t.Fatalf("a removed turn lends its words: %v", got)
	}
	// Moving a record to another thread moves its words with it.
	put(5, turn("b2", "a", 35, 0), "Parking costs ten euros")
	if got := keywordIDs(n, 0, "parking"); got["a3"] == 0 {
		t.Fatalf("a3 does not take the words of the turn moved after it: %v", got)
	}
}
