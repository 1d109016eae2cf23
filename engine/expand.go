package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/memindex"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// Query expansion.
//
// Terms related to the query's — synonyms and broader terms from the
// thesauri installed on the machine (package thesaurus), terms the store's
// own text relates to them (the learned model) — join the keyword channel
// at their lower weight, never replacing the query's own terms, and count
// towards the relevance floor as "expansion" evidence at that weight.

// expansionWeight scales a related term's relatedness in the keyword
// channel: a synonym counts half as much as a word of the query, as a
// neighbouring turn's word counts half as much as the record's own. The
// relevance floor counts it at its full relatedness.
const expansionWeight = 0.5

// Caps on related terms: per query word from the thesauri (the best ones
// the store holds among the strongest maxThesaurusConsidered: a related
// word no record holds finds nothing and would only crowd out one that
// does, while the weakest ones, far down a word's senses, are noise), and
// per source. Chosen on LoCoMo conversations 1–5 among 8, 12, 16, 24 and
// all 32 considered.
const (
	maxThesaurusConsidered = 16
	maxThesaurusPerWord    = 8
	maxExpansionsPerGroup  = 32
	maxLearnedExpansions   = 8
)

// expansion is the related terms of one source.
type expansion struct {
	source string
	terms  []string           // index terms (memindex.Terms), sorted
	weight map[string]float64 // term -> relatedness in (0, 1)
	origin map[string]string  // term -> the query term it relates to ("" for several)
	mean   float64
	// capped: the group takes at most maxExpansionsPerGroup terms as they
	// come. The thesauri's group takes every related word and is cut to
	// its best ones among those the store holds (keepExpansions).
	capped bool
}

func (e *expansion) add(term, origin string, w float64, own map[string]bool) {
	if own[term] || w <= 0 || e.capped && len(e.weight) >= maxExpansionsPerGroup && e.weight[term] == 0 {
		return
	}
	if e.weight == nil {
		e.weight, e.origin = map[string]float64{}, map[string]string{}
	}
	if w > e.weight[term] {
		e.weight[term], e.origin[term] = w, origin
	}
}

func (e *expansion) done() *expansion {
	if len(e.weight) == 0 {
		return nil
	}
	for t, w := range e.weight {
		e.terms = append(e.terms, t)
		e.mean += w
	}
	slices.Sort(e.terms)
	e.mean /= float64(len(e.terms))
	return e
}

// expand returns the related terms of q by source (thesaurus, learned).
func (s *Service) expand(q *query, lm *learned) []*expansion {
	if q.text == "" {
		return nil
	}
	own := make(map[string]bool, len(q.terms))
	for _, t := range q.terms {
		own[t] = true
	}
	var out []*expansion
	if s.thes != nil {
		e := &expansion{source: "thesaurus"}
		for i, w := range q.words {
			origin := q.first[i]
			for j, r := range s.thes.ExpandIn(w, q.lang) {
				if j == maxThesaurusConsidered {
					break
				}
				word := strings.ToLower(r.Word)
				if words.IsFunctionWord(word) {
					continue
				}
				added := false
				for _, t := range memindex.Terms([]string{word}, 4) {
					if !own[t] && len([]rune(t)) > 2 {
						e.add(t, origin, r.Weight, own)
						added = true
					}
				}
				if added {
					// A Russian or Ukrainian verb's past tense and participle,
					// which the stemmer keeps apart from its infinitive.
					for _, t := range memindex.Terms(thesaurus.Forms(word), 4) {
						if !own[t] && len([]rune(t)) > 2 {
							e.add(t, origin, r.Weight, own)
						}
					}
				}
			}
		}
		if e = e.done(); e != nil {
			out = append(out, e)
		}
	}
	if lm != nil {
		e := &expansion{source: "learned", capped: true}
		for _, w := range lm.m.Expand(q.terms, maxLearnedExpansions, lm.m.NullSim(nullQuantile)) {
			e.add(w.Term, "", w.Weight, own)
		}
		if e = e.done(); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// keywordQuery returns the keyword hits of a query's own terms: a store
// that searches pre-cut index terms (mnemo.TermKeyworder) gets them as
// they are, others the content words as text, which they cut into the
// same terms.
func (s *Service) keywordQuery(ctx context.Context, sc mnemo.Scope, q *query, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if tk, ok := s.store.(mnemo.TermKeyworder); ok {
		return tk.KeywordTerms(ctx, sc, q.terms, f, n)
	}
	return s.store.Keyword(ctx, sc, q.text, f, n)
}

// keywordExpansion returns the keyword hits of an expansion's terms: a
// store that searches pre-cut index terms (mnemo.TermKeyworder: the SQLite
// store) gets them as they are, others as text, which they cut again.
func (s *Service) keywordExpansion(ctx context.Context, sc mnemo.Scope, e *expansion, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if tk, ok := s.store.(mnemo.TermKeyworder); ok {
		return tk.KeywordTerms(ctx, sc, e.terms, f, n)
	}
	return s.store.Keyword(ctx, sc, strings.Join(e.terms, " "), f, n)
}

// Thesaurus returns the thesauri expanding queries (nil: none).
func (s *Service) Thesaurus() *thesaurus.Thesaurus { return s.thes }
