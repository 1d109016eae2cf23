package score

import (
	"math"

	"github.com/mnemo-dev/mnemo"
)

// How a candidate's factors become its score on the read path: the
// composite score (Score, or GatedScore for a preset that gates its priors
// by relevance) or, when the namespace is overloaded, the triage score;
// then the learned channel at its weight, the thread factor, and the
// boosts of a record of the kind the intent prefers, created inside the
// interval the query names, or by or about a person it names.

// Shares and boosts of the fusion.
const (
	// LearnedWeight is the learned channel's share of a record's score:
	// the score of the other factors counts (1 − LearnedWeight), the
	// learned strength LearnedWeight. Chosen on LoCoMo conversations 1–5
	// among 0.1 to 0.6 (recall@10 rose to 0.3 and fell after); 6–10 held
	// out gained too.
	LearnedWeight = 0.3
	// TimeBoost multiplies the score of a relevant record created inside
	// the query's interval.
	TimeBoost = 1.2
	// NameBoost multiplies the score of a relevant record by a named person
	// or of a named component. A question about someone is answered by
	// what they said themselves: in LoCoMo conversations 1–5, 96 % of the
	// evidence of questions naming one speaker is that speaker's own
	// turns, against the half of the turns that are theirs, a likelihood
	// ratio of about 2. Chosen there among 1.1, 1.2, 1.3, 1.5, 2, 2.5 and
	// 3 (recall@10 0.727, 0.738, 0.740, 0.747, 0.749, 0.745, 0.742); the
	// held-out half 6–10 went from 0.690 (1.1) to 0.717.
	NameBoost = 2
	// ComponentBoost multiplies the score of a relevant record of a
	// component the query names ("why did we pin the parser in Ingest?"):
	// no evaluation measures how much more likely a component's records
	// are to hold the answer, so it stays the mild boost it always was.
	ComponentBoost = 1.1
)

// Ranking is what the candidates of one query share in their fusion.
type Ranking struct {
	Preset  Preset
	Weights mnemo.Weights // the intent's weights
	Intent  Intent
	// Alpha is triage's share of criticality (TriageAlpha); 0: no triage.
	Alpha float64
	// MaxRelevance is the highest relevance among the candidates, the
	// gate's denominator of a preset with GatePriors.
	MaxRelevance float64
	// Learned says the learned channel is on.
	Learned bool
}

// Candidate is one candidate's evidence beyond its scored factors.
type Candidate struct {
	Factors     Factors // the six scored factors (criticality apart)
	Criticality float64
	Kind        mnemo.Kind
	Learned     float64 // the learned channel's strength (Ranking.Learned)
	// Thread is the thread factor (ThreadFactor) when HasThread.
	Thread      float64
	HasThread   bool
	InInterval  bool // created inside the interval the query names
	ByName      bool // by a person the query names (speaker, author, operator)
	OfComponent bool // of a component the query names
}

// Fuse returns the score of candidate c and its factor breakdown: the six
// factors, and each share or boost that applied (criticality, gate,
// learned, thread, kind_boost, time_boost, name_boost). The boosts may
// take a score above 1; Scale brings the scores of one ranking back to
// at most 1 without changing their order or ratios (a cap at 1 would tie
// every boosted candidate that reaches it, whatever its evidence).
func (k Ranking) Fuse(c Candidate) (float64, map[string]float64) {
	p, w, fa := k.Preset, k.Weights, c.Factors
	var sv float64
	factors := fa.Map()
	if k.Alpha > 0 {
		factors[mnemo.FactorCriticality] = c.Criticality
		sv = Round4(TriageScore(k.Alpha, c.Criticality, fa.Semantic))
	} else if p.GatePriors {
		gate := 0.0
		if k.MaxRelevance > 0 {
			gate = Relevance(w, fa) / k.MaxRelevance
		}
		factors["gate"] = Round4(gate)
		sv = p.GatedScore(w, fa, gate)
	} else {
		sv = p.Score(w, fa)
	}
	if k.Learned && k.Alpha == 0 {
		// The learned channel, fused with the rest at its weight.
		factors[mnemo.FactorLearned] = Round4(c.Learned)
		sv = (1-LearnedWeight)*sv + LearnedWeight*c.Learned
	}
	if c.HasThread {
		factors[mnemo.FactorThread] = Round4(c.Thread)
		sv = p.WithThread(sv, c.Thread)
	}
	if k.Alpha == 0 {
		if b := KindBoost(k.Intent, c.Kind); b != 1 {
			factors["kind_boost"] = b
			sv = Round4(sv * b)
		}
		if c.InInterval {
			factors["time_boost"] = TimeBoost
			sv = Round4(sv * TimeBoost)
		}
		switch {
		case c.ByName:
			factors["name_boost"] = NameBoost
			sv = Round4(sv * NameBoost)
		case c.OfComponent:
			factors["name_boost"] = ComponentBoost
			sv = Round4(sv * ComponentBoost)
		}
	}
	return sv, factors
}

// Scale divides every score by the largest when that is above 1, so a
// ranking's scores stay within 0..1, in the same order and ratios; it
// returns the divisor (1 when none was needed). Each scaled candidate's
// factors record it as "scale" (1/divisor).
func Scale(scores []float64, factors []map[string]float64) float64 {
	top := 1.0
	for _, s := range scores {
		top = math.Max(top, s)
	}
	if top == 1 {
		return 1
	}
	for i := range scores {
		scores[i] = Round4(scores[i] / top)
		if i < len(factors) && factors[i] != nil {
			factors[i]["scale"] = Round4(1 / top)
		}
	}
	return top
}

// Round4 rounds x to four decimals, halves away from zero: how the read
// path reports shares and boosts.
func Round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
