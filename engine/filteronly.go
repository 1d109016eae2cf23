package engine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// A request with no query text but a filter ("every decision of the
// planner component", "the corrections since Monday") keeps its meaning:
// every record the filter selects is relevant, and the priors (importance,
// recency, confidence, frequency) order them. Without a filter an empty
// query is still an error: it would ask for the whole store.

// filterOnly reports whether a request is filter-only: no query text, and
// a filter that constrains something besides time-travel.
func filterOnly(query string, f mnemo.Filter) bool {
	return strings.TrimSpace(query) == "" && constrains(f)
}

// constrains reports whether f narrows the records (as_of and as_known_at
// only choose the moment).
func constrains(f mnemo.Filter) bool {
	return len(f.Layers) > 0 || len(f.Kinds) > 0 || f.ScopePrefix != "" || f.Component != "" || f.Mission != "" ||
		f.Thread != "" || len(f.Tags) > 0 || f.MinCriticality > 0 || f.Since != nil || f.Until != nil ||
		f.Outcome != "" || f.Operator != ""
}

// filterOnlyLimit is how many of the newest matching records a
// filter-only request orders by their priors.
const filterOnlyLimit = 1000

// rankFiltered ranks the records f selects by their priors alone: the
// semantic and keyword factors are 0, every record passes the relevance
// floor with the evidence "filter".
// A digest (withCore) pins the core records as it does for a task.
func (s *Service) rankFiltered(ctx context.Context, sc mnemo.Scope, f mnemo.Filter, p score.Preset, w mnemo.Weights, withCore bool, rk *ranking) (*ranking, error) {
	recs, err := s.store.List(ctx, sc, mnemo.ListOptions{Filter: f, Limit: filterOnlyLimit, ByTime: true})
	if err != nil {
		return nil, err
	}
	evidence := make(map[string]string, len(recs))
	for _, r := range recs {
		evidence[r.ID] = "filter"
	}
	if withCore {
		core, err := s.store.List(ctx, sc, mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindCore}, AsOf: f.AsOf}, Limit: 50})
		if err != nil {
			return nil, err
		}
		for _, r := range core {
			if _, ok := evidence[r.ID]; !ok {
				evidence[r.ID] = "core"
				recs = append(recs, r)
			}
		}
	}
	now := s.now()
	rk.hits = make([]mnemo.ScoredRecord, 0, len(recs))
	for _, r := range recs {
		age := now.Sub(r.CreatedAt).Hours() / 24
		fa := score.Factors{
			Recency:    score.Recency(age, p.HalfLife(r.Scope), p.Floor),
			Importance: r.Importance,
			Confidence: r.Confidence,
			Frequency:  score.Frequency(r.AccessCount),
		}
		factors := fa.Map()
		var sv float64
		if p.GatePriors {
			factors["gate"] = 1 // every selected record is fully relevant
			sv = p.GatedScore(w, fa, 1)
		} else {
			sv = p.Score(w, fa)
		}
		why := &mnemo.Why{Evidence: evidence[r.ID], Relevance: 1}
		rk.hits = append(rk.hits, mnemo.ScoredRecord{Record: r, ID: r.ID, Score: round4(sv), Factors: factors, Why: why})
	}
	sortHits(rk.hits)
	return rk, nil
}

// filterTitle names a filter-only request in a digest's title.
func filterTitle(f mnemo.Filter) string {
	b, err := json.Marshal(f)
	if err != nil {
		return "the filter"
	}
	return "records matching " + string(b)
}
