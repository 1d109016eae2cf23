package semantic

import (
	"container/heap"
	"math"
	"slices"
	"sort"
	"sync"
)

// The null distributions a model keeps, as quantiles 0, 0.001, ..., 1:
// tables 0 to nullTables-1 of the similarity of a random term with 1, 2, 3
// and 4 other random terms (their normalised centroid), table textNull of
// the similarity of the Embed vectors of two random training texts.
const (
	nullTables = 4
	textNull   = nullTables
	nullPoints = 1001
)

// Model holds term vectors learned by Train. It is immutable once built
// and safe for concurrent use.
type Model struct {
	cfg    Config // effective parameters; Dim is the vectors' dimension
	stamp  Stamp
	terms  []string // most frequent first
	counts []uint32 // occurrences of each term
	docs   []uint32 // texts each term occurs in
	total  uint64
	dim    int
	vecs   []float32 // len(terms) × dim, unit rows, or zero for a term without context
	pairs  int       // non-zero PPMI entries at training (not stored)
	null   [nullTables + 1][nullPoints]float32

	index map[string]int32
	sif   []float32 // Embed's weight of each term
	cmn   []float32 // the common direction Embed removes (unit or zero)

	mu    sync.Mutex
	cache map[int32][]Neighbour // nearest terms of a term, longest list computed
}

// Neighbour is a term and its cosine similarity with another term or query.
type Neighbour struct {
	Term string
	Sim  float64
}

// Weighted is an expansion term: Sim is its similarity with the query (on
// the scale of term pairs, see Expand), Weight in (0, 1) how much it
// should count next to an original query term.
type Weighted struct {
	Term   string
	Sim    float64
	Weight float64
}

// sifA is the smoothing of Embed's term weights a/(a+p(w)) (Arora, Liang
// and Ma 2017).
const sifA = 1e-3

// maxExpandShare excludes from expansions the terms found in more than
// this share of the texts: they are too common to point at any record.
const maxExpandShare = 0.1

// maxCached bounds the neighbour lists a model remembers.
const maxCached = 4096

// init builds what is derived from the stored fields.
func (m *Model) init() {
	m.index = make(map[string]int32, len(m.terms))
	for i, t := range m.terms {
		m.index[t] = int32(i)
	}
	m.sif = make([]float32, len(m.terms))
	m.cmn = make([]float32, m.dim)
	for i, n := range m.counts {
		p := float64(n) / float64(max(m.total, 1))
		m.sif[i] = float32(sifA / (sifA + p))
		if m.has(int32(i)) {
			axpy(m.cmn, float32(p), m.vec(int32(i)))
		}
	}
	normalize(m.cmn)
	m.cache = make(map[int32][]Neighbour)
}

func (m *Model) vec(i int32) []float32 { return m.vecs[int(i)*m.dim : (int(i)+1)*m.dim] }

// has reports whether term i has a (non-zero) vector.
func (m *Model) has(i int32) bool {
	for _, x := range m.vec(i) {
		if x != 0 {
			return true
		}
	}
	return false
}

// Dim returns the dimension of the term vectors and of Embed's vectors.
func (m *Model) Dim() int { return m.dim }

// Len returns the number of terms in the vocabulary.
func (m *Model) Len() int { return len(m.terms) }

// Config returns the parameters the model was trained with (Dim as
// reduced for a small vocabulary; Workers, which does not change the
// model, is zero).
func (m *Model) Config() Config { return m.cfg }

// Stamp returns the stamp of the corpus the model was trained on.
func (m *Model) Stamp() Stamp { return m.stamp }

// lookup returns the vocabulary id of a term: as given if the model knows
// it, else the first term Terms cuts from it (so "painting" finds
// "paint"); ok is false when the model has no vector for it.
func (m *Model) lookup(term string) (int32, bool) {
	i, ok := m.index[term]
	if !ok {
		ts := Terms(term)
		if len(ts) == 0 {
			return 0, false
		}
		if i, ok = m.index[ts[0]]; !ok {
			return 0, false
		}
	}
	return i, m.has(i)
}

// Vector returns a copy of term's unit vector (looked up as Neighbours
// does), or nil when the model has none.
func (m *Model) Vector(term string) []float32 {
	i, ok := m.lookup(term)
	if !ok {
		return nil
	}
	return slices.Clone(m.vec(i))
}

// Similarity returns the cosine similarity of two terms, 0 when either is
// unknown.
func (m *Model) Similarity(a, b string) float64 {
	i, ok1 := m.lookup(a)
	j, ok2 := m.lookup(b)
	if !ok1 || !ok2 {
		return 0
	}
	return float64(dot(m.vec(i), m.vec(j)))
}

// NullSim returns the q-quantile (0 <= q <= 1) of the cosine similarity
// of random term pairs of the vocabulary, measured at training: unrelated
// terms exceed NullSim(0.99) one time in a hundred. Callers take their
// threshold from it rather than guessing one.
func (m *Model) NullSim(q float64) float64 { return m.nullSim(0, q) }

// NullTextSim returns the q-quantile (0 <= q <= 1) of the cosine
// similarity of the Embed vectors of random pairs of the training texts
// (pairs where either text has no known term left out), measured at
// training: the calibrated threshold for comparing Embed vectors. Random
// texts of a store are not always unrelated, so high quantiles are
// conservative.
func (m *Model) NullTextSim(q float64) float64 { return m.nullSim(textNull, q) }

// nullSim interpolates quantile q of null table t.
func (m *Model) nullSim(t int, q float64) float64 {
	q = math.Max(0, math.Min(1, q))
	f := q * (nullPoints - 1)
	i := int(f)
	tab := &m.null[t]
	if i >= nullPoints-1 {
		return float64(tab[nullPoints-1])
	}
	return float64(tab[i]) + (f-float64(i))*float64(tab[i+1]-tab[i])
}

// nullRank returns the fraction of null table t below s.
func (m *Model) nullRank(t int, s float64) float64 {
	tab := &m.null[t]
	x := float32(s)
	i := sort.Search(nullPoints, func(i int) bool { return tab[i] >= x })
	switch {
	case i == 0:
		return 0
	case i == nullPoints:
		return 1
	}
	lo, hi := float64(tab[i-1]), float64(tab[i])
	f := 0.0
	if hi > lo {
		f = (s - lo) / (hi - lo)
	}
	return (float64(i-1) + f) / (nullPoints - 1)
}

// onPairScale maps the similarity s of a term with the centroid of n
// terms to the similarity of a term pair that is as rare among unrelated
// terms: centroids sit closer to everything than single terms do.
func (m *Model) onPairScale(s float64, n int) float64 {
	t := min(n, nullTables) - 1
	if t <= 0 {
		return s
	}
	top, pairTop := float64(m.null[t][nullPoints-1]), float64(m.null[0][nullPoints-1])
	if s > top {
		// Beyond anything unrelated: map [top, 1] linearly to [pairTop, 1].
		if top >= 1 {
			return pairTop
		}
		return pairTop + (s-top)*(1-pairTop)/(1-top)
	}
	return m.nullSim(0, m.nullRank(t, s))
}

// Neighbours returns the k terms most similar to term (looked up as given,
// or else as Terms cuts it), most similar first, without term itself; nil
// when the model has no vector for term.
func (m *Model) Neighbours(term string, k int) []Neighbour {
	i, ok := m.lookup(term)
	if !ok || k <= 0 {
		return nil
	}
	ns := m.termNeighbours([]int32{i}, k)[0]
	return slices.Clone(ns[:min(k, len(ns))])
}

// termNeighbours returns at least k nearest terms of each of ids (fewer
// only when the vocabulary is smaller), computing the missing lists in one
// pass over the vocabulary and remembering them.
func (m *Model) termNeighbours(ids []int32, k int) [][]Neighbour {
	out := make([][]Neighbour, len(ids))
	want := min(k, len(m.terms)-1)
	var miss []int32
	m.mu.Lock()
	for x, id := range ids {
		if ns, ok := m.cache[id]; ok && len(ns) >= want {
			out[x] = ns
		} else {
			miss = append(miss, id)
		}
	}
	m.mu.Unlock()
	if len(miss) == 0 {
		return out
	}
	qs := make([][]float32, len(miss))
	for x, id := range miss {
		qs[x] = m.vec(id)
	}
	lists := m.scan(qs, max(k, 32), func(q int, j int32) bool { return j != miss[q] })
	m.mu.Lock()
	if len(m.cache) >= maxCached {
		clear(m.cache)
	}
	for x, id := range miss {
		m.cache[id] = lists[x]
	}
	m.mu.Unlock()
	for x, id := range ids {
		if out[x] == nil {
			out[x] = lists[slices.Index(miss, id)]
		}
	}
	return out
}

// scan returns, for each query vector, the k vocabulary terms of highest
// cosine similarity that keep(query, term) accepts, best first (ties by
// term).
func (m *Model) scan(qs [][]float32, k int, keep func(q int, j int32) bool) [][]Neighbour {
	hs := make([]topK, len(qs))
	for j := range m.terms {
		v := m.vec(int32(j))
		for q, qv := range qs {
			s := dot(qv, v)
			h := &hs[q]
			if len(h.items) == k && s <= h.items[0].sim {
				continue
			}
			if s == 0 && !m.has(int32(j)) || !keep(q, int32(j)) {
				continue
			}
			h.push(k, scored{int32(j), s})
		}
	}
	out := make([][]Neighbour, len(qs))
	for q := range hs {
		items := hs[q].items
		sort.Slice(items, func(a, b int) bool {
			if items[a].sim != items[b].sim {
				return items[a].sim > items[b].sim
			}
			return items[a].id < items[b].id
		})
		ns := make([]Neighbour, len(items))
		for x, it := range items {
			ns[x] = Neighbour{Term: m.terms[it.id], Sim: float64(it.sim)}
		}
		out[q] = ns
	}
	return out
}

// Expand returns up to k terms related to the query as a whole, most
// related first, never one of the query's own terms nor a term found in
// more than a tenth of the texts (too common to point at any record; the
// speakers' names of a conversation, say). A term's similarity
// is the larger of its cosine with the nearest query term and its cosine
// with the centroid of the query terms, the latter mapped to the scale of
// term pairs (a centroid is closer to everything: the model measured by
// how much at training). Terms at or below minSim (or 0) are left out;
// pass a calibrated threshold such as NullSim(0.99). Weight is the
// similarity rescaled so that a positive minSim maps to 0 and 1 stays 1,
// at most 0.99.
//
// queryTerms are terms as Terms or memindex.Terms cut them; a word the
// model does not know as given is cut first. Unknown terms, and terms too
// common to be expanded (in more than a tenth of the texts), are ignored;
// with none left, Expand returns nil.
func (m *Model) Expand(queryTerms []string, k int, minSim float64) []Weighted {
	if k <= 0 {
		return nil
	}
	common := func(j int32) bool { return float64(m.docs[j]) > maxExpandShare*float64(m.stamp.Texts) }
	var ids, own []int32
	for _, t := range queryTerms {
		if i, ok := m.lookup(t); ok && !slices.Contains(own, i) {
			own = append(own, i)
			if !common(i) {
				ids = append(ids, i)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	n := k + len(ids)
	best := make(map[int32]float64)
	note := func(term string, s float64) {
		j := m.index[term]
		if slices.Contains(own, j) || common(j) {
			return
		}
		if old, ok := best[j]; !ok || s > old {
			best[j] = s
		}
	}
	for _, ns := range m.termNeighbours(ids, 2*n) {
		for _, nb := range ns[:min(2*n, len(ns))] {
			note(nb.Term, nb.Sim)
		}
	}
	if len(ids) > 1 {
		c := make([]float32, m.dim)
		for _, id := range ids {
			axpy(c, 1, m.vec(id))
		}
		if normalize(c) {
			ns := m.scan([][]float32{c}, k, func(_ int, j int32) bool { return !slices.Contains(ids, j) && !common(j) })[0]
			for _, nb := range ns {
				note(nb.Term, m.onPairScale(nb.Sim, len(ids)))
			}
		}
	}
	out := make([]Weighted, 0, len(best))
	for j, s := range best {
		if s <= minSim || s <= 0 {
			continue
		}
		w := s
		if minSim > 0 {
			w = (s - minSim) / (1 - minSim)
		}
		out = append(out, Weighted{Term: m.terms[j], Sim: s, Weight: math.Min(w, 0.99)})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Sim != out[b].Sim {
			return out[a].Sim > out[b].Sim
		}
		return out[a].Term < out[b].Term
	})
	return out[:min(k, len(out))]
}

// Embed returns a unit vector of Dim dimensions for text: the average of
// its terms' vectors weighted by a/(a + p(term)) (smooth inverse
// frequency, a = 0.001), without its component along the corpus's
// frequency-weighted mean direction. A text with no known term gives the
// zero vector.
func (m *Model) Embed(text string) []float32 {
	return m.embed(func(add func(i int32)) {
		eachTerm(text, nil, func(t []byte) {
			if i, ok := m.index[string(t)]; ok {
				add(i)
			}
		})
	})
}

// EmbedPieces is Embed of a text given as its pieces, the terms EachTerm
// of package memindex cuts from it in order (memindex.Cut.Pieces): no
// tokenising, for callers that cut the text already.
func (m *Model) EmbedPieces(pieces []string) []float32 {
	return m.embed(func(add func(i int32)) {
		for _, p := range pieces {
			if t, ok := learnable([]byte(p)); ok {
				if i, ok := m.index[string(t)]; ok {
					add(i)
				}
			}
		}
	})
}

// EmbedTerms is Embed of a text given as its distinct index terms
// (folded and stemmed as package memindex cuts them), each counted once:
// no tokenising, for callers that hold the terms already.
func (m *Model) EmbedTerms(terms []string) []float32 {
	return m.embed(func(add func(i int32)) {
		for _, t := range terms {
			if i, ok := m.index[t]; ok {
				add(i)
			}
		}
	})
}

// embed is Embed of the vocabulary ids each passes to add.
func (m *Model) embed(each func(add func(i int32))) []float32 {
	out := make([]float32, m.dim)
	each(func(i int32) { axpy(out, m.sif[i], m.vec(i)) })
	if p := dot(out, m.cmn); p != 0 {
		axpy(out, -p, m.cmn)
	}
	normalize(out)
	return out
}

// scored is a vocabulary id and a similarity.
type scored struct {
	id  int32
	sim float32
}

// topK keeps the k best scored items in a min-heap (worst at the root;
// ties: the larger id is worse).
type topK struct{ items []scored }

func (h *topK) Len() int { return len(h.items) }
func (h *topK) Less(a, b int) bool {
	x, y := h.items[a], h.items[b]
	if x.sim != y.sim {
		return x.sim < y.sim
	}
	return x.id > y.id
}
func (h *topK) Swap(a, b int) { h.items[a], h.items[b] = h.items[b], h.items[a] }
func (h *topK) Push(x any)    { h.items = append(h.items, x.(scored)) }
func (h *topK) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

func (h *topK) push(k int, s scored) {
	if len(h.items) < k {
		heap.Push(h, s)
		return
	}
	h.items[0] = s
	heap.Fix(h, 0)
}
