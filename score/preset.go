package score

import (
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// Preset is a named scoring configuration: the factor weights, the recency
// floor and half-life table, and the rounding of final scores.
type Preset struct {
	Name            string           `json:"name"`
	Weights         mnemo.Weights    `json:"weights"`
	Floor           float64          `json:"floor"`             // lowest recency factor
	Decimals        int              `json:"decimals"`          // round final scores to this many decimals; <0 means no rounding
	HalfLives       []mnemo.HalfLife `json:"half_lives"`        // ordered; the first plain string prefix match wins
	DefaultHalfLife float64          `json:"default_half_life"` // days, for scopes no entry matches (30)
	// GatePriors scales the prior factors (recency, importance, confidence,
	// frequency) of each candidate by its relevance relative to the most
	// relevant candidate of the same query (see GatedScore), so priors
	// re-order relevant records but never lift an irrelevant one above them.
	GatePriors bool `json:"gate_priors"`
	// ThreadWeight is the weight of the thread factor (see ThreadFactor,
	// WithThread): evidence that a record's conversation as a whole is
	// about the query. 0 leaves scores as the weights alone give them.
	ThreadWeight float64 `json:"thread_weight,omitempty"`
}

// Preset names.
const (
	PresetAura    = "aura"
	PresetAlma    = "alma"
	PresetDefault = "default"
)

// Aura returns the aura preset, which reproduces the reference
// compute_score exactly: semantic 0.5, recency 0.3, importance 0.2, floor
// 0.05, scores rounded to 4 decimals, the reference half-life table and a
// 30-day default.
func Aura() Preset {
	return Preset{
		Name:            PresetAura,
		Weights:         mnemo.Weights{Semantic: 0.5, Recency: 0.3, Importance: 0.2},
		Floor:           0.05,
		Decimals:        4,
		HalfLives:       ReferenceHalfLives(),
		DefaultHalfLife: DefaultHalfLifeDays,
	}
}

// Alma returns the alma preset: relevance 0.50, split as semantic 0.30 and
// keyword 0.20 (dense similarity carries paraphrases, BM25 carries exact
// names, codes and identifiers, so neither may dominate); importance 0.15,
// confidence 0.15, recency 0.10, frequency 0.10. Recency floor 0.05, no
// rounding, the extended half-life table (ExtendedHalfLives) and a 30-day
// default.
func Alma() Preset {
	return Preset{
		Name: PresetAlma,
		Weights: mnemo.Weights{Semantic: 0.30, Keyword: 0.20, Importance: 0.15,
			Confidence: 0.15, Recency: 0.10, Frequency: 0.10},
		Floor:           0.05,
		Decimals:        -1,
		HalfLives:       ExtendedHalfLives(),
		DefaultHalfLife: DefaultHalfLifeDays,
	}
}

// Default returns the default preset, chosen for a hybrid memory server
// that answers task descriptions written by agents and people:
//
//   - semantic 0.35 and keyword 0.25: relevance (0.60) dominates, as a
//     digest that is fresh but off-topic wastes the token budget; keyword
//     is nearly as strong as semantic because tasks name components,
//     error codes and identifiers that embeddings blur;
//   - recency 0.15: enough to prefer the latest of two similar records,
//     while the per-scope half-lives keep rules and regulations from
//     fading;
//   - importance 0.10 and confidence 0.10: operator-stated, important
//     records beat inferred trivia at equal relevance;
//   - frequency 0.05: a small popularity prior that cannot bury new records;
//   - priors are gated by relevance (GatePriors, GatedScore): a record
//     that barely matches the task gets little credit for being new,
//     important or popular, so the digest is not filled with fresh noise;
//   - thread 0.10 on top (ThreadWeight, WithThread), as much as importance
//     or confidence: a record whose conversation is the one the query is
//     about gains up to 0.10, so the terse turns around a match ("Yes,
//     last Tuesday") can join it. Records without a thread are unaffected.
//
// The weights sum to 1. Recency floor 0.05, no rounding (rounding would
// create ties in the ranking), and the extended half-life table
// (ExtendedHalfLives: /user_profile effectively permanent, /session fading
// in minutes, then the reference entries), with a 30-day default.
func Default() Preset {
	return Preset{
		Name: PresetDefault,
		Weights: mnemo.Weights{Semantic: 0.35, Keyword: 0.25, Recency: 0.15,
			Importance: 0.10, Confidence: 0.10, Frequency: 0.05},
		Floor:           0.05,
		Decimals:        -1,
		HalfLives:       ExtendedHalfLives(),
		DefaultHalfLife: DefaultHalfLifeDays,
		GatePriors:      true,
		ThreadWeight:    0.10,
	}
}

// Names lists the preset names Lookup accepts, in a stable order.
func Names() []string {
	return []string{PresetAura, PresetAlma, PresetDefault}
}

// Lookup returns a fresh copy of the named preset; "" means "default".
// Names are matched case-insensitively after trimming spaces. An unknown
// name returns an EINVALID error.
func Lookup(name string) (Preset, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case PresetAura:
		return Aura(), nil
	case PresetAlma:
		return Alma(), nil
	case PresetDefault, "":
		return Default(), nil
	}
	return Preset{}, mnemo.Errorf(mnemo.EINVALID, "unknown preset %q (want aura, alma or default)", name)
}
