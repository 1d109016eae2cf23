package semantic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/mnemo-dev/mnemo/internal/stats"
)

// ErrTooSmall is returned by Train when the texts are too few, or their
// vocabulary too small, to learn anything from. Callers fall back to the
// channels that need no training.
var ErrTooSmall = errors.New("semantic: corpus too small to learn from")

// Config holds the training parameters. The zero value of a field selects
// its default (see DefaultConfig).
type Config struct {
	// Dim is the number of dimensions of a term vector. A vocabulary of V
	// terms gets at most V/4.
	Dim int
	// Window is how many terms on each side of a term count as its
	// context, within one text only. The nearest count fully, the
	// farthest 1/Window.
	Window int
	// MinCount is the number of occurrences a term needs to get a vector.
	MinCount int
	// MaxVocab caps the vocabulary at the most frequent terms (at most
	// 65,536).
	MaxVocab int
	// MinTexts and MinVocab are the smallest corpus Train learns from
	// (MinVocab is at least 16).
	MinTexts, MinVocab int
	// Alpha smooths the context distribution of PMI (counts raised to
	// Alpha), so rare contexts do not dominate.
	Alpha float64
	// Power weights the singular values: vectors are U·Σ^Power.
	Power float64
	// Oversample and Iters are the extra columns and power iterations of
	// the randomized SVD.
	Oversample, Iters int
	// Seed makes training deterministic: the same texts, Config and Seed
	// give the same model, whatever Workers is.
	Seed uint64
	// Workers is the number of goroutines (default GOMAXPROCS).
	Workers int
}

// DefaultConfig returns the defaults: 128 dimensions, a window of 10,
// terms seen at least twice, at most 30,000 terms, at least 200 texts and
// 200 terms, α = 0.75, Σ^0.5, 10 extra columns and 2 power iterations,
// seed 1.
func DefaultConfig() Config {
	return Config{Dim: 128, Window: 10, MinCount: 2, MaxVocab: 30000, MinTexts: 200, MinVocab: 200,
		Alpha: 0.75, Power: 0.5, Oversample: 10, Iters: 2, Seed: 1}
}

// maxVocabCap is the largest vocabulary (term ids fit in 16 bits).
const maxVocabCap = 1 << 16

// minVocabFloor is the smallest vocabulary Train accepts whatever
// MinVocab says: calibration draws up to five distinct terms.
const minVocabFloor = 16

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Dim <= 0 {
		c.Dim = d.Dim
	}
	if c.Window <= 0 {
		c.Window = d.Window
	}
	if c.MinCount <= 0 {
		c.MinCount = d.MinCount
	}
	if c.MaxVocab <= 0 {
		c.MaxVocab = d.MaxVocab
	}
	c.MaxVocab = min(c.MaxVocab, maxVocabCap)
	if c.MinTexts <= 0 {
		c.MinTexts = d.MinTexts
	}
	if c.MinVocab <= 0 {
		c.MinVocab = d.MinVocab
	}
	c.MinVocab = max(c.MinVocab, minVocabFloor)
	if c.Alpha <= 0 || c.Alpha > 1 {
		c.Alpha = d.Alpha
	}
	if c.Power <= 0 || c.Power > 1 {
		c.Power = d.Power
	}
	if c.Oversample <= 0 {
		c.Oversample = d.Oversample
	}
	if c.Iters <= 0 {
		c.Iters = d.Iters
	}
	if c.Seed == 0 {
		c.Seed = d.Seed
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// Stamp identifies the corpus a model was trained on: the number of texts
// and an order-independent hash of them (the sum of their 64-bit FNV-1a
// hashes), so a caller can tell whether its texts changed and keep the
// stamp up to date as texts are added.
type Stamp struct {
	Texts int
	Hash  uint64
}

// TextHash is one text's share of a Stamp's Hash.
func TextHash(text string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	return h.Sum64()
}

// CorpusStamp returns the Stamp of texts.
func CorpusStamp(texts []string) Stamp {
	s := Stamp{Texts: len(texts)}
	for _, t := range texts {
		s.Hash += TextHash(t)
	}
	return s
}

// Train learns term vectors from texts (a namespace's record texts): the
// positive pointwise mutual information of terms co-occurring within
// Window terms of one text, with the context distribution smoothed by
// Alpha, reduced to Dim dimensions by a randomized truncated SVD. It also
// measures what similarity unrelated terms and texts reach (NullSim,
// NullTextSim).
//
// The order of texts does not matter. Train returns ErrTooSmall (wrapped,
// with the figures) when there are fewer than MinTexts texts or fewer than
// MinVocab terms with MinCount occurrences, and ctx's error when it is
// cancelled.
func Train(ctx context.Context, texts []string, cfg Config) (*Model, error) {
	cfg = cfg.withDefaults()
	if len(texts) < cfg.MinTexts {
		return nil, fmt.Errorf("%w: %d texts, need %d", ErrTooSmall, len(texts), cfg.MinTexts)
	}
	c := cut(texts, cfg)
	if len(c.terms) < cfg.MinVocab {
		return nil, fmt.Errorf("%w: %d terms seen %d times or more, need %d", ErrTooSmall, len(c.terms), cfg.MinCount, cfg.MinVocab)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := ppmi(c, cfg)
	c.flat = nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dim := min(cfg.Dim, len(c.terms)/4)
	u, sv, err := randomizedSVD(ctx, a, dim, cfg.Oversample, cfg.Iters, cfg.Seed, cfg.Workers)
	if err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, stamp: CorpusStamp(texts), terms: c.terms, counts: c.counts, docs: c.docs, total: c.total, dim: dim}
	m.cfg.Dim = dim
	m.pairs = a.nnz()
	m.cfg.Workers = 0
	m.vecs = make([]float32, len(c.terms)*dim)
	scale := make([]float32, dim)
	for j := range scale {
		if j < len(sv) {
			scale[j] = float32(math.Pow(sv[j], cfg.Power))
		}
	}
	usable := 0
	for i := range c.terms {
		v := m.vecs[i*dim : (i+1)*dim]
		r := u.row(i)
		for j := range v {
			if j < len(r) {
				v[j] = r[j] * scale[j]
			}
		}
		if normalize(v) {
			usable++
		}
	}
	if usable < cfg.MinVocab {
		return nil, fmt.Errorf("%w: %d terms with a context, need %d", ErrTooSmall, usable, cfg.MinVocab)
	}
	m.init()
	m.calibrate(texts)
	return m, nil
}

// normalize scales v to unit length; it reports false (and zeroes v) when
// v is zero or not finite.
func normalize(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		clear(v)
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return true
}

// corpus is the texts cut into vocabulary ids.
type corpus struct {
	terms  []string // the vocabulary, most frequent first
	counts []uint32 // occurrences of each term
	docs   []uint32 // texts each term occurs in
	total  uint64   // occurrences of all vocabulary terms
	flat   []int32  // the texts' vocabulary terms in order, -1 between texts
}

// cut splits texts into terms and keeps the vocabulary: terms with
// MinCount occurrences, at most MaxVocab of them, most frequent first (ties
// in byte order, so the result does not depend on the order of texts).
func cut(texts []string, cfg Config) *corpus {
	ids := make(map[string]int32)
	var names []string
	var counts, docs, last []int
	var flat []int32
	var buf []byte
	for x, t := range texts {
		buf = eachTerm(t, buf, func(term []byte) {
			id, ok := ids[string(term)]
			if !ok {
				id = int32(len(names))
				s := string(term)
				ids[s] = id
				names = append(names, s)
				counts = append(counts, 0)
				docs = append(docs, 0)
				last = append(last, -1)
			}
			counts[id]++
			if last[id] != x {
				last[id] = x
				docs[id]++
			}
			flat = append(flat, id)
		})
		flat = append(flat, -1)
	}
	order := make([]int32, 0, len(names))
	for id, n := range counts {
		if n >= cfg.MinCount {
			order = append(order, int32(id))
		}
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if counts[a] != counts[b] {
			return counts[a] > counts[b]
		}
		return names[a] < names[b]
	})
	if len(order) > cfg.MaxVocab {
		order = order[:cfg.MaxVocab]
	}
	remap := make([]int32, len(names))
	for i := range remap {
		remap[i] = -1
	}
	c := &corpus{terms: make([]string, len(order)), counts: make([]uint32, len(order)), docs: make([]uint32, len(order))}
	for v, id := range order {
		remap[id] = int32(v)
		c.terms[v] = names[id]
		c.counts[v] = uint32(min(counts[id], math.MaxUint32))
		c.docs[v] = uint32(min(docs[id], math.MaxUint32))
		c.total += uint64(counts[id])
	}
	// Out-of-vocabulary terms are removed; a window spans the terms kept.
	out := flat[:0]
	for _, id := range flat {
		switch {
		case id < 0:
			if len(out) > 0 && out[len(out)-1] >= 0 {
				out = append(out, -1)
			}
		case remap[id] >= 0:
			out = append(out, remap[id])
		}
	}
	c.flat = out
	return c
}

// ppmi returns the matrix of positive pointwise mutual information of
// terms and their contexts: max(0, log(C(w,c) / (C(w) · Pα(c)))), where
// C(w,c) counts the times c occurs within Window terms of w in one text
// (k positions apart adds (Window-k+1)/Window; a term is never its own
// context), C(w) = Σc C(w,c), and Pα(c) = C(c)^α / Σ C(·)^α is the
// context distribution smoothed by Alpha. Zeros are not stored.
func ppmi(c *corpus, cfg Config) *csr {
	n := len(c.terms)
	w := cfg.Window
	// Weights are counted in units of 1/Window, as integers, so that sums
	// do not depend on the order of the texts.
	window := func(p int, fn func(j int32, x uint32)) {
		i := c.flat[p]
		for k := 1; k <= w; k++ {
			q := p - k
			if q < 0 || c.flat[q] < 0 {
				break
			}
			if j := c.flat[q]; j != i {
				fn(j, uint32(w-k+1))
			}
		}
		for k := 1; k <= w; k++ {
			q := p + k
			if q >= len(c.flat) || c.flat[q] < 0 {
				break
			}
			if j := c.flat[q]; j != i {
				fn(j, uint32(w-k+1))
			}
		}
	}
	// Where each term occurs in flat, and its row sum C(w) (the counts
	// are symmetric: column sums equal row sums).
	start := make([]int, n+1)
	rowSum := make([]uint64, n)
	for p, id := range c.flat {
		if id >= 0 {
			start[id+1]++
			window(p, func(_ int32, x uint32) { rowSum[id] += uint64(x) })
		}
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	pos := make([]int32, start[n])
	next := slices.Clone(start[:n])
	for p, id := range c.flat {
		if id >= 0 {
			pos[next[id]] = int32(p)
			next[id]++
		}
	}
	var z float64
	for _, s := range rowSum {
		if s > 0 {
			z += math.Pow(float64(s), cfg.Alpha)
		}
	}
	logPa := make([]float64, n)
	for i, s := range rowSum {
		if s > 0 {
			logPa[i] = cfg.Alpha*math.Log(float64(s)) - math.Log(z)
		}
	}
	m := &csr{rows: n, cols: n, idx: make([][]uint16, n), val: make([][]float32, n)}
	parallel(n, cfg.Workers, func(_, lo, hi int) {
		acc := make([]uint32, n)
		var touched []int32
		add := func(j int32, x uint32) {
			if acc[j] == 0 {
				touched = append(touched, j)
			}
			acc[j] += x
		}
		var idx []uint16
		var val []float32
		for i := lo; i < hi; i++ {
			touched = touched[:0]
			for _, p := range pos[start[i]:start[i+1]] {
				window(int(p), add)
			}
			slices.Sort(touched)
			logRow := math.Log(float64(rowSum[i]))
			idx, val = idx[:0], val[:0]
			for _, j := range touched {
				if v := math.Log(float64(acc[j])) - logRow - logPa[j]; v > 0 {
					idx = append(idx, uint16(j))
					val = append(val, float32(v))
				}
				acc[j] = 0
			}
			m.idx[i], m.val[i] = slices.Clone(idx), slices.Clone(val)
		}
	})
	return m
}

// nullSamples is how many random term pairs (or centroids and terms)
// calibrate each null distribution.
const nullSamples = 20000

// calibrate measures the cosine similarity that unrelated terms and texts
// reach: table 0 holds quantiles of the similarity of random term pairs,
// table m-1 (m = 2..nullTables) of a random term with the normalised
// centroid of m other random terms, table textNull of the Embed vectors
// of random pairs of texts.
func (m *Model) calibrate(texts []string) {
	rng := rand.New(rand.NewPCG(m.cfg.Seed, 0xca11b2a7e))
	var live []int32
	for i := range m.terms {
		if m.has(int32(i)) {
			live = append(live, int32(i))
		}
	}
	sims := make([]float64, nullSamples)
	c := make([]float32, m.dim)
	pick := make([]int32, 0, nullTables+1)
	for t := 0; t < nullTables; t++ {
		for s := range sims {
			pick = pick[:0]
			for len(pick) < t+2 {
				x := live[rng.IntN(len(live))]
				if !slices.Contains(pick, x) {
					pick = append(pick, x)
				}
			}
			clear(c)
			for _, x := range pick[1:] {
				axpy(c, 1, m.vec(x))
			}
			normalize(c)
			sims[s] = float64(dot(c, m.vec(pick[0])))
		}
		m.setNull(t, sims)
	}
	// Texts, drawn from their order by hash so that the order they come in
	// does not matter; a bounded number of draws, as some texts have no
	// known term.
	type hashed struct {
		h    uint64
		text string
	}
	byHash := make([]hashed, len(texts))
	for i, t := range texts {
		byHash[i] = hashed{TextHash(t), t}
	}
	slices.SortFunc(byHash, func(a, b hashed) int {
		return cmp.Or(cmp.Compare(a.h, b.h), strings.Compare(a.text, b.text))
	})
	sims = sims[:0]
	for d := 0; d < 4*nullSamples && len(sims) < nullSamples/4; d++ {
		i, j := rng.IntN(len(byHash)), rng.IntN(len(byHash))
		if i == j {
			continue
		}
		a, b := m.Embed(byHash[i].text), m.Embed(byHash[j].text)
		if s := dot(a, b); s != 0 || dot(a, a) != 0 && dot(b, b) != 0 {
			sims = append(sims, float64(s))
		}
	}
	if len(sims) == 0 {
		sims = append(sims, 0)
	}
	m.setNull(textNull, sims)
}

// setNull stores the quantiles of sims (sorted in place) as table t.
func (m *Model) setNull(t int, sims []float64) {
	slices.Sort(sims)
	for q := 0; q < nullPoints; q++ {
		m.null[t][q] = float32(stats.Interpolated(sims, float64(q)/(nullPoints-1)))
	}
}
