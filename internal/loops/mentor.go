package loops

import (
	"fmt"
	"math"
	"slices"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// The Mentor's rules, by name. A rejection names the first rule that
// failed.
const (
	RuleWeightsRange   = "weights_range"   // every weight of every intent in [0, 1]
	RuleWeightsSum     = "weights_sum"     // the weights of each intent sum to 1
	RuleHalfLives      = "half_lives"      // every half-life within [MinHalfLife, MaxHalfLife] days
	RuleFloor          = "floor"           // recency floor within [0, MaxFloor]
	RuleCandidates     = "candidates"      // candidate count within [MinCandidates, MaxCandidates]
	RuleRelevanceFloor = "relevance_floor" // relevance floor unset or within [0, MaxRelevanceFloor]
	RuleDedup          = "dedup"           // near-duplicate threshold within [MinDedup, 1]
	RuleStep           = "step"            // a bounded change from the active configuration
	RuleGain           = "gain"            // validation on the search half rises by MinGain
	RuleHeldOut        = "held_out"        // no loss on the held-out half (probes and correction triples)
	RuleLatency        = "latency"         // mean probe latency within the budget
)

// Bounds of the Mentor's rules.
const (
	MinHalfLife       = 0.005 // days (about 7 minutes)
	MaxHalfLife       = 36500 // days (a century)
	MaxFloor          = 0.2
	MinCandidates     = 10
	MaxCandidates     = 1000
	MaxRelevanceFloor = 0.5
	MinDedup          = 0.8
	MaxWeightStep     = 0.4 // largest change of one weight in one step
	MaxFloorStep      = 0.1
	MaxHalfLifeFactor = 4 // a half-life changes by at most this factor in one step
	MaxCandidateStep  = 2 // the candidate count changes by at most this factor
	MinGain           = 0.01
)

// Verdict is the Mentor's judgement: OK, or the rule that failed and why.
type Verdict struct {
	OK     bool   `json:"ok"`
	Rule   string `json:"rule,omitempty"`
	Detail string `json:"detail"`
}

func fail(rule, format string, args ...any) Verdict {
	return Verdict{Rule: rule, Detail: fmt.Sprintf(format, args...)}
}

// CheckConfig applies the rules a configuration must pass on its own:
// weights in range and summing to 1 for every intent, half-lives, floor,
// candidate count, relevance floor and near-duplicate threshold within
// their bounds.
func CheckConfig(c mnemo.ScoringConfig) Verdict {
	for _, i := range score.Intents() {
		w, ok := c.Weights[string(i)]
		if !ok {
			return fail(RuleWeightsSum, "the weights of intent %s are missing", i)
		}
		if s := w.Score().Sum(); math.Abs(s-1) > 1e-6 {
			return fail(RuleWeightsSum, "intent %s: the weights sum to %.4g, not 1", i, s)
		}
		for name, x := range w.Score().Map() {
			if !(x >= 0 && x <= 1) {
				return fail(RuleWeightsRange, "intent %s: weight %s = %v is outside [0, 1]", i, name, x)
			}
		}
	}
	for _, h := range c.HalfLives {
		if !(h.Days >= MinHalfLife && h.Days <= MaxHalfLife) {
			return fail(RuleHalfLives, "half-life of %s is %v days, outside [%v, %v]", h.Prefix, h.Days, MinHalfLife, MaxHalfLife)
		}
	}
	if !(c.DefaultHalfLife >= MinHalfLife && c.DefaultHalfLife <= MaxHalfLife) {
		return fail(RuleHalfLives, "default half-life is %v days, outside [%v, %v]", c.DefaultHalfLife, MinHalfLife, MaxHalfLife)
	}
	if !(c.RecencyFloor >= 0 && c.RecencyFloor <= MaxFloor) {
		return fail(RuleFloor, "recency floor %v is outside [0, %v]", c.RecencyFloor, MaxFloor)
	}
	if c.Candidates < MinCandidates || c.Candidates > MaxCandidates {
		return fail(RuleCandidates, "candidate count %d is outside [%d, %d]", c.Candidates, MinCandidates, MaxCandidates)
	}
	if m := c.MinRelevance; m != nil && !(*m >= 0 && *m <= MaxRelevanceFloor) {
		return fail(RuleRelevanceFloor, "relevance floor %v is outside [0, %v]", *m, MaxRelevanceFloor)
	}
	if !(c.DedupThreshold >= MinDedup && c.DedupThreshold <= 1) {
		return fail(RuleDedup, "near-duplicate threshold %v is outside [%v, 1]", c.DedupThreshold, MinDedup)
	}
	return Verdict{OK: true, Detail: "within the bounds"}
}

// CheckStep applies the bounded-change rule: from the active configuration
// to the proposed one no weight moves by more than MaxWeightStep, the
// floor by more than MaxFloorStep, a half-life or the candidate count by
// more than their factors, and the half-life table keeps its prefixes.
func CheckStep(from, to mnemo.ScoringConfig) Verdict {
	for _, i := range score.Intents() {
		a, b := from.ForIntent(string(i)).Map(), to.ForIntent(string(i)).Map()
		for name, x := range a {
			if d := math.Abs(b[name] - x); d > MaxWeightStep+1e-9 {
				return fail(RuleStep, "intent %s: weight %s moves by %.3f, more than %v in one step", i, name, d, MaxWeightStep)
			}
		}
	}
	if d := math.Abs(to.RecencyFloor - from.RecencyFloor); d > MaxFloorStep+1e-9 {
		return fail(RuleStep, "the recency floor moves by %.3f, more than %v in one step", d, MaxFloorStep)
	}
	ratio := func(a, b float64) float64 { return math.Max(a/b, b/a) }
	if len(from.HalfLives) != len(to.HalfLives) || !slices.EqualFunc(from.HalfLives, to.HalfLives,
		func(a, b mnemo.HalfLife) bool { return a.Prefix == b.Prefix }) {
		return fail(RuleStep, "the half-life table changes its prefixes: one step changes days only")
	}
	for k, h := range from.HalfLives {
		if ratio(h.Days, to.HalfLives[k].Days) > MaxHalfLifeFactor+1e-9 {
			return fail(RuleStep, "half-life of %s moves from %v to %v days, more than ×%d in one step", h.Prefix, h.Days, to.HalfLives[k].Days, MaxHalfLifeFactor)
		}
	}
	if from.DefaultHalfLife > 0 && ratio(from.DefaultHalfLife, to.DefaultHalfLife) > MaxHalfLifeFactor+1e-9 {
		return fail(RuleStep, "the default half-life moves from %v to %v days, more than ×%d in one step", from.DefaultHalfLife, to.DefaultHalfLife, MaxHalfLifeFactor)
	}
	if from.Candidates > 0 && ratio(float64(from.Candidates), float64(to.Candidates)) > MaxCandidateStep+1e-9 {
		return fail(RuleStep, "the candidate count moves from %d to %d, more than ×%d in one step", from.Candidates, to.Candidates, MaxCandidateStep)
	}
	return Verdict{OK: true, Detail: "a bounded step"}
}

// Evaluation is what the Executor measured of a patch: validation on the
// search and held-out halves of the probes, recall of the correction
// triples' missed records on the held-out half, and mean latency per
// probe, each before (active configuration) and after (patch).
type Evaluation struct {
	SearchBefore  float64 `json:"search_before"`
	SearchAfter   float64 `json:"search_after"`
	HeldBefore    float64 `json:"held_out_before"`
	HeldAfter     float64 `json:"held_out_after"`
	TriplesBefore float64 `json:"triples_held_out_before"`
	TriplesAfter  float64 `json:"triples_held_out_after"`
	Triples       int     `json:"triples_held_out"`
	LatencyBefore float64 `json:"latency_ms_before"`
	LatencyAfter  float64 `json:"latency_ms_after"`
}

// Mentor accepts a configuration patch only when every deterministic rule
// passes.
type Mentor struct {
	// LatencyBudget is the largest mean probe latency, in milliseconds, a
	// patch may have (unless it is no slower than before); 0 means 250.
	LatencyBudget float64
}

// Judge applies every rule, in order: the configuration's own bounds,
// the bounded step from the active configuration, a gain on the search
// half, no loss on the held-out half, latency within budget.
func (m Mentor) Judge(from, to mnemo.ScoringConfig, ev Evaluation) Verdict {
	if v := CheckConfig(to); !v.OK {
		return v
	}
	if v := CheckStep(from, to); !v.OK {
		return v
	}
	if ev.SearchAfter < ev.SearchBefore+MinGain-1e-9 {
		return fail(RuleGain, "validation on the search half %.3f -> %.3f: less than %.2f gained", ev.SearchBefore, ev.SearchAfter, MinGain)
	}
	if ev.HeldAfter < ev.HeldBefore-1e-9 {
		return fail(RuleHeldOut, "validation on the held-out half falls %.3f -> %.3f", ev.HeldBefore, ev.HeldAfter)
	}
	if ev.Triples > 0 && ev.TriplesAfter < ev.TriplesBefore-1e-9 {
		return fail(RuleHeldOut, "recall of the held-out correction triples falls %.3f -> %.3f", ev.TriplesBefore, ev.TriplesAfter)
	}
	budget := m.LatencyBudget
	if budget <= 0 {
		budget = 250
	}
	if ev.LatencyAfter > budget && ev.LatencyAfter > 1.25*ev.LatencyBefore {
		return fail(RuleLatency, "mean probe latency %.1f ms is over the budget of %.0f ms (was %.1f ms)", ev.LatencyAfter, budget, ev.LatencyBefore)
	}
	return Verdict{OK: true, Detail: fmt.Sprintf("search half %.3f -> %.3f, held out %.3f -> %.3f, within the bounds",
		ev.SearchBefore, ev.SearchAfter, ev.HeldBefore, ev.HeldAfter)}
}
