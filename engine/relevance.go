package engine

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/memindex"
)

// The relevance floor.
//
// A candidate enters recall or a digest only with evidence of relevance to
// the query itself; priors (importance, recency, confidence, frequency)
// order relevant entries but never make an irrelevant one relevant.
// Evidence is one of:
//
//   - keyword: the query's content terms that the record holds carry at
//     least half the weight of an average content term of the query
//     (weights are IDF-like over the records the caller may see, so a
//     term most records hold weighs little). Stopwords, question words,
//     one-character tokens and file-name extensions ("x.go") are not
//     content terms and never count; nor do terms no visible record holds
//     (they tell no record apart);
//   - expansion: the same share, where a query term the record lacks
//     counts as present when the record holds a word the thesauri relate
//     to it, and terms the store's learned model relates to the query as a
//     whole count at their relatedness;
//   - semantic: cosine similarity above what the embedder reaches between
//     unrelated texts (its calibration, see Calibration).
//
// With min_relevance set, the keyword share and the calibrated semantic
// strength (cosine − null)/(1 − null) must reach it instead; 0 turns the
// floor off. Core records are always placed in a digest.

// cleanQuery keeps the content words of q, given its words (spans:
// words.SpanList): not function words (words.IsFunctionWord:
// stopwords, question words, pronouns; English, Russian, Ukrainian), at
// least two characters long, and not a file-name extension (a word right
// after a dot that follows a letter or digit, as "go" in
// "recall_test.go"). It fills a query's text, words, terms, first terms,
// pieces and language.
func cleanQuery(q string, spans [][2]int) *query {
	var ws []string
	seen := map[string]bool{}
	for _, sp := range spans {
		start, end := sp[0], sp[1]
		w := strings.ToLower(q[start:end])
		prev, n := utf8.DecodeLastRuneInString(q[:start])
		prev2, _ := utf8.DecodeLastRuneInString(q[:start-n])
		ext := start > 0 && prev == '.' && start-n > 0 && (unicode.IsLetter(prev2) || unicode.IsDigit(prev2))
		if ext || utf8.RuneCountInString(w) < 2 || words.IsFunctionWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		ws = append(ws, w)
	}
	if len(ws) > memindex.MaxQueryTokens {
		ws = ws[:memindex.MaxQueryTokens]
	}
	c := memindex.CutTokens(ws, memindex.MaxQueryTokens)
	return &query{text: strings.Join(ws, " "), words: ws, terms: c.Terms, first: c.First, pieces: c.Pieces,
		lang: words.Script(q).Lang()}
}

// floor decides, per candidate, whether it shows evidence of relevance.
type floor struct {
	q      *query
	weight map[string]float64           // term -> IDF weight (original terms)
	total  float64                      // Σ weight of the original terms
	exp    map[string]expTerm           // related term -> where it comes from
	docs   float64                      // visible records (N)
	idfSum float64                      // Σ IDF of the query's seen terms: the BM25 of a record holding each once
	unseen []string                     // query terms no visible record holds
	want   map[string]bool              // the query's terms and related terms
	found  map[string]bool              // present's answer, reused
	terms  func(*mnemo.Record) []string // a record's distinct index terms
	stats  *queryStats                  // the query's IDF, as read from the store
	cal    *Calibration
	// learnedNull is the learned text similarity unrelated records reach
	// (0: no learned model).
	learnedNull float64
	min         *float64 // min_relevance, when set
	off         bool
}

// kwFloor is the keyword share a candidate must reach: half that of an
// average content term, or min_relevance when set.
func (f *floor) kwFloor() float64 {
	if f.min != nil {
		return *f.min
	}
	if len(f.weight) == 0 {
		return 1
	}
	return 0.5 / float64(len(f.weight))
}

// semFloor is the calibrated semantic strength a candidate must exceed
// (the default: anything above the null), or reach (min_relevance).
func (f *floor) semFloor() float64 {
	if f.min != nil {
		return *f.min
	}
	return 0
}

// judge returns the explanation of a candidate's relevance and whether it
// passes the floor. sem is the candidate's cosine similarity to the query;
// learned, when set, its similarity in the learned channel (computed only
// when the keyword evidence does not suffice).
//
// bm25 is the record's keyword score for the query's own terms: in a
// conversation it counts the neighbouring turns' terms at half weight, so
// the share it implies (÷ idfSum) stands for the record's own when that
// is larger: a terse reply ("They loved it!") is about what the turn
// before it asked.
//
// holds is false when the record is known to hold none of the query's
// terms and related terms (no keyword search that returned every match
// found it), which spares cutting its text.
func (f *floor) judge(r *mnemo.Record, sem, bm25 float64, holds bool, learned func() float64) (*mnemo.Why, bool) {
	w := &mnemo.Why{}
	if f.cal != nil {
		w.Semantic = round4(sem)
		w.SemanticNull = f.cal.Null
		if f.cal.Null < 1 && sem > f.cal.Null {
			w.SemanticStrength = round4((sem - f.cal.Null) / (1 - f.cal.Null))
		}
	}
	if f.total > 0 || len(f.exp) > 0 {
		var found map[string]bool
		if holds {
			found = f.present(f.terms(r))
		}
		var got, gotExp float64
		covered := map[string]bool{}
		for _, t := range f.q.terms {
			if found[t] {
				got += f.weight[t]
				covered[t] = true
				w.Matched = append(w.Matched, t)
			}
		}
		// A query term the record lacks counts as present when the record
		// holds a word related to it (the thesauri); the store's learned
		// relations, which have no single origin, count at their weight.
		related := 0.0
		for t, x := range f.exp {
			if !found[t] {
				continue
			}
			w.Expanded = append(w.Expanded, x.source+":"+t)
			if x.origin == "" {
				related += x.weight
			} else if !covered[x.origin] {
				covered[x.origin] = true
				gotExp += f.weight[x.origin]
			}
		}
		if related > 0 && len(f.weight) > 0 {
			gotExp += min(related, 1) * f.total / float64(len(f.weight))
		}
		slices.Sort(w.Expanded)
		if f.total > 0 {
			if r.Thread != "" && f.idfSum > 0 {
				got = max(got, min(1, bm25/f.idfSum)*f.total)
			}
			w.KeywordShare = round4(min(1, got/f.total))
			w.ExpansionShare = round4(min(1, (got+gotExp)/f.total))
		}
	}
	kf, sf := f.kwFloor(), f.semFloor()
	keyword := w.KeywordShare > 0 && w.KeywordShare >= kf-1e-9
	if !keyword && !f.off && learned != nil && f.learnedNull > 0 {
		if ls := learned(); ls > f.learnedNull {
			w.Learned, w.LearnedNull = round4(ls), f.learnedNull
			if st := round4((ls - f.learnedNull) / (1 - f.learnedNull)); st > w.SemanticStrength {
				w.SemanticStrength = st
			}
		}
	}
	switch {
	case f.off:
		w.Evidence, w.Floor = "none required", 0
	case keyword:
		w.Evidence, w.Floor = "keyword", round4(kf)
	case w.SemanticStrength > sf:
		w.Evidence, w.Floor = "semantic", round4(sf)
	case w.ExpansionShare > w.KeywordShare && w.ExpansionShare >= kf-1e-9:
		w.Evidence, w.Floor = "expansion", round4(kf)
	default:
		w.Floor = round4(kf)
		return w, false
	}
	w.Relevance = max(w.KeywordShare, w.ExpansionShare, w.SemanticStrength)
	return w, true
}

// present returns which of the query's terms and related terms a record
// holds (its distinct index terms); the map is reused by the next call.
func (f *floor) present(terms []string) map[string]bool {
	if f.want == nil {
		f.want = make(map[string]bool, len(f.q.terms)+len(f.exp))
		for _, t := range f.q.terms {
			f.want[t] = true
		}
		for t := range f.exp {
			f.want[t] = true
		}
		f.found = make(map[string]bool, len(f.want))
	}
	clear(f.found)
	for _, t := range terms {
		if f.want[t] {
			f.found[t] = true
		}
	}
	return f.found
}

// termCache keeps the distinct index terms of recently judged records,
// keyed by namespace, id and last change, so a record's text is cut once,
// not once per query that finds it. It holds at most termCacheSize
// records and is cleared when full.
type termCache struct {
	mu sync.RWMutex
	m  map[termKey][]string
}

type termKey struct {
	ns, id string
	at     int64 // UpdatedAt, in Unix nanoseconds
}

const termCacheSize = 50_000

// of returns the distinct index terms of r's searchable text, cut as the
// keyword index cuts it.
func (c *termCache) of(r *mnemo.Record) []string {
	if c == nil {
		return cutTerms(r.SearchText())
	}
	k := termKey{r.Namespace, r.ID, r.UpdatedAt.UnixNano()}
	c.mu.RLock()
	ts, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return ts
	}
	ts = cutTerms(r.SearchText())
	c.mu.Lock()
	if c.m == nil || len(c.m) >= termCacheSize {
		c.m = make(map[termKey][]string, 1024)
	}
	c.m[k] = ts
	c.mu.Unlock()
	return ts
}

// recordTerms returns the distinct index terms of the records of ids that
// sc sees, by id: from the store's keyword index when it keeps them
// (mnemo.RecordTermer), else cut from the records' text (recs, or read for
// ids when nil) through the term cache.
func (s *Service) recordTerms(ctx context.Context, sc mnemo.Scope, ids []string, recs []*mnemo.Record) (map[string][]string, error) {
	if src, ok := s.store.(mnemo.RecordTermer); ok {
		return src.RecordTerms(ctx, sc, ids)
	}
	if recs == nil {
		var err error
		if recs, err = s.store.GetMany(ctx, sc, ids); err != nil {
			return nil, err
		}
	}
	out := make(map[string][]string, len(recs))
	for _, r := range recs {
		out[r.ID] = s.termCache.of(r)
	}
	return out, nil
}

// cutTerms returns the distinct index terms of text.
func cutTerms(text string) []string {
	var out []string
	seen := make(map[string]struct{}, 16)
	memindex.EachTerm([]byte(text), nil, func(t []byte) {
		t = t[:words.StemBytes(t)]
		if _, ok := seen[string(t)]; !ok {
			w := string(t)
			seen[w] = struct{}{}
			out = append(out, w)
		}
	})
	return out
}

// expTerm is a term related to the query's.
type expTerm struct {
	weight float64 // relatedness in (0, 1)
	origin string  // the query term it relates to ("" for several)
	source string  // thesaurus or learned
}

// addExpansion adds a term related to the query term origin ("" when it
// relates to the query as a whole), of relatedness weight in (0, 1).
func (f *floor) addExpansion(term string, weight float64, origin, source string) {
	if f.exp == nil {
		f.exp = map[string]expTerm{}
	}
	if origin != "" && f.weight[origin] == 0 {
		return // the query term is no evidence itself (unseen or absent)
	}
	if x, ok := f.exp[term]; !ok || weight > x.weight {
		f.exp[term] = expTerm{weight: weight, origin: origin, source: source}
	}
}

// prepareFloor weighs the query's content terms by their IDF over what
// the caller may see and loads the embedder's calibration.
func (s *Service) prepareFloor(ctx context.Context, sc mnemo.Scope, f *floor) error {
	cal, err := s.Calibration(ctx)
	if err != nil {
		return err
	}
	f.cal = cal
	f.weight = make(map[string]float64, len(f.q.terms))
	if len(f.q.terms) == 0 {
		return nil
	}
	idf, unseen, err := s.queryTermIDF(ctx, sc, f.q)
	if err != nil {
		return err
	}
	if idf != nil {
		f.stats = &queryStats{idf, unseen}
	}
	f.docs = docsOf(unseen)
	for _, t := range f.q.terms {
		x, ok := idf[t]
		switch {
		case idf == nil:
			x = 1 // a store without statistics: every term counts alike
		case !ok || x >= unseen:
			// No visible record holds the term: it tells no record apart,
			// so it is left out of the share (unless a related term is
			// found: see addOrigins).
			f.unseen = append(f.unseen, t)
			continue
		default:
			f.idfSum += x
			x = f.termWeight(holders(x, f.docs))
		}
		f.weight[t] = x
		f.total += x
	}
	return nil
}

// The store's IDF, ln(1 + (N − n + ½)/(n + ½)), tells how many of the N
// visible records hold a term (n); the floor weighs a term by
// ln(1 + (N + 1)/(n + ½)), which orders terms as IDF does but stays
// positive for terms most records hold and near-equal in a store of a
// handful of records, where IDF says little.

// docsOf returns N from the IDF of an unseen term.
func docsOf(unseen float64) float64 {
	if unseen <= 0 {
		return 0
	}
	return (math.Exp(unseen)-1)*0.5 - 0.5
}

// holders returns n from a term's IDF and N.
func holders(idf, docs float64) float64 {
	r := math.Exp(idf) - 1
	return (docs + 0.5 - 0.5*r) / (1 + r)
}

func (f *floor) termWeight(n float64) float64 {
	return math.Log(1 + (f.docs+1)/(max(n, 1)+0.5))
}

// commonShare is the share of the visible records above which a related
// term is too common to point at any (the learned model's own rule), in
// a store of at least commonMin records.
const (
	commonShare = 0.1
	commonMin   = 20
)

// keepExpansions drops the related terms no visible record holds or too
// common to point at a record, and counts each unseen query term that a
// kept related term stands for, at the weight of a term one record holds.
func (s *Service) keepExpansions(ctx context.Context, sc mnemo.Scope, f *floor, exps []*expansion) ([]*expansion, error) {
	var all []string
	for _, e := range exps {
		all = append(all, e.terms...)
	}
	if len(all) == 0 {
		return nil, nil
	}
	idf, unseen, err := s.termIDF(ctx, sc, all)
	if err != nil || idf == nil {
		return exps, err
	}
	var out []*expansion
	for _, e := range exps {
		kept := e.terms[:0]
		for _, t := range e.terms {
			x, ok := idf[t]
			if !ok || x >= unseen {
				continue
			}
			if n := holders(x, f.docs); f.docs >= commonMin && n > commonShare*f.docs {
				continue
			}
			kept = append(kept, t)
		}
		if !e.capped {
			kept = bestRelated(e, kept)
		}
		if len(kept) == 0 {
			continue
		}
		e.terms = kept
		e.mean = 0
		for _, t := range kept {
			e.mean += e.weight[t]
		}
		e.mean /= float64(len(kept))
		out = append(out, e)
		for _, t := range kept {
			if o := e.origin[t]; o != "" && f.weight[o] == 0 && slices.Contains(f.unseen, o) {
				f.weight[o] = f.termWeight(1)
				f.total += f.weight[o]
			}
		}
	}
	return out, nil
}

// termIDF returns the IDF of index terms (mnemo.TermIDFSource; else as
// text, queryIDF; nil when the store keeps none).
func (s *Service) termIDF(ctx context.Context, sc mnemo.Scope, terms []string) (map[string]float64, float64, error) {
	if src, ok := s.store.(mnemo.TermIDFSource); ok {
		return src.IDFTerms(ctx, sc, terms)
	}
	return s.queryIDF(ctx, sc, strings.Join(terms, " "))
}

// queryTermIDF returns the IDF of each of q's terms, from the terms when
// the store takes them (mnemo.TermIDFSource), else from q's text, which
// the store cuts into the same terms.
func (s *Service) queryTermIDF(ctx context.Context, sc mnemo.Scope, q *query) (map[string]float64, float64, error) {
	if src, ok := s.store.(mnemo.TermIDFSource); ok {
		if _, ok := s.store.(mnemo.IDFSource); ok {
			return src.IDFTerms(ctx, sc, q.terms)
		}
	}
	return s.queryIDF(ctx, sc, q.text)
}

// queryIDF returns the IDF of each index term of text, and that of an
// unseen term, from the store when it knows them (mnemo.IDFSource; else
// nil, 0).
func (s *Service) queryIDF(ctx context.Context, sc mnemo.Scope, text string) (map[string]float64, float64, error) {
	src, ok := s.store.(mnemo.IDFSource)
	if !ok {
		return nil, 0, nil
	}
	return src.IDF(ctx, sc, text)
}

// bestRelated cuts an uncapped expansion's terms the store holds to the
// maxThesaurusPerWord strongest per query word and maxExpansionsPerGroup
// in all, returned in index order.
func bestRelated(e *expansion, terms []string) []string {
	byWeight := slices.Clone(terms)
	slices.SortStableFunc(byWeight, func(a, b string) int { return cmp.Compare(e.weight[b], e.weight[a]) })
	per := map[string]int{}
	out := terms[:0]
	for _, t := range byWeight {
		if len(out) == maxExpansionsPerGroup {
			break
		}
		if o := e.origin[t]; per[o] < maxThesaurusPerWord {
			per[o]++
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}
