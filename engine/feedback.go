package engine

import (
	"context"
	"math"
	"slices"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
)

// Pseudo-relevance feedback (the relevance model of Lavrenko and Croft,
// RM3, in its simplest form): the words that the best keyword matches of
// a query share, and that the query lacks, are searched for as well, at a
// lower weight. A question and the turn that answers it often share one
// word; the turns around the answer share others ("what did Caroline
// research?" finds "researching adoption agencies", whose "adoption" and
// "agencies" then find the later turns about the adoption). The feedback
// words only order candidates: they are no evidence of relevance to the
// query (the floor never counts them), so they cannot let a record in.
const (
	feedbackDocs  = 5 // best keyword matches read
	feedbackTerms = 8 // words added at most
	// feedbackMass is the least summed weight of the matches holding a
	// word (each match weighs its BM25 ÷ the best's): a word of the best
	// match alone, or of several weaker ones.
	feedbackMass = 1.0
)

// feedbackExpansion returns the feedback words of a query from its keyword
// hits (best first), each weighted by its mass × IDF relative to the best
// word's, or nil. Words that more than a tenth of the records hold, the
// query's own words, question words and words under three letters are
// left out.
func (s *Service) feedbackExpansion(ctx context.Context, sc mnemo.Scope, q *query, fl *floor, hits []mnemo.Hit) (*expansion, error) {
	if len(hits) == 0 || hits[0].Score <= 0 || fl.docs <= 0 {
		return nil, nil
	}
	top := hits[:min(feedbackDocs, len(hits))]
	ids := make([]string, len(top))
	weight := make(map[string]float64, len(top))
	for i, h := range top {
		ids[i] = h.ID
		weight[h.ID] = h.Score / hits[0].Score
	}
	termsOf, err := s.recordTerms(ctx, sc, ids, nil)
	if err != nil {
		return nil, err
	}
	own := make(map[string]bool, len(q.terms))
	for _, t := range q.terms {
		own[t] = true
	}
	mass := map[string]float64{}
	for _, id := range ids {
		for _, t := range termsOf[id] {
			if !own[t] && !words.IsFunctionWord(t) && len([]rune(t)) >= 3 {
				mass[t] += weight[id]
			}
		}
	}
	terms := make([]string, 0, len(mass))
	for t, m := range mass {
		if m >= feedbackMass {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return nil, nil
	}
	slices.Sort(terms)
	idf, _, err := s.termIDF(ctx, sc, terms)
	if err != nil || idf == nil {
		return nil, err
	}
	n := fl.docs
	rare := math.Log(1 + (n+1)/(0.1*n+0.5)) // the IDF of a word a tenth of the records hold
	type scored struct {
		t string
		w float64
	}
	var cands []scored
	for _, t := range terms {
		if w, ok := idf[t]; ok && w >= rare {
			cands = append(cands, scored{t, mass[t] * w})
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	slices.SortFunc(cands, func(a, b scored) int {
		if a.w != b.w {
			if a.w > b.w {
				return -1
			}
			return 1
		}
		if a.t < b.t {
			return -1
		}
		return 1
	})
	cands = cands[:min(feedbackTerms, len(cands))]
	e := &expansion{source: "feedback"}
	for _, c := range cands {
		e.add(c.t, "", c.w/cands[0].w, own)
	}
	return e.done(), nil
}
