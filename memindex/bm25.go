package memindex

import (
	"github.com/mnemo-dev/mnemo/internal/words"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// In-memory BM25.
//
// Every namespace index holds an inverted index of its records' text: term
// -> postings (entry position, term frequency), sorted by position, plus
// each entry's length in terms, the number of indexed records N and their
// total length. Keyword scores a query with Okapi BM25:
//
//	score(d) = Σ_t idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))
//	idf(t)   = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
//
// with k1 = 1.2, b = 0.75, tf the frequency of t in d, n(t) the number of
// records holding t, |d| the record's length and avgdl the mean length.
// Differences from FTS5's bm25(), which the SQLite store's FTS5 fallback
// uses:
//
//   - the statistics are per namespace (FTS5 counts every namespace);
//   - this idf never goes negative (FTS5 uses ln((N − n + 0.5)/(n + 0.5))
//     and clamps it to 1e-6 for terms in more than half the records);
//   - a query term that appears twice (say "café" and "cafe", which fold to
//     one term) is scored once; FTS5 scores each phrase;
//   - terms are stemmed (package stem: "deployed" and "deployments" index
//     as "deploy"); FTS5's unicode61 tokenizer does not stem.
//
// Soft-deleted, expired and superseded records stay in the statistics, as
// they stay in the FTS5 table; the filter predicate hides them from the
// results. Scores are positive, higher is better.
//
// Clearance: N, the total length and every n(t) count only the records
// the caller may see (access level <= clearance), so that a caller's scores
// are exactly those of a store holding only those records, and nothing of
// a hidden record's words moves them. The index keeps the statistics of
// the records of each access level above 0 beside the totals (levels) and
// subtracts the levels above the clearance; a namespace whose records are
// all at level 0 pays nothing for it.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// BM25FTS5IDF switches to FTS5's idf, max(ln((N − n + 0.5)/(n + 0.5)), 1e-6):
// tests set it to check that the ranking is otherwise FTS5's exactly.
var BM25FTS5IDF = false

// posting is one record holding a term.
type posting struct {
	ent int32 // entry position (Namespace.ent)
	tf  int32
}

// keywordIndex is the inverted index of one namespace.
type keywordIndex struct {
	terms    map[string]int32 // term -> term id
	names    []string         // term id -> term (the map's keys)
	postings [][]posting      // by term id, sorted by ent
	postCap  int64            // the sum of the postings' capacities (MemoryBytes)
	arena    []int32          // the distinct term ids of each entry (Entry.tOff, Entry.tLen)
	// The postings and arena of a snapshot, checked block by block as
	// they are first read (lazycrc.go); nil when not read from one.
	lazyPost, lazyArena *lazySection
	live                int     // arena slots still referenced by an entry
	docs                int     // records indexed (N)
	totalLen            int64   // sum of their lengths
	scratch             []int32 // term ids of the document being indexed
	buf                 []byte
	hint                int // expected records: sizes terms and arena once text arrives
	// acct is, by entry position, the access level an indexed entry is
	// counted at in levels; levels holds the statistics of the indexed
	// records of each access level above 0 (none when empty).
	acct   []int32
	levels map[int32]*levelStats
	// dls is, by entry position, the length (Entry.dl) of each indexed
	// entry, or dlUnknown when it is not set here or too long for it:
	// what BM25 reads of every posting it scores, 2 bytes an entry, where
	// the entries' columns (lazyents.go) are 32 and scattered over 16
	// times the memory (at 1,000,000 records, reading lengths from them
	// was half a keyword query's CPU). Read from a snapshot it points
	// into the file (secDL) until written.
	dls []uint16
}

// dlUnknown marks a length dls does not hold.
const dlUnknown = math.MaxUint16

// setDL records the length of the entry at pos.
func (k *keywordIndex) setDL(pos, dl int) {
	if pos >= len(k.dls) {
		if pos >= cap(k.dls) {
			k.dls = slices.Grow(k.dls, pos+1-len(k.dls)+len(k.dls)/4)
		}
		from := len(k.dls)
		k.dls = k.dls[:pos+1]
		for j := from; j < pos; j++ {
			k.dls[j] = dlUnknown
		}
	}
	k.dls[pos] = uint16(min(dl, dlUnknown))
}

// levelStats are the BM25 statistics of the records of one access level.
type levelStats struct {
	docs     int
	totalLen int64
	df       map[int32]int32 // term id -> records of the level holding it
}

// count adds (sign 1) or removes (sign -1) indexed entry e to or from the
// statistics of access level lv; level 0 is kept as the totals' remainder.
func (k *keywordIndex) count(lv int32, e *Entry, sign int32) {
	if lv == 0 {
		return
	}
	if k.levels == nil {
		k.levels = map[int32]*levelStats{}
	}
	ls := k.levels[lv]
	if ls == nil {
		ls = &levelStats{df: map[int32]int32{}}
		k.levels[lv] = ls
	}
	ls.docs += int(sign)
	ls.totalLen += int64(sign) * int64(e.dl)
	if !k.termsOK(e) {
		return // a damaged snapshot: the namespace is loaded again
	}
	for _, t := range k.arena[e.tOff : e.tOff+e.tLen] {
		if v := ls.df[t] + sign; v > 0 {
			ls.df[t] = v
		} else {
			delete(ls.df, t)
		}
	}
	if ls.docs <= 0 {
		delete(k.levels, lv)
	}
}

// setLevel counts the indexed entry at pos at its access level.
func (k *keywordIndex) setLevel(pos int, e *Entry) {
	for len(k.acct) <= pos {
		k.acct = append(k.acct, 0)
	}
	lv := int32(min(e.AccessLevel, mnemo.MaxAccessLevel))
	if k.acct[pos] == lv {
		return
	}
	k.count(k.acct[pos], e, -1)
	k.acct[pos] = lv
	k.count(lv, e, 1)
}

// visible returns N, the total length and the access levels hidden from
// a caller of clearance c (nil when it sees every record).
func (k *keywordIndex) visible(c int) (docs int, totalLen int64, hidden []*levelStats) {
	docs, totalLen = k.docs, k.totalLen
	for lv, ls := range k.levels {
		if int(lv) > c {
			docs -= ls.docs
			totalLen -= ls.totalLen
			hidden = append(hidden, ls)
		}
	}
	return docs, totalLen, hidden
}

// df returns the number of records holding term id that a caller who
// cannot see the hidden levels sees.
func (k *keywordIndex) df(id int32, hidden []*levelStats) int {
	n := len(k.postings[id])
	for _, ls := range hidden {
		n -= int(ls.df[id])
	}
	return n
}

// Put is Upsert that also keeps the per-access-level keyword statistics
// (see Keyword) when only the access level of a record changed. Stores
// call it instead of Upsert.
func (n *Namespace[K]) Put(key K, e Entry, emb, text []byte) {
	n.Upsert(key, e, emb, text)
	if i, ok := n.posOf(key); ok && n.ent(i).indexed {
		n.kw.setLevel(i, n.ent(i))
	}
}

// CountLevels counts every indexed entry at its access level: a Loader
// indexes text without knowing the levels, so stores call it after the
// Loader's Close.
func (n *Namespace[K]) CountLevels() {
	n.decodeAll()
	for i := range n.Len() {
		if e := n.ent(i); e.indexed && (e.AccessLevel != 0 || (i < len(n.kw.acct) && n.kw.acct[i] != 0)) {
			n.kw.setLevel(i, e)
		}
	}
}

// newKeywordIndex returns an index for about count records. Its tables are
// sized on the first text, so that a store that indexes no text (it ranks
// keywords elsewhere) pays nothing for them.
func newKeywordIndex(count int) keywordIndex {
	return keywordIndex{hint: count}
}

// textHash identifies a text so that a refresh that did not change it
// (a Touch, a re-embedding) leaves the postings alone.
var textSeed = maphash.MakeSeed()

func textHash(b []byte) uint64 { return maphash.Bytes(textSeed, b) }

// index adds the postings of e's text; e must not be indexed yet.
func (k *keywordIndex) index(pos int, e *Entry, text []byte) {
	k.scratch = k.scratch[:0]
	length := 0
	if k.terms == nil && len(text) > 0 {
		k.terms = make(map[string]int32, 1024+k.hint/4)
		k.arena = make([]int32, 0, k.hint*24)
	}
	k.buf = EachTerm(text, k.buf, func(t []byte) {
		t = t[:words.StemBytes(t)]
		k.scratch = append(k.scratch, k.termID(t))
		length++
	})
	k.post(pos, e, length)
}

// indexTerms is index of a text whose stemmed terms are known already:
// terms, each ending at its end in ends (see Prepared).
func (k *keywordIndex) indexTerms(pos int, e *Entry, text, terms []byte, ends []int32) {
	k.scratch = k.scratch[:0]
	if k.terms == nil && len(text) > 0 {
		k.terms = make(map[string]int32, 1024+k.hint/4)
		k.arena = make([]int32, 0, k.hint*24)
	}
	from := int32(0)
	for _, end := range ends {
		k.scratch = append(k.scratch, k.termID(terms[from:end]))
		from = end
	}
	k.post(pos, e, len(ends))
}

// termID returns the id of term t, adding it when new.
func (k *keywordIndex) termID(t []byte) int32 {
	id, ok := k.terms[string(t)]
	if !ok {
		id = int32(len(k.postings))
		name := string(t)
		k.terms[name] = id
		k.names = append(k.names, name)
		k.postings = append(k.postings, nil)
	}
	return id
}

// TermsOf returns the distinct index terms of the entry of record id, in
// no particular order, and whether the namespace holds it at clearance
// clearance (removed entries included: their terms stay until re-indexed).
func (n *Namespace[K]) TermsOf(id string, clearance int) ([]string, bool) {
	i, ok := n.idPos(id)
	if !ok {
		return nil, false
	}
	e := n.ent(i)
	if e.AccessLevel > clearance || !e.indexed {
		return nil, false
	}
	k := &n.kw
	if !k.termsOK(e) {
		return nil, false
	}
	out := make([]string, e.tLen)
	for j, t := range k.arena[e.tOff : e.tOff+e.tLen] {
		out[j] = k.names[t]
	}
	return out, true
}

// post adds the postings of entry e at pos, whose term ids (length of
// them, repeats included) are in k.scratch.
func (k *keywordIndex) post(pos int, e *Entry, length int) {
	if k.arenaInPlace() {
		k.lazyArena.checkAll() // appending copies it
	}
	e.indexed, e.dl, e.tOff, e.tLen = true, int32(length), int32(len(k.arena)), 0
	k.setDL(pos, length)
	if len(k.acct) > pos {
		k.acct[pos] = 0 // counted at its level below
	}
	if length == 0 {
		k.docs++
		k.setLevel(pos, e)
		return
	}
	slices.Sort(k.scratch)
	for i := 0; i < len(k.scratch); {
		j := i + 1
		for j < len(k.scratch) && k.scratch[j] == k.scratch[i] {
			j++
		}
		t := k.scratch[i]
		p := posting{ent: int32(pos), tf: int32(j - i)}
		ps := k.postings[t]
		if !k.postingsOK(t) { // checked before they are copied or shifted
			ps = nil // a damaged snapshot: never copied out of it (the namespace is loaded again)
		}
		was := cap(ps)
		if n := len(ps); n == 0 || ps[n-1].ent < p.ent {
			ps = append(ps, p) // the common case: a new entry at the end
		} else {
			at, _ := slices.BinarySearchFunc(ps, p.ent, func(x posting, ent int32) int { return int(x.ent - ent) })
			ps = slices.Insert(ps, at, p)
		}
		k.postings[t] = ps
		k.postCap += int64(cap(ps) - was)
		k.arena = append(k.arena, t)
		k.live++
		e.tLen++
		i = j
	}
	k.docs++
	k.totalLen += int64(length)
	k.setLevel(pos, e)
}

// unindex removes e's postings.
func (k *keywordIndex) unindex(pos int, e *Entry) {
	if !e.indexed {
		return
	}
	if pos < len(k.acct) {
		k.count(k.acct[pos], e, -1)
		k.acct[pos] = 0
	}
	terms := k.termsOK(e)
	for _, t := range k.arena[e.tOff : e.tOff+e.tLen] {
		if !terms || !k.postingsOK(t) {
			break // a damaged snapshot: the namespace is loaded again
		}
		ps := k.postings[t]
		at, ok := slices.BinarySearchFunc(ps, int32(pos), func(x posting, ent int32) int { return int(x.ent - ent) })
		if ok {
			k.postings[t] = slices.Delete(ps, at, at+1)
		}
	}
	k.docs--
	k.totalLen -= int64(e.dl)
	k.live -= int(e.tLen)
	e.indexed, e.tLen = false, 0
}

// compact drops the arena slots of re-indexed entries once they dominate.
func (idx *Namespace[K]) compact() {
	k := &idx.kw
	if len(k.arena) < 1<<16 || k.live*2 > len(k.arena) {
		return
	}
	if !k.lazyArena.checkAll() {
		return // a damaged snapshot: the namespace is loaded again
	}
	arena := make([]int32, 0, k.live+k.live/4)
	idx.decodeAll()
	for i := range idx.Len() {
		e := idx.ent(i)
		off := len(arena)
		arena = append(arena, k.arena[e.tOff:e.tOff+e.tLen]...)
		e.tOff = int32(off)
	}
	k.arena = arena
}

// searchScratch is the per-query accumulator, pooled.
type searchScratch struct {
	scores  []float64
	touched []int32
	tf      []float32  // a term's frequency per entry, zero between terms (whole numbers and halves: exact)
	term    []int32    // the entries with a frequency for the current term
	best    []kwScored // the scored entries, best first
}

var scratchPool = sync.Pool{New: func() any { return new(searchScratch) }}

// Keyword returns up to n entries passing c ranked by BM25 for the query
// terms (see Terms), best first. The most common terms are dropped first
// until the document frequencies of the remaining ones sum to at most
// budget (the rarest term is always kept): they cost the most to score and
// contribute the least.
func (idx *Namespace[K]) Keyword(terms []string, budget int64, c *Cond, n int) []mnemo.Hit {
	k := &idx.kw
	docs, totalLen, hidden := k.visible(c.clearance)
	if docs <= 0 {
		return nil
	}
	qs := k.queryTerms(terms, hidden, budget)
	if len(qs) == 0 {
		return nil
	}
	sc := scratchPool.Get().(*searchScratch)
	defer scratchPool.Put(sc)
	N := float64(docs)
	avg := float64(totalLen) / N
	if avg <= 0 {
		avg = 1
	}
	if len(qs) == 1 && (len(idx.thr) == 0 || BM25FTS5IDF) {
		// One term, and no turn lends its neighbours a term: each
		// record's score is its own posting's.
		return idx.keywordOne(qs[0], N, avg, c, n, sc)
	}
	return idx.keywordAccumulate(qs, N, avg, c, n, sc)
}

// keywordAccumulate is Keyword's scoring of several terms, or of terms
// that turns lend their neighbours (half of each they hold, thread.go):
// the terms are scored one after another into accumulators by entry.
func (idx *Namespace[K]) keywordAccumulate(qs []kwTerm, N, avg float64, c *Cond, n int, sc *searchScratch) []mnemo.Hit {
	k := &idx.kw
	if len(sc.scores) < idx.Len() {
		sc.scores = hugeScratch[float64](idx.Len() + idx.Len()/4)
	}
	scores := sc.scores
	touched := sc.touched[:0]
	if len(sc.tf) < idx.Len() {
		sc.tf = hugeScratch[float32](idx.Len() + idx.Len()/4)
	}
	tfs := sc.tf
	for _, q := range qs {
		idf := bm25IDF(N, float64(q.df))
		// The term's frequency in each record, plus half for each
		// neighbouring turn that holds it (see thread.go).
		term := sc.term[:0]
		if !k.postingsOK(q.id) {
			continue // a damaged snapshot: the store reads again from the rows
		}
		for _, p := range k.postings[q.id] {
			if tfs[p.ent] == 0 {
				term = append(term, p.ent)
			}
			tfs[p.ent] += float32(p.tf)
		}
		if len(idx.thr) > 0 && !BM25FTS5IDF {
			for _, p := range k.postings[q.id] {
				idx.thr.lends(idx.cols, idx.ent, p.ent, c.at, func(x int32) {
					if tfs[x] == 0 {
						term = append(term, x)
					}
					tfs[x] += neighbourWeight
				})
			}
		}
		for _, i := range term {
			tf := float64(tfs[i])
			tfs[i] = 0
			norm := bm25K1 * (1 - bm25B + bm25B*float64(idx.dlAt(int(i)))/avg)
			if scores[i] == 0 {
				touched = append(touched, i)
			}
			scores[i] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
		sc.term = term
	}
	best := sc.best[:0]
	for _, i := range touched {
		best = append(best, kwScored{i, scores[i]})
		scores[i] = 0
	}
	sc.touched = touched
	return idx.bestPassing(best, c, n, sc)
}

// bm25IDF is the inverse document frequency of a term held by df of N
// records.
func bm25IDF(N, df float64) float64 {
	if BM25FTS5IDF {
		return math.Max(math.Log((N-df+0.5)/(df+0.5)), 1e-6)
	}
	return math.Log(1 + (N-df+0.5)/(df+0.5))
}

// kwTerm is a query term of Keyword: its id and document frequency.
type kwTerm struct {
	id int32
	df int
}

// queryTerms returns the terms Keyword scores: those of terms the index
// holds in a record the caller sees (hidden: the levels it does not),
// rarest first, the most common dropped until the postings to visit fit
// the budget (the rarest is always kept).
func (k *keywordIndex) queryTerms(terms []string, hidden []*levelStats, budget int64) []kwTerm {
	var qs []kwTerm
	for _, w := range terms {
		if id, ok := k.terms[w]; ok {
			if df := k.df(id, hidden); df > 0 {
				qs = append(qs, kwTerm{id, df})
			}
		}
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].df < qs[j].df })
	total := 0
	for i, q := range qs {
		if i > 0 && int64(total+q.df) > budget {
			return qs[:i]
		}
		total += q.df
	}
	return qs
}

// keywordOne is Keyword's scoring for one term in a namespace whose turns
// lend no terms to their neighbours: each entry's score comes from its
// posting alone, computed as keywordAccumulate computes it (the same
// scores to the bit), without its accumulators. The one term a query
// keeps past the prune budget is the common case: an expansion of common
// words keeps its rarest, with tens of thousands of postings at a million
// records, whose reads of three accumulators at random places cost more
// than the scoring.
func (idx *Namespace[K]) keywordOne(q kwTerm, N, avg float64, c *Cond, n int, sc *searchScratch) []mnemo.Hit {
	k := &idx.kw
	if !k.postingsOK(q.id) {
		return nil // a damaged snapshot: the store reads again from the rows
	}
	ps := k.postings[q.id]
	best := sc.best[:0]
	if cap(best) < len(ps) {
		best = make([]kwScored, 0, len(ps))
	}
	idf := bm25IDF(N, float64(q.df))
	for _, p := range ps {
		tf := float64(float32(p.tf)) // as the accumulators hold it
		norm := bm25K1 * (1 - bm25B + bm25B*float64(idx.dlAt(int(p.ent)))/avg)
		best = append(best, kwScored{p.ent, idf * tf * (bm25K1 + 1) / (tf + norm)})
	}
	return idx.bestPassing(best, c, n, sc)
}

// bestPassing returns the best n of the scored entries that c passes, best
// first. The filters are checked in the order of the scores, so that only
// the entries that may be returned, and those filtered out before them,
// are read: a snapshot's entries are decoded as they are first read
// (lazyents.go), and the postings of a few common terms name thousands.
// The best are taken a few at a time: the best m of those left are
// selected (in time linear in how many are left) and sorted, twice as
// many at each round, so that tens of thousands scored cost about two
// passes over them rather than a heap of all of them.
func (idx *Namespace[K]) bestPassing(best []kwScored, c *Cond, n int, sc *searchScratch) []mnemo.Hit {
	sc.best = best
	hits := make([]mnemo.Hit, 0, min(n, len(best)))
	m := max(2*n, 64)
	for rest := best; len(rest) > 0 && len(hits) < n; m *= 2 {
		top := rest
		if m < len(rest) {
			selectBest(rest, m)
			top = rest[:m]
		}
		slices.SortFunc(top, func(a, b kwScored) int {
			if worse(b, a) {
				return -1
			}
			return 1 // never equal: positions differ
		})
		for _, x := range top {
			if len(hits) == n {
				break
			}
			if e := idx.ent(int(x.i)); c.Matches(e) {
				hits = append(hits, mnemo.Hit{ID: e.ID, Score: x.score})
			}
		}
		rest = rest[len(top):]
	}
	return hits
}

// selectBest reorders xs so that its first m are the best m (by worse),
// in any order: a quickselect whose pivots are drawn at random, so that
// no order of the scores makes it quadratic. While the best m are a small
// share of what is left, the pivot is the one of a random sample that
// about 2m of them would beat: the pass then leaves few to go on with,
// and most of its comparisons go the same way.
func selectBest(xs []kwScored, m int) {
	lo, hi := 0, len(xs) // the m-th best is within xs[lo:hi]
	var sample [selectSample]kwScored
	for hi-lo > 1 {
		p := xs[lo+rand.IntN(hi-lo)]
		if k := m - lo; hi-lo > 16*k {
			for j := range sample {
				sample[j] = xs[lo+rand.IntN(hi-lo)]
			}
			r := min(selectSample*2*k/(hi-lo)+1, selectSample-1)
			p = selectRank(sample[:], r)
		}
		// Three-way: [lo, a) better than p, [a, b) p, [b, hi) worse.
		a, b := lo, lo
		for j := lo; j < hi; j++ {
			switch x := xs[j]; {
			case worse(p, x): // x better
				xs[j] = xs[b]
				xs[b] = xs[a]
				xs[a] = x
				a++
				b++
			case !worse(x, p): // x is p
				xs[j], xs[b] = xs[b], xs[j]
				b++
			}
		}
		switch {
		case m <= a:
			hi = a
		case m <= b:
			return
		default:
			lo = b
		}
	}
}

// selectSample is how many scored entries selectBest draws to choose a
// pivot.
const selectSample = 64

// selectRank returns the r-th best (from 0) of xs, reordering it.
func selectRank(xs []kwScored, r int) kwScored {
	slices.SortFunc(xs, func(a, b kwScored) int {
		if worse(b, a) {
			return -1
		}
		if worse(a, b) {
			return 1
		}
		return 0 // drawn twice
	})
	return xs[r]
}

type kwScored struct {
	i     int32
	score float64
}

// worse orders keyword hits: lower score, then later position (FTS5 lists
// ties in rowid order).
func worse(a, b kwScored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.i > b.i
}

// IDF returns the inverse document frequency of each term of terms,
// ln(1 + (N − n + 0.5)/(n + 0.5)) over the records a caller of the
// clearance sees, as in Keyword, and the IDF a term held by no record would
// have.
func (n *Namespace[K]) IDF(terms []string, clearance int) (map[string]float64, float64) {
	k := &n.kw
	docs, _, hidden := k.visible(clearance)
	N := float64(max(docs, 0))
	out := make(map[string]float64, len(terms))
	for _, t := range terms {
		df := 0.0
		if id, ok := k.terms[t]; ok {
			df = float64(k.df(id, hidden))
		}
		out[t] = math.Log(1 + (N-df+0.5)/(df+0.5))
	}
	return out, math.Log(1 + (N+0.5)/0.5)
}
