package memindex

import (
	"cmp"
	"container/heap"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/mnemo-dev/mnemo"
)

// Normalize validates a query vector and returns it scaled to unit length,
// or nil when it is all zeros (it matches nothing). An empty vector or one
// holding NaN or Inf is EINVALID.
func Normalize(v []float32) ([]float32, error) {
	if len(v) == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "query vector is empty")
	}
	q := make([]float32, len(v))
	var sum float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, mnemo.Errorf(mnemo.EINVALID, "query vector holds NaN or Inf")
		}
		q[i] = x
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return nil, nil
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range q {
		q[i] *= inv
	}
	return q, nil
}

// Vector returns up to n entries passing c ranked by cosine similarity to
// the unit vector q (see Normalize), best first, ties by descending id,
// scored from the quantised vectors alone: each score is within
// ‖q‖·ve + scoreSlack of the exact cosine (quant.go), so the ranking can
// differ from an exact one only between candidates that close. Stores call
// VectorExact.
func (idx *Namespace[K]) Vector(q []float32, c *Cond, n int) []mnemo.Hit {
	return idx.VectorExact(q, c, n, nil)
}

// VectorExact is Vector whose final candidates are rescored exactly from
// the float32 vectors exact supplies: the answer is the ranking, and the
// scores, of a search of the float32 vectors themselves (for every
// candidate exact supplies; the others keep the score of their codes).
// Entries without a vector of q's dimension are skipped. Large namespaces
// are searched through their sketches when those find enough candidates.
func (idx *Namespace[K]) VectorExact(q []float32, c *Cond, n int, exact Exact) []mnemo.Hit {
	if n <= 0 {
		return nil
	}
	qn := 0.0
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	qn = math.Sqrt(qn)
	if idx.sketching && idx.sketchDim == len(q) {
		if cs := idx.sketchSearch(q, qn, c, n); cs != nil {
			return idx.rescore(q, cs, n, exact)
		}
	}

	// Scan in parallel chunks when the namespace is large.
	workers := 1
	if idx.Len() >= 20000 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	parts := make([]collector, workers)
	var wg sync.WaitGroup
	chunk := (idx.Len() + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, idx.Len())
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &parts[w]
			for i := lo; i < hi; i++ {
				e := idx.ent(i)
				if e.dim != len(q) || !c.Matches(e) || !idx.vecOK(i) {
					continue
				}
				cl.add(idx.candidate(q, qn, i), n)
			}
		}()
	}
	wg.Wait()
	var all []cand
	for _, p := range parts {
		all = append(all, p.keep...)
	}
	return idx.rescore(q, all, n, exact)
}

// cand is a candidate scored from its codes: a the approximate cosine, e
// the bound of its difference from the exact one.
type cand struct {
	i    int
	a, e float64
}

// candidate scores entry position i from its codes.
func (idx *Namespace[K]) candidate(q []float32, qn float64, i int) cand {
	e := idx.ent(i)
	return cand{i, float64(e.vs) * dotCodes(q, idx.vecs[e.off:e.off+e.dim]), qn*float64(e.ve) + scoreSlack}
}

// collector keeps, of the candidates added, those that may be in the top
// n: every candidate whose upper bound reaches the n-th largest lower
// bound seen so far (which only grows).
type collector struct {
	lows lowHeap // the n largest lower bounds
	keep []cand
}

func (cl *collector) add(x cand, n int) {
	lo := x.a - x.e
	if len(cl.lows) < n {
		heap.Push(&cl.lows, lo)
		cl.keep = append(cl.keep, x)
		return
	}
	if x.a+x.e < cl.lows[0] {
		return
	}
	if lo > cl.lows[0] {
		cl.lows[0] = lo
		heap.Fix(&cl.lows, 0)
	}
	cl.keep = append(cl.keep, x)
}

// lowHeap is a min-heap of lower bounds.
type lowHeap []float64

func (h lowHeap) Len() int           { return len(h) }
func (h lowHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h lowHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lowHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *lowHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// rescore returns the top n of the candidates cs: those that may be in it
// (upper bound at least the n-th largest lower bound) are scored exactly
// when exact supplies their vectors, from their codes otherwise, then
// ranked.
func (idx *Namespace[K]) rescore(q []float32, cs []cand, n int, exact Exact) []mnemo.Hit {
	if len(cs) > n {
		lows := make([]float64, len(cs))
		for k, x := range cs {
			lows[k] = x.a - x.e
		}
		slices.Sort(lows)
		cut := lows[len(lows)-n]
		kept := cs[:0]
		for _, x := range cs {
			if x.a+x.e >= cut {
				kept = append(kept, x)
			}
		}
		cs = kept
	}
	all := make([]scored, len(cs))
	for k, x := range cs {
		all[k] = scored{x.i, float32(x.a)}
	}
	if exact != nil && len(cs) > 0 {
		ids := make([]string, len(cs))
		seqs := make([]int64, len(cs))
		for k, x := range cs {
			ids[k], seqs[k] = idx.ent(x.i).ID, idx.ent(x.i).Seq
		}
		vs := exact(ids, seqs)
		for k, x := range cs {
			if k < len(vs) && len(vs[k]) == len(q) && idx.ent(x.i).dim == len(q) {
				all[k].score = cosineRaw(q, vs[k])
			}
		}
	}
	idx.sortHits(all)
	if len(all) > n {
		all = all[:n]
	}
	return idx.hits(all)
}

// sortHits orders hits best first, ties by descending id.
func (idx *Namespace[K]) sortHits(all []scored) {
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return idx.ent(int(all[i].i)).ID > idx.ent(int(all[j].i)).ID
	})
}

// hits returns all as hits.
func (idx *Namespace[K]) hits(all []scored) []mnemo.Hit {
	hits := make([]mnemo.Hit, len(all))
	for i, x := range all {
		hits[i] = mnemo.Hit{ID: idx.ent(x.i).ID, Score: float64(x.score)}
	}
	return hits
}

// dot is the inner product of two equal-length vectors, with four
// accumulators.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

type scored struct {
	i     int
	score float32
}

// sketchMin is the namespace size from which Vector scans sign sketches
// first instead of every vector; they are built when the namespace is
// loaded. From sketchAsyncMin on they are built in the background and used
// once ready.
const (
	sketchMin      = 20000
	sketchAsyncMin = 2000
)

// sketchSearch is Vector for large namespaces: the sign bits of every
// vector (one bit per dimension, a random-hyperplane sketch, since hashed
// and learned embeddings alike spread their coordinates evenly) are
// compared with the query's by Hamming distance, which tracks the angle:
// first by the first of the sketch's rounds for every vector, then by all
// of them for the firstPool closest; the closest sketchPool candidates are
// then scored from their codes (qn is ‖q‖), and those that may be in the
// top n returned for rescoring. Of 384-dimensional vectors it reads 64
// bytes each in two stages (192 in one), against 384 for a scan of their
// int8 codes. It returns nil when the filters leave too few candidates.
func (idx *Namespace[K]) sketchSearch(q []float32, qn float64, c *Cond, n int) []cand {
	words := sketchWords(len(q))
	qs := make([]uint64, words)
	sketch(q, qs, make([]float32, words*64))
	t := &idx.signs
	per, slots := t.per, t.len()
	// The passes run on several cores on a large namespace: each worker
	// takes the next span of slots (or of candidates) until none is left,
	// with its own histogram, list and collector, merged after (the same
	// cuts, and rescore keeps the same candidates of any split). A worker
	// whose core is taken by another process for a while holds up only the
	// span it is on; the others take the rest.
	workers := 1
	if slots >= parallelSlots {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	inParallel := func(n, span int, f func(w, lo, hi int)) {
		if workers == 1 {
			f(0, 0, n)
			return
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					lo := int(next.Add(int64(span))) - span
					if lo >= n {
						return
					}
					f(w, lo, min(lo+span, n))
				}
			}()
		}
		wg.Wait()
	}
	hists := make([][]int, workers)
	for w := range hists {
		hists[w] = make([]int, words*64+1)
	}
	merged := func() []int {
		hist := slices.Clone(hists[0])
		for _, h := range hists[1:] {
			for d, k := range h {
				hist[d] += k
			}
		}
		return hist
	}
	cutAt := func(hist []int, keep int) int {
		seen := 0
		for d, k := range hist {
			if seen += k; seen >= keep {
				return d
			}
		}
		return len(hist)
	}
	pool := sketchPool(n, idx.Len())
	// Pass 1: the Hamming distance of every slot, read sequentially, and a
	// histogram of them: of the first round only when the firstPool
	// closest by it are few enough for reading the rest of each of them
	// apart to cost less than reading every slot's rest in order. Filters
	// are not checked yet: they touch the (much larger) entries.
	first := firstPool(pool)
	twoStage := first*firstShare <= slots
	dp := distPool.Get().(*[]uint16)
	defer distPool.Put(dp)
	if cap(*dp) < slots {
		*dp = hugeScratch[uint16](slots + slots/8)
	}
	dist := (*dp)[:slots] // every element is written below
	inParallel(slots, slotSpan, func(w, lo, hi int) {
		if twoStage {
			hamming(t.first, qs[:per], dist, hists[w], lo, hi)
		} else {
			t.distances(qs, dist, hists[w], lo, hi)
		}
	})
	// Pass 2: the slots within the cut are listed; in two stages, those
	// are the firstPool(pool) closest by the first round, ranked by every
	// round now, and the pool closest of them are the candidates. A span's
	// slots are listed first and their rests read after, so that the reads
	// of several slots are in flight at once.
	if !twoStage {
		first = pool
	}
	cut := cutAt(merged(), first)
	lists := make([][]int32, workers)
	for _, h := range hists {
		clear(h)
	}
	inParallel(slots, slotSpan, func(w, lo, hi int) {
		list := lists[w]
		from := len(list)
		for k := lo; k < hi; k++ {
			if int(dist[k]) <= cut {
				list = append(list, int32(k))
			}
		}
		if twoStage {
			t.restDistances(qs, list[from:], dist, hists[w])
		}
		lists[w] = list
	})
	if twoStage {
		cut = cutAt(merged(), pool)
	}
	// Pass 3: candidates within the cut are scored from their codes; then,
	// by upper bound, best first, they pass the filters until no later one
	// can reach the top n. An entry of a snapshot not read yet is scored
	// without decoding it (slotScore), so that only those the filters
	// must see are decoded: a few hundred of the pool.
	listed := slices.Concat(lists...)
	scored := make([][]slotCand, workers)
	pends := make([][]pending, workers)
	dim := len(q)
	inParallel(len(listed), candSpan, func(w, lo, hi int) {
		// The span's candidates within the cut are found with where their
		// codes are first (the reads of their entries several in flight),
		// then scored, the codes of the one four places on fetched ahead.
		pend := pends[w][:0]
		for _, k := range listed[lo:hi] {
			if int(dist[k]) > cut {
				continue
			}
			i := int(idx.skEnt[k])
			if off, ok := idx.slotOff(int(k), i, dim); ok {
				pend = append(pend, pending{int(k), i, off, true})
				continue
			}
			if !idx.slotCurrent(int(k), i, dim) {
				continue
			}
			pend = append(pend, pending{int(k), i, idx.ent(i).off, false})
		}
		out := scored[w]
		for j, p := range pend {
			if j+4 < len(pend) {
				prefetch(&idx.vecs[pend[j+4].off], dim)
			}
			if p.fast {
				if x, ok := idx.slotScore(q, qn, p.k, p.i); ok {
					out = append(out, slotCand{x, int32(p.k), true})
					continue
				}
				if !idx.slotCurrent(p.k, p.i, dim) {
					continue
				}
			}
			out = append(out, slotCand{idx.candidate(q, qn, p.i), int32(p.k), false})
		}
		scored[w], pends[w] = out, pend
	})
	all := slices.Concat(scored...)
	slices.SortFunc(all, func(x, y slotCand) int {
		if c := cmp.Compare(y.a+y.e, x.a+x.e); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	var cl collector
	admitted := 0
	for _, x := range all {
		if len(cl.lows) >= n && x.a+x.e < cl.lows[0] {
			break // no later candidate reaches the n-th lower bound
		}
		e := idx.ent(x.i)
		if x.fast && (e.sk != int(x.k) || e.dim != len(q) || e.off != int(x.k)*len(q)) {
			// The entry is not where the snapshot's tables put it (no
			// write came between, under the read lock): a damaged
			// snapshot, whose reads are discarded (Corrupt).
			idx.corrupt.Store(true)
			continue
		}
		if !c.Matches(e) {
			continue
		}
		admitted++
		cl.add(x.cand, n)
	}
	if admitted < n && admitted < pool {
		return nil // selective filters: the caller scans exactly
	}
	return cl.keep
}

// pending is a candidate of pass 3 of sketchSearch before it is scored:
// its slot, its entry's position, where its codes are, and whether
// slotScore may score it.
type pending struct {
	k, i, off int
	fast      bool
}

// slotCand is a candidate of pass 3 of sketchSearch: its slot, and
// whether it was scored from the snapshot's layout (slotScore) before
// its entry was read.
type slotCand struct {
	cand
	k    int32
	fast bool
}

// slotScore scores the entry at position i, the owner of sketch slot k,
// from its codes without decoding it, when it comes from a snapshot, is
// not decoded yet (so unchanged since) and the snapshot holds every
// vector in a sketch slot of its own, in slot order: its codes are then
// the k-th of the sketches' dimension, its scale and error norm in the
// snapshot's vector table. Its codes are checked against their checksum
// as vecOK does; the caller checks the entry itself once decoded.
func (idx *Namespace[K]) slotScore(q []float32, qn float64, k, i int) (cand, bool) {
	off, ok := idx.slotOff(k, i, len(q))
	if !ok {
		return cand{}, false
	}
	l, dim := idx.lazy, len(q)
	codes := idx.vecs[off : off+dim]
	if !idx.codesOK(i, codes) {
		return cand{}, false
	}
	vs, ve := l.vmeta[2*i], l.vmeta[2*i+1]
	return cand{i, float64(vs) * dotCodes(q, codes), qn*float64(ve) + scoreSlack}, true
}

// slotCurrent reports whether the entry at position i still owns sketch
// slot k with a vector of dimension dim whose codes pass their checksum:
// a slot whose entry moved or changed since is stale.
func (idx *Namespace[K]) slotCurrent(k, i, dim int) bool {
	e := idx.ent(i)
	return e.sk == k && e.dim == dim && idx.vecOK(i)
}

// slotOff is where the codes of the entry at position i, the owner of
// sketch slot k, are when slotScore may score it from the snapshot's
// layout (the k-th of the sketches' dimension dim).
func (idx *Namespace[K]) slotOff(k, i, dim int) (int, bool) {
	l := idx.lazy
	if l == nil || !l.slotVecs || i >= l.count || l.slot[i].Load() != 0 || dim != idx.sketchDim {
		return 0, false
	}
	off := k * dim
	return off, off+dim <= l.vecLen
}

// distPool holds the sketch distances of a search (2 MB at 1,000,000
// records) for the next one.
var distPool = sync.Pool{New: func() any { return new([]uint16) }}

// parallelSlots is the number of sketches from which a search scans them
// on several cores.
var parallelSlots = 50000 // a variable for tests

// slotSpan is how many slots a worker of sketchSearch takes at a time (2
// MiB of first rounds of 384-dimensional sketches), and candSpan how many
// candidates.
var (
	slotSpan = 1 << 15 // variables for tests
	candSpan = 256
)

// firstPool is how many slots closest to the query by the first round of
// their sketches are ranked by all rounds, to find the pool closest by
// all. At 1,000,000 hashed embeddings of Zipf-distributed text (a scratch
// test of 30 queries), the recall of the exact top 100 was 0.891, 0.949,
// 0.983, 0.995 and 0.998 with 1, 2, 4, 8 and 16 times the pool, against
// 0.998 ranking every slot by all rounds; a search took 10.4 ms that way
// and 7.7 ms with 8 times.
func firstPool(pool int) int { return 8 * pool }

// firstShare is how many times firstPool the slots must number for a search
// to go in two stages: reading a slot's rest apart costs 150–400 ns (a
// cache miss, a page walk), reading every slot's rest in order about 25.
// In the scratch test above, a search of the top 100 among 30,000 vectors
// (firstPool 4,000) took 1.56 ms in two stages and 1.27 in one; 1.12
// against 1.17 among 50,000; 1.68 against 1.96 among 100,000 (firstPool
// 8,000); 4.67 against 4.91 among 300,000.
var firstShare = 12 // a variable for tests

// sketchPool is how many sketch-nearest candidates are rescored for a top
// n: a hundredth of the namespace, at least 5n and at most 25n. The
// Hamming rank of the true nearest neighbours does not grow with the
// namespace the way a hundredth of it does: at 1,000,000 hashed
// embeddings of Zipf-distributed text, the recall of the exact top 100 was
// 0.985 with a pool of 10,000 and 0.982 with 2,500, while a search took
// 23.5 and 15.4 ms (a scratch test of 30 queries; TestSketchSearchRecall
// keeps 0.95 at 25,000).
func sketchPool(n, size int) int { return max(5*n, min(size/100, 25*n)) }

// sketchRounds is how many independent random rotations a sketch holds:
// more bits rank candidates better, so fewer need rescoring.
const sketchRounds = 3

// sketchWords is the number of 64-bit words of the sketch of a
// dim-dimensional vector: dim rounded up to a power of two, in bits, for
// each rotation.
func sketchWords(dim int) int {
	p := 64
	for p < dim {
		p *= 2
	}
	return sketchRounds * p / 64
}

// sketch writes the sign bits of fixed random rotations of v into out:
// random sign flips, then a fast Walsh–Hadamard transform over v padded to
// a power of two, once per round with other signs. Rotating first matters:
// a sparse vector (few non-zero hashed features) has mostly zero
// coordinates, whose signs say nothing, while every rotated coordinate
// mixes all of them (a random-hyperplane sketch, whose Hamming distance
// tracks the angle). buf has at least len(out)*64/sketchRounds elements.
//
// The sign flips come from a table (signFlips), the transform's first two
// levels are done together and the signs are read without a branch each;
// every sum is the same as in sketchReference (same operands, same order),
// so the bits are too.
func sketch(v []float32, out []uint64, buf []float32) {
	per := len(out) / sketchRounds
	buf = buf[:per*64]
	flips := signFlips()
	if len(buf) > len(flips[0]) {
		sketchReference(v, out, buf)
		return
	}
	for r := range sketchRounds {
		fl := flips[r][:len(v)]
		for i, x := range v {
			buf[i] = math.Float32frombits(math.Float32bits(x) ^ fl[i])
		}
		clear(buf[len(v):])
		fwht(buf)
		o := out[r*per : (r+1)*per]
		for w := range o {
			chunk := buf[w*64 : w*64+64]
			var bits uint64
			for k, x := range chunk {
				bits |= uint64(b2u(x < 0)) << k
			}
			o[w] = bits
		}
	}
}

// b2u is 1 for true, 0 for false (compiled without a branch).
func b2u(b bool) uint32 {
	var u uint32
	if b {
		u = 1
	}
	return u
}

// fwht is the in-place fast Walsh–Hadamard transform of buf, whose length
// is a power of two of at least 4: at each level h, every pair (j, j+h)
// of a block of 2h becomes (a+b, a−b). Two levels are done per pass over
// buf (h and 2h, on the four elements j, j+h, j+2h, j+3h), which gives
// every element the same sums as one level at a time.
func fwht(buf []float32) {
	// Levels 1 and 2, within each block of four.
	for i := 0; i+4 <= len(buf); i += 4 {
		q := buf[i : i+4 : i+4]
		a0, a1 := q[0]+q[1], q[0]-q[1]
		b0, b1 := q[2]+q[3], q[2]-q[3]
		q[0], q[1], q[2], q[3] = a0+b0, a1+b1, a0-b0, a1-b1
	}
	h := 4
	for ; 4*h <= len(buf); h *= 4 {
		for i := 0; i < len(buf); i += 4 * h {
			p0 := buf[i : i+h : i+h]
			p1 := buf[i+h : i+2*h : i+2*h]
			p2 := buf[i+2*h : i+3*h : i+3*h]
			p3 := buf[i+3*h : i+4*h : i+4*h]
			for j := range p0 {
				a0, a1 := p0[j]+p1[j], p0[j]-p1[j]
				b0, b1 := p2[j]+p3[j], p2[j]-p3[j]
				p0[j], p1[j], p2[j], p3[j] = a0+b0, a1+b1, a0-b0, a1-b1
			}
		}
	}
	if h < len(buf) {
		lo, hi := buf[:h:h], buf[h:2*h:2*h]
		for j := range lo {
			a, b := lo[j], hi[j]
			lo[j], hi[j] = a+b, a-b
		}
	}
}

// maxFlips is the longest padded vector signFlips covers (longer ones take
// sketchReference).
const maxFlips = 4096

// signFlips holds, per round and coordinate, the sign bit rademacher flips
// (0x80000000 for a flip, else 0), made on first use.
var signFlips = sync.OnceValue(func() *[sketchRounds][maxFlips]uint32 {
	var t [sketchRounds][maxFlips]uint32
	for r := range sketchRounds {
		for i := range maxFlips {
			if rademacher(i + r*1_000_003) {
				t[r][i] = 1 << 31
			}
		}
	}
	return &t
})

// sketchReference is sketch written plainly: the definition the fast one
// is checked against, and what vectors longer than maxFlips take.
func sketchReference(v []float32, out []uint64, buf []float32) {
	per := len(out) / sketchRounds
	buf = buf[:per*64]
	for i := range out {
		out[i] = 0
	}
	for r := range sketchRounds {
		for i := range buf {
			buf[i] = 0
		}
		for i, x := range v {
			if rademacher(i + r*1_000_003) {
				x = -x
			}
			buf[i] = x
		}
		for h := 1; h < len(buf); h *= 2 {
			for i := 0; i < len(buf); i += 2 * h {
				for j := i; j < i+h; j++ {
					a, b := buf[j], buf[j+h]
					buf[j], buf[j+h] = a+b, a-b
				}
			}
		}
		o := out[r*per : (r+1)*per]
		for i, x := range buf {
			if x < 0 {
				o[i/64] |= 1 << (uint(i) % 64)
			}
		}
	}
}

// rademacher is a fixed pseudo-random sign per coordinate.
func rademacher(i int) bool {
	x := uint64(i)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	return x&1 == 1
}
