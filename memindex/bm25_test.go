package memindex

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// kwCorpus returns n texts of 12 words drawn from a Zipf-distributed
// vocabulary, the same for the same seed.
func kwCorpus(n int, seed int64) []string {
	r := rand.New(rand.NewSource(seed))
	z := rand.NewZipf(r, 1.1, 1, 20000)
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		for j := range 12 {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%d", z.Uint64())
		}
		out[i] = b.String()
	}
	return out
}

// kwIndex indexes texts; every hidden-th record (0: none) is at level 3.
func kwIndex(texts []string, hidden int) *Namespace[int] {
	n := New[int](len(texts), 0)
	for i, t := range texts {
		e := Entry{ID: fmt.Sprintf("r%06d", i)}
		e.SetTimes(nil, nil, nil)
		if hidden > 0 && i%hidden == 0 {
			e.AccessLevel = 3
		}
		n.Put(i, e, nil, []byte(t))
	}
	return n
}

// TestKeywordLevelsMatchVisibleOnlyIndex: after records are written,
// moved between levels, rewritten and removed, the scores a clearance-0
// caller gets equal those of an index holding only its records, and the
// levels' statistics balance out once every record is back at level 0.
func TestKeywordLevelsMatchVisibleOnlyIndex(t *testing.T) {
	texts := kwCorpus(3000, 1)
	mixed := kwIndex(texts, 3)
	// Move some records between levels, rewrite and remove others.
	for i := 0; i < len(texts); i += 7 {
		e := *mixed.ByID(fmt.Sprintf("r%06d", i))
		e.AccessLevel = 3 - e.AccessLevel
		mixed.Put(i, e, nil, []byte(texts[i]))
	}
	for i := 1; i < len(texts); i += 11 {
		e := *mixed.ByID(fmt.Sprintf("r%06d", i))
		texts[i] += " rewritten w1 w2"
		mixed.Put(i, e, nil, []byte(texts[i]))
	}
	for i := 2; i < len(texts); i += 13 {
		mixed.Remove(i)
	}
	// The reference: the visible records only, in the same order.
	ref := New[int](len(texts), 0)
	for i := range texts {
		e := mixed.ByID(fmt.Sprintf("r%06d", i))
		if e == nil || e.AccessLevel > 0 {
			continue
		}
		c := *e
		ref.Put(i, c, nil, []byte(texts[i]))
	}
	now := time.Now()
	c := Compile(mnemo.Scope{}, mnemo.Filter{}, now)
	for _, q := range []string{"w1", "w2 w3", "w5 w40 w300", "w1 w2 w3 w4 w5 w6 w7 w8", "w1999"} {
		terms := Terms(QueryTokens(q), MaxQueryTokens)
		got, want := mixed.Keyword(terms, 5000, c, 50), ref.Keyword(terms, 5000, c, 50)
		if !slices.Equal(got, want) {
			t.Errorf("Keyword %q at clearance 0:\n got %v\nwant %v", q, got[:min(3, len(got))], want[:min(3, len(want))])
		}
		gi, gu := mixed.IDF(terms, 0)
		wi, wu := ref.IDF(terms, 0)
		if fmt.Sprint(gi) != fmt.Sprint(wi) || gu != wu {
			t.Errorf("IDF %q at clearance 0 = %v %v, want %v %v", q, gi, gu, wi, wu)
		}
	}
	for i := range texts {
		if e := mixed.ByID(fmt.Sprintf("r%06d", i)); e != nil && e.AccessLevel != 0 {
			c := *e
			c.AccessLevel = 0
			mixed.Put(i, c, nil, []byte(texts[i]))
		}
	}
	if len(mixed.kw.levels) != 0 {
		t.Errorf("levels left after every record went back to level 0: %d", len(mixed.kw.levels))
	}
}

// BenchmarkKeywordLevels measures Keyword top-100 on 100,000 records: all
// at level 0, and with every tenth at level 3 for a caller of clearance 0
// (per-level statistics subtracted) and of clearance 3 (none hidden).
func BenchmarkKeywordLevels(b *testing.B) {
	texts := kwCorpus(100000, 2)
	terms := Terms(QueryTokens("w3 w17 w120 w900 w4000"), MaxQueryTokens)
	for _, c := range []struct {
		name      string
		hidden    int
		clearance int
	}{{"level0", 0, 0}, {"mixed/clearance0", 10, 0}, {"mixed/clearance3", 10, 3}} {
		n := kwIndex(texts, c.hidden)
		cond := Compile(mnemo.Scope{Clearance: c.clearance}, mnemo.Filter{}, time.Now())
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				n.Keyword(terms, 5000, cond, 100)
			}
		})
	}
}

// TestKeywordLengthsTable: BM25 reads each entry's length from the
// keyword index's table of lengths (dls) where it holds it, from the
// entry where it does not (a record of more than 65,534 terms); either way
// the scores are those of the entries' own lengths: in memory, after
// records are rewritten and added, and read back from a snapshot and
// written to after.
func TestKeywordLengthsTable(t *testing.T) {
	texts := kwCorpus(2000, 7)
	long := strings.Repeat("w1 w2 w3 zlong ", 20000) // 80,000 terms
	n := New[int64](len(texts)+1, 0)
	put := func(i int, text string) {
		e := Entry{ID: fmt.Sprintf("r%06d", i)}
		e.SetTimes(nil, nil, nil)
		n.Put(int64(i), e, nil, []byte(text))
	}
	for i, x := range texts {
		put(i, x)
	}
	put(len(texts), long)
	queries := [][]string{{"w1"}, {"w2", "w3"}, {"zlong", "w7"}, {"w15", "w40", "w3"}}
	check := func(what string, n *Namespace[int64]) {
		t.Helper()
		at, ok := n.idPos(fmt.Sprintf("r%06d", len(texts)))
		if d := n.kw.dls; !ok || len(d) != n.Len() || d[at] != dlUnknown {
			t.Fatalf("%s: the table of lengths holds %d of %d entries, the long record's (%v) not marked unknown", what, len(d), n.Len(), ok)
		}
		for _, q := range queries {
			got := n.Keyword(q, 1<<20, &Cond{}, 50)
			saved := n.kw.dls
			n.kw.dls = nil // every length from the entries
			want := n.Keyword(q, 1<<20, &Cond{}, 50)
			n.kw.dls = saved
			if len(got) == 0 || !slices.Equal(got, want) {
				t.Fatalf("%s: %v: with the table %v, from the entries %v", what, q, got, want)
			}
		}
	}
	check("in memory", n)
	for i := 0; i < len(texts); i += 9 { // rewritten: new terms, new lengths
		put(i, texts[(i+1)%len(texts)]+" w1 w1")
	}
	check("rewritten", n)
	n = readSnap(t, snapBytes(t, n, 1))
	check("read back", n)
	for i := 0; i < 300; i += 3 {
		put(i, texts[i]+" w2")
	}
	for i := range 50 {
		put(len(texts)+1+i, texts[i])
	}
	put(len(texts), long+" w3") // the long record rewritten, still long
	check("written after reading back", n)
}

// BenchmarkKeywordLengths measures Keyword top-100 of a namespace read
// from a snapshot (the entries not decoded, as in a one-shot process or a
// server just started) with each posting's length read from the table of
// lengths, and from the entries' scoring columns as before it.
func BenchmarkKeywordLengths(b *testing.B) {
	for _, size := range []int{100000, 1000000} {
		texts := kwCorpus(size, 2)
		n := New[int64](size, 0)
		for i, x := range texts {
			e := Entry{ID: fmt.Sprintf("r%07d", i)}
			e.SetTimes(nil, nil, nil)
			n.Put(int64(i), e, nil, []byte(x))
		}
		n = readSnap(b, snapBytes(b, n, 1))
		terms := Terms(QueryTokens("w3 w17 w120 w900 w4000"), MaxQueryTokens)
		cond := Compile(mnemo.Scope{}, mnemo.Filter{}, time.Now())
		dls := n.kw.dls
		for _, c := range []struct {
			name string
			dls  []uint16
		}{{"table", dls}, {"columns", nil}} {
			b.Run(fmt.Sprintf("%d/%s", size, c.name), func(b *testing.B) {
				n.kw.dls = c.dls
				for b.Loop() {
					n.Keyword(terms, 200000, cond, 100)
				}
			})
		}
		n.kw.dls = dls
	}
}

// TestKeywordOneMatchesAccumulators: Keyword's scoring of a query that
// keeps one term (in a namespace whose turns lend no terms) returns the
// hits, the order and the scores to the bit of the accumulators, for a
// term given alone or twice, the one term kept past the prune budget,
// records hidden by clearance and filtered out by kind, and after records
// are rewritten and removed.
func TestKeywordOneMatchesAccumulators(t *testing.T) {
	texts := kwCorpus(20000, 3)
	n := kwIndex(texts, 4)
	for i := 5; i < len(texts); i += 9 {
		e := *n.ByID(fmt.Sprintf("r%06d", i))
		e.Kind = mnemo.KindDecision
		n.Put(i, e, nil, []byte(texts[i]+" w7 w7 w300"))
	}
	for i := 3; i < len(texts); i += 17 {
		n.Remove(i)
	}
	if len(n.thr) != 0 {
		t.Fatal("the fixture has threads: Keyword would not merge")
	}
	now := time.Now()
	conds := map[string]*Cond{
		"clearance 0": Compile(mnemo.Scope{}, mnemo.Filter{}, now),
		"clearance 3": Compile(mnemo.Scope{Clearance: 3}, mnemo.Filter{}, now),
		"decisions":   Compile(mnemo.Scope{Clearance: 3}, mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindDecision}}, now),
	}
	queries := []string{"w1", "w7", "w2 w3", "w7 w7 w300", "w5 w40 w300", "w1 w2 w3 w4 w5 w6 w7 w8", "w1999", "w19999 w3", "w300"}
	one := 0
	for name, c := range conds {
		docs, totalLen, _ := n.kw.visible(c.clearance)
		N := float64(docs)
		avg := float64(totalLen) / N
		for _, q := range queries {
			for _, budget := range []int64{5000, 1 << 30} {
				terms := Terms(QueryTokens(q), MaxQueryTokens)
				got := n.Keyword(terms, budget, c, 100)
				// The same pruned terms, scored by the accumulators.
				_, _, hidden := n.kw.visible(c.clearance)
				qs := n.kw.queryTerms(terms, hidden, budget)
				want := n.keywordAccumulate(qs, N, avg, c, 100, new(searchScratch))
				if len(want) == 0 {
					t.Fatalf("%s %q: no hits to compare", name, q)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s %q budget %d:\n got %v\nwant %v", name, q, budget, got[:min(3, len(got))], want[:min(3, len(want))])
				}
				if len(qs) == 1 {
					one++
				}
			}
		}
	}
	if one < 10 {
		t.Errorf("%d queries kept one term", one)
	}
}

// BenchmarkKeywordCommon measures Keyword top-100 on 200,000 records for
// a query whose rarest term is past the prune budget (the one term a
// query expansion of common words keeps), and for three terms within it.
func BenchmarkKeywordCommon(b *testing.B) {
	n := kwIndex(kwCorpus(200000, 4), 0)
	c := Compile(mnemo.Scope{}, mnemo.Filter{}, time.Now())
	for _, q := range []string{"w2 w3 w4", "w300 w400 w500"} {
		terms := Terms(QueryTokens(q), MaxQueryTokens)
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				n.Keyword(terms, 5000, c, 100)
			}
		})
	}
}

// TestBestPassing: the best n scored entries that a filter passes, best
// first, are those of a full sort by worse (ties in score broken by
// position) filtered in that order, whatever the order the scores come
// in, how many tie, how many the filter drops and how many are wanted;
// and selectBest alone puts the best m first.
func TestBestPassing(t *testing.T) {
	texts := kwCorpus(3000, 5)
	n := kwIndex(texts, 3) // every third record at level 3
	for i := 1; i < len(texts); i += 5 {
		e := *n.ByID(fmt.Sprintf("r%06d", i))
		e.Kind = mnemo.KindDecision
		n.Put(i, e, nil, []byte(texts[i]))
	}
	now := time.Now()
	conds := []*Cond{
		Compile(mnemo.Scope{Clearance: 3}, mnemo.Filter{}, now),
		Compile(mnemo.Scope{}, mnemo.Filter{}, now),
		Compile(mnemo.Scope{}, mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindDecision}}, now),
	}
	rng := rand.New(rand.NewSource(9))
	for round := range 300 {
		size := rng.Intn(n.Len() + 1)
		levels := 1 + rng.Intn(50) // few distinct scores: many ties
		scored := make([]kwScored, 0, size)
		for _, i := range rng.Perm(n.Len())[:size] {
			scored = append(scored, kwScored{int32(i), float64(rng.Intn(levels)) / 7})
		}
		want := slices.Clone(scored)
		slices.SortFunc(want, func(a, b kwScored) int {
			if worse(b, a) {
				return -1
			}
			return 1
		})
		if m := rng.Intn(size + 1); m > 0 && m < size {
			xs := slices.Clone(scored)
			selectBest(xs, m)
			first := slices.Clone(xs[:m])
			slices.SortFunc(first, func(a, b kwScored) int {
				if worse(b, a) {
					return -1
				}
				return 1
			})
			if !slices.Equal(first, want[:m]) {
				t.Fatalf("round %d: selectBest(%d of %d) kept another set", round, m, size)
			}
		}
		c := conds[round%len(conds)]
		k := 1 + rng.Intn(300)
		var wantHits []mnemo.Hit
		for _, x := range want {
			if len(wantHits) == k {
				break
			}
			if e := n.ent(int(x.i)); c.Matches(e) {
				wantHits = append(wantHits, mnemo.Hit{ID: e.ID, Score: x.score})
			}
		}
		got := n.bestPassing(slices.Clone(scored), c, k, new(searchScratch))
		if !slices.Equal(got, wantHits) {
			t.Fatalf("round %d (%d scored, %d wanted): got %d hits, want %d", round, size, k, len(got), len(wantHits))
		}
	}
}
