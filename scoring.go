package mnemo

import (
	"maps"
	"slices"
)

// The scoring configuration of a namespace, as the tuning history keeps
// its versions and every surface shows them: the factor weights of each
// intent, the half-life table, the recency floor, the candidate count, the
// relevance floor and the near-duplicate threshold. The ranking math that
// reads it is package score's.

// generalIntent names the general intent (score.IntentGeneral): the
// weights of a query with no particular need, from which the intent rule
// derives the others.
const generalIntent = "general"

// Weights are the coefficients of the composite score, one per factor.
type Weights struct {
	Semantic, Keyword, Recency, Importance, Confidence, Frequency float64
}

// Map returns w keyed by factor name (FactorSemantic …
// FactorFrequency); all six keys are always present.
func (w Weights) Map() map[string]float64 {
	return map[string]float64{
		FactorSemantic:   w.Semantic,
		FactorKeyword:    w.Keyword,
		FactorRecency:    w.Recency,
		FactorImportance: w.Importance,
		FactorConfidence: w.Confidence,
		FactorFrequency:  w.Frequency,
	}
}

// Sum returns the sum of the six weights.
func (w Weights) Sum() float64 {
	return w.Semantic + w.Keyword + w.Recency + w.Importance + w.Confidence + w.Frequency
}

// HalfLife maps a scope prefix to the recency half-life, in days, of the
// records whose scope starts with it.
type HalfLife struct {
	Prefix string  `json:"prefix"`
	Days   float64 `json:"days"`
}

// ConfigWeights are the six factor weights as the configuration document
// spells them.
type ConfigWeights struct {
	Semantic   float64 `json:"semantic"`
	Keyword    float64 `json:"keyword"`
	Recency    float64 `json:"recency"`
	Importance float64 `json:"importance"`
	Confidence float64 `json:"confidence"`
	Frequency  float64 `json:"frequency"`
}

// Score returns w as scoring weights.
func (w ConfigWeights) Score() Weights {
	return Weights{Semantic: w.Semantic, Keyword: w.Keyword, Recency: w.Recency,
		Importance: w.Importance, Confidence: w.Confidence, Frequency: w.Frequency}
}

// ScoringConfig is a namespace's scoring configuration.
type ScoringConfig struct {
	// Weights holds the weights of each intent by name (general, recent,
	// rules, howto, why: score.Intents). General is the default preset's base; the others are
	// what the intent rule (score.Preset.ForIntent) derives from it unless
	// set otherwise.
	Weights map[string]ConfigWeights `json:"weights"`
	// HalfLives is the ordered half-life table (days per scope prefix);
	// DefaultHalfLife the days of a scope no entry matches.
	HalfLives       []HalfLife `json:"half_lives"`
	DefaultHalfLife float64    `json:"default_half_life"`
	// RecencyFloor is the lowest recency factor.
	RecencyFloor float64 `json:"recency_floor"`
	// Candidates is how many candidates each channel yields.
	Candidates int `json:"candidates"`
	// MinRelevance is the relevance floor of a request that sets none
	// (0..1; see RecallRequest.MinRelevance); nil keeps the adaptive
	// floor.
	MinRelevance *float64 `json:"min_relevance,omitempty"`
	// ScoreRatio is the min_score_ratio of a digest that sets none (0..1;
	// see DigestRequest.MinScoreRatio); nil keeps the default,
	// DefaultScoreRatio.
	ScoreRatio *float64 `json:"score_ratio,omitempty"`
	// DedupThreshold is the cosine similarity above which two ranked
	// records are near-duplicates.
	DedupThreshold float64 `json:"dedup_threshold"`
}

// Clone returns a deep copy of c.
func (c ScoringConfig) Clone() ScoringConfig {
	c.Weights = maps.Clone(c.Weights)
	c.HalfLives = slices.Clone(c.HalfLives)
	if c.MinRelevance != nil {
		v := *c.MinRelevance
		c.MinRelevance = &v
	}
	if c.ScoreRatio != nil {
		v := *c.ScoreRatio
		c.ScoreRatio = &v
	}
	return c
}

// General returns the general intent's weights.
func (c ScoringConfig) General() Weights { return c.Weights[generalIntent].Score() }

// ForIntent returns the weights of the intent named i (the general weights
// for an intent the document does not name).
func (c ScoringConfig) ForIntent(i string) Weights {
	if w, ok := c.Weights[i]; ok {
		return w.Score()
	}
	return c.General()
}
