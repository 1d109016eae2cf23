package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// Keyword returns up to n live ids of the namespace ranked by BM25 for a
// free-text query. The query is never parsed as query syntax: its word
// tokens (queryTokens) are OR-ed. It scores in memory (see bm25.go); with
// Options.FTSKeyword it asks FTS5 instead.
func (s *Store) Keyword(ctx context.Context, sc mnemo.Scope, query string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if n <= 0 {
		return nil, nil
	}
	tokens := queryTokens(query)
	if len(tokens) == 0 {
		return nil, nil
	}
	if s.ftsKeyword {
		return s.keywordFTS(ctx, sc, tokens, f, n)
	}
	terms := keywordTerms(tokens)
	if len(terms) == 0 {
		return nil, nil
	}
	idx, err := s.acquire(ctx, sc.Namespace)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	defer s.idx.mu.RUnlock()
	return idx.keyword(terms, compile(sc, f, s.now()), n), nil
}

// keywordFTS is Keyword on the FTS5 table: the fallback, and the reference
// the in-memory BM25 is tested against.
func (s *Store) keywordFTS(ctx context.Context, sc mnemo.Scope, tokens []string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	tokens, err := s.prune(ctx, tokens)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	expr := orExpr(tokens)
	idx, err := s.acquire(ctx, sc.Namespace)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	defer s.idx.mu.RUnlock()
	c := compile(sc, f, s.now())
	// Ask FTS5 for a bounded top list first (it keeps a small heap instead
	// of sorting every match); only when the filters reject too many of
	// those does the query run again unbounded.
	limit := 4*n + 64
	hits, full, err := s.keywordRows(ctx, idx, c, expr, n, limit)
	if err == nil && len(hits) < n && !full {
		hits, _, err = s.keywordRows(ctx, idx, c, expr, n, -1)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	return hits, nil
}

// keywordRows runs the MATCH with an optional row limit (-1 for none) and
// keeps up to n rows that pass the filters. full reports whether the match
// list was read to its end.
func (s *Store) keywordRows(ctx context.Context, idx *nsIndex, c *cond, expr string, n, limit int) (hits []mnemo.Hit, full bool, err error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT rowid, rank FROM records_fts WHERE records_fts MATCH ? ORDER BY rank LIMIT ?`, expr, limit)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	read := 0
	for rows.Next() {
		read++
		var rowid int64
		var rank float64
		if err := rows.Scan(&rowid, &rank); err != nil {
			return nil, false, err
		}
		i, ok := idx.pos[rowid]
		if !ok || !c.matches(&idx.ents[i]) {
			continue
		}
		hits = append(hits, mnemo.Hit{ID: idx.ents[i].id, Score: -rank})
		if len(hits) == n {
			return hits, false, rows.Err()
		}
	}
	return hits, limit < 0 || read < limit, rows.Err()
}

// FloorQuery is the bare FTS5 baseline for benchmarks: the sanitised MATCH
// ranked by BM25, limited to the namespace, with no other filter.
func (s *Store) FloorQuery(ctx context.Context, namespace, query string, n int) ([]mnemo.Hit, error) {
	expr := matchExpr(query)
	if expr == "" || n <= 0 {
		return nil, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT r.id, bm25(records_fts) FROM records_fts
		JOIN records r ON r.rowid = records_fts.rowid
		WHERE records_fts MATCH ? AND r.namespace = ? ORDER BY bm25(records_fts) LIMIT ?`, expr, namespace, n)
	if err != nil {
		return nil, fmt.Errorf("sqlite: floor query: %w", err)
	}
	defer rows.Close()
	var hits []mnemo.Hit
	for rows.Next() {
		var h mnemo.Hit
		if err := rows.Scan(&h.ID, &h.Score); err != nil {
			return nil, fmt.Errorf("sqlite: floor query: %w", err)
		}
		h.Score = -h.Score
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: floor query: %w", err)
	}
	return hits, nil
}

// maxQueryTokens caps the terms of a keyword query.
const maxQueryTokens = 32

// maxTokenRunes drops absurdly long "words" (no real word is that long).
const maxTokenRunes = 64

// stopwords are dropped from keyword queries unless nothing else remains.
var stopwords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`
		a an and are as at be but by did do does for from had has have how i if in into is it its
		me my no not of on or our so than that the their them then there these they this to was
		we were what when where which who why will with you your
		а без би бы в во вот все всё да для до же за и из или к как ли мне мы на над не нет ни но
		о об от по при с со так то ты у что чтобы это я его её ее он она они
		і й та але або чи що як це ми ви від із з ще якщо який яка які де коли`) {
		m[w] = true
	}
	return m
}()

// matchExpr turns any text into a safe FTS5 MATCH expression: the word
// tokens of queryTokens, each double-quoted, OR-ed together. It returns ""
// when the text holds no word.
func matchExpr(q string) string { return orExpr(queryTokens(q)) }

// orExpr quotes each token and joins them with OR.
func orExpr(tokens []string) string {
	q := make([]string, len(tokens))
	for i, w := range tokens {
		q[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(q, " OR ")
}

// pruneBudget bounds the postings a keyword query visits: the most common
// terms are dropped until the document frequencies of the remaining ones
// sum to at most this (the rarest term is always kept).
var pruneBudget int64 = 5000

// prune drops the most common tokens of a query, which cost the most to
// score and contribute the least to BM25 (their IDF is the lowest). Terms
// the index does not hold as such (diacritics are folded there) count as
// rare. It serves the FTS5 path; the in-memory path prunes with the
// document frequencies it holds (nsIndex.keyword).
func (s *Store) prune(ctx context.Context, tokens []string) ([]string, error) {
	if len(tokens) < 2 {
		return tokens, nil
	}
	type tf struct {
		w  string
		df int64
	}
	tfs := make([]tf, len(tokens))
	total := int64(0)
	for i, w := range tokens {
		var df int64
		err := s.rdb.QueryRowContext(ctx, `SELECT doc FROM records_fts_vocab WHERE term = ?`, w).Scan(&df)
		if err != nil && err != sql.ErrNoRows {
			return nil, err
		}
		tfs[i] = tf{w, df}
		total += df
	}
	if total <= pruneBudget {
		return tokens, nil
	}
	sort.SliceStable(tfs, func(i, j int) bool { return tfs[i].df < tfs[j].df })
	kept := []string{tfs[0].w}
	sum := tfs[0].df
	for _, t := range tfs[1:] {
		if sum+t.df > pruneBudget {
			break
		}
		sum += t.df
		kept = append(kept, t.w)
	}
	return kept, nil
}

// queryTokens extracts the word tokens of any text (runs of Unicode
// letters, digits and marks), lower-cased and de-duplicated. Stopwords are
// dropped unless only stopwords remain; at most maxQueryTokens are kept.
func queryTokens(q string) []string {
	var words, stops []string
	seen := make(map[string]bool)
	var b strings.Builder
	runes := 0
	flush := func() {
		if b.Len() == 0 {
			return
		}
		w := strings.ToLower(b.String())
		b.Reset()
		long := runes > maxTokenRunes
		runes = 0
		if long || seen[w] {
			return
		}
		seen[w] = true
		if stopwords[w] {
			if len(stops) < maxQueryTokens {
				stops = append(stops, w)
			}
			return
		}
		words = append(words, w)
	}
	for i := 0; i < len(q) && len(words) < maxQueryTokens; {
		r, size := utf8.DecodeRuneInString(q[i:])
		i += size
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) ||
			(b.Len() > 0 && unicode.IsMark(r))) {
			if runes <= maxTokenRunes {
				b.WriteRune(r)
			}
			runes++
			continue
		}
		flush()
	}
	if len(words) < maxQueryTokens {
		flush()
	}
	if len(words) == 0 {
		words = stops
	}
	return words
}

// Vector returns up to n live ids of the namespace ranked by cosine
// similarity to v. Records without a vector of v's dimension are skipped.
func (s *Store) Vector(ctx context.Context, sc mnemo.Scope, v []float32, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if n <= 0 {
		return nil, nil
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("sqlite: vector: %w", mnemo.Errorf(mnemo.EINVALID, "query vector is empty"))
	}
	q := make([]float32, len(v))
	var sum float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("sqlite: vector: %w", mnemo.Errorf(mnemo.EINVALID, "query vector holds NaN or Inf"))
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
	idx, err := s.acquire(ctx, sc.Namespace)
	if err != nil {
		return nil, fmt.Errorf("sqlite: vector: %w", err)
	}
	defer s.idx.mu.RUnlock()
	c := compile(sc, f, s.now())
	if idx.sketching && idx.sketchDim == len(q) {
		if hits := idx.sketchSearch(q, c, n); hits != nil {
			return hits, nil
		}
	}

	// Scan in parallel chunks when the namespace is large.
	workers := 1
	if len(idx.ents) >= 20000 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	parts := make([]hitHeap, workers)
	var wg sync.WaitGroup
	chunk := (len(idx.ents) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(idx.ents))
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := make(hitHeap, 0, n+1)
			for i := lo; i < hi; i++ {
				e := &idx.ents[i]
				if e.dim != len(q) || !c.matches(e) {
					continue
				}
				score := dot(q, idx.vecs[e.off:e.off+e.dim])
				if len(h) < n {
					heap.Push(&h, scored{i, score})
				} else if score > h[0].score {
					h[0] = scored{i, score}
					heap.Fix(&h, 0)
				}
			}
			parts[w] = h
		}()
	}
	wg.Wait()
	var all []scored
	for _, p := range parts {
		all = append(all, p...)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return idx.ents[all[i].i].id > idx.ents[all[j].i].id
	})
	if len(all) > n {
		all = all[:n]
	}
	hits := make([]mnemo.Hit, len(all))
	for i, x := range all {
		hits[i] = mnemo.Hit{ID: idx.ents[x.i].id, Score: float64(x.score)}
	}
	return hits, nil
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

// hitHeap is a min-heap on score: its root is the worst kept hit.
type hitHeap []scored

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
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
// compared with the query's by Hamming distance, which tracks the angle;
// the closest sketchPool candidates are then rescored exactly with the
// stored float vectors. It reads 1/32 of the memory of a full scan.
func (idx *nsIndex) sketchSearch(q []float32, c *cond, n int) []mnemo.Hit {
	words := sketchWords(len(q))
	qs := make([]uint64, words)
	sketch(q, qs, make([]float32, words*64))
	// Pass 1: the Hamming distance of every sketch, read sequentially, and
	// a histogram of them. Filters are not checked yet: they touch the
	// (much larger) entries.
	slots := len(idx.signs) / words
	dist := make([]uint16, slots)
	hist := make([]int, words*64+1)
	for k := range slots {
		w := idx.signs[k*words : (k+1)*words]
		d := 0
		for j, x := range w {
			d += bits.OnesCount64(x ^ qs[j])
		}
		dist[k] = uint16(d)
		hist[d]++
	}
	pool := sketchPool(n, len(idx.ents))
	cut, seen := words*64, 0
	for d, k := range hist {
		seen += k
		if seen >= pool {
			cut = d
			break
		}
	}
	// Pass 2: entries whose sketch is within the cut pass the filters and
	// are rescored exactly.
	h := make(hitHeap, 0, n+1)
	admitted := 0
	for k, d := range dist {
		if int(d) > cut {
			continue
		}
		i := int(idx.skEnt[k])
		e := &idx.ents[i]
		if e.sk != k*words || e.dim != len(q) || !c.matches(e) { // a stale slot, or filtered out
			continue
		}
		admitted++
		score := dot(q, idx.vecs[e.off:e.off+e.dim])
		if len(h) < n {
			heap.Push(&h, scored{i, score})
		} else if score > h[0].score {
			h[0] = scored{i, score}
			heap.Fix(&h, 0)
		}
	}
	if admitted < n && admitted < pool {
		return nil // selective filters: the caller scans exactly
	}
	all := []scored(h)
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return idx.ents[all[i].i].id > idx.ents[all[j].i].id
	})
	hits := make([]mnemo.Hit, len(all))
	for i, x := range all {
		hits[i] = mnemo.Hit{ID: idx.ents[x.i].id, Score: float64(x.score)}
	}
	return hits
}

// sketchPool is how many sketch-nearest candidates are rescored for a top n.
func sketchPool(n, size int) int { return max(8*n, size/64) }

// sketchRounds is how many independent random rotations a sketch holds:
// more bits rank candidates better, so fewer need rescoring.
const sketchRounds = 2

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
func sketch(v []float32, out []uint64, buf []float32) {
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
