package tuning

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/access"
	"github.com/mnemo-dev/mnemo/score"
)

// Configuration as versions. A namespace's scoring configuration is one
// document (ScoringConfig): the weights per intent, the half-life table,
// the recency floor, the candidate count, the relevance floor and the
// near-duplicate threshold. Its versions share the namespace's tuning
// history (Tuning): `tune`, `config apply`, the cold loop and rollbacks all
// add to it, each version with its author, reason and evaluation. Version 0
// is the default preset's own configuration (Source.Default).

// FromScore returns scoring weights as configuration weights.
func FromScore(w mnemo.Weights) mnemo.ConfigWeights {
	return mnemo.ConfigWeights{Semantic: w.Semantic, Keyword: w.Keyword, Recency: w.Recency,
		Importance: w.Importance, Confidence: w.Confidence, Frequency: w.Frequency}
}

// WithGeneral returns c with the general weights set to w and every other
// intent's weights derived from them by the intent rule.
func WithGeneral(c mnemo.ScoringConfig, w mnemo.Weights) mnemo.ScoringConfig {
	c = c.Clone()
	p := score.Preset{Weights: w}
	c.Weights = map[string]mnemo.ConfigWeights{}
	for _, i := range score.Intents() {
		c.Weights[string(i)] = FromScore(p.ForIntent(i))
	}
	return c
}

// ConfigOf returns the configuration of a version of t: its document, or
// for a version written before documents existed (weights only) the
// default with those weights; version 0 or an unknown one gives the
// default.
func ConfigOf(t *mnemo.Tuning, version int, def func() mnemo.ScoringConfig) mnemo.ScoringConfig {
	for _, v := range t.Versions {
		if v.Version != version {
			continue
		}
		if v.Config != nil {
			return v.Config.Clone()
		}
		return WithGeneral(def(), v.Weights)
	}
	return def()
}

// ConfigVersion is a version's configuration as `config show` and `config
// history` present it.
type ConfigVersion struct {
	Namespace string              `json:"namespace"`
	Version   int                 `json:"version"`
	Active    bool                `json:"active"`
	Config    mnemo.ScoringConfig `json:"config"`
	At        time.Time           `json:"at,omitzero"`
	Author    string              `json:"author,omitempty"`
	Reason    string              `json:"reason,omitempty"`
	// Evaluation holds the figures measured when the version was made
	// (validation, recall, latency), by name.
	Evaluation map[string]float64 `json:"evaluation,omitempty"`
}

// Show returns a version of the namespace's configuration; version < 0
// means the active one. Errors: ENOTFOUND for an unknown version.
func Show(ctx context.Context, s Source, version int) (*ConfigVersion, error) {
	_, sc, err := access.Reader(ctx)
	if err != nil {
		return nil, err
	}
	t, err := Load(ctx, s.Store, sc.Namespace)
	if err != nil {
		return nil, err
	}
	if version < 0 {
		version = t.Active
	}
	cv := &ConfigVersion{Namespace: sc.Namespace, Version: version, Active: version == t.Active, Config: ConfigOf(t, version, s.Default)}
	if version == 0 {
		cv.Reason = "the default preset's configuration"
		return cv, nil
	}
	for _, v := range t.Versions {
		if v.Version == version {
			cv.At, cv.Author, cv.Reason, cv.Evaluation = v.At, versionAuthor(v), v.Reason, v.Evaluation
			return cv, nil
		}
	}
	return nil, mnemo.Errorf(mnemo.ENOTFOUND, "configuration version %d does not exist in %s", version, sc.Namespace)
}

// ConfigChange says who makes a new configuration version and why.
type ConfigChange struct {
	Action     string             // apply, loop, tune
	Author     string             // a role (loop/mentor) or a key or operator name
	Reason     string             // why
	Evaluation map[string]float64 // what was measured
}

// Apply stores cfg as a new version of the namespace's configuration
// and makes it active; a running server takes it within the cache TTL
// (its own process at once). The document is checked for shape only (no
// intent missing, numbers finite); the rules a version must pass are the
// caller's (the loops' Mentor). Errors: EINVALID for a malformed document.
func Apply(ctx context.Context, s Source, cfg mnemo.ScoringConfig, ch ConfigChange) (*ConfigVersion, error) {
	c, sc, err := access.Admin(ctx, "applying a configuration")
	if err != nil {
		return nil, err
	}
	if err := checkConfigShape(cfg); err != nil {
		return nil, err
	}
	t, err := Load(ctx, s.Store, sc.Namespace)
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC()
	v := nextVersion(t)
	if ch.Action == "" {
		ch.Action = "apply"
	}
	if ch.Author == "" {
		ch.Author = c.Name
	}
	cfg = cfg.Clone()
	t.Versions = append(t.Versions, mnemo.TuningVersion{Version: v, At: now, Weights: cfg.General(), ActorNote: ch.Author,
		Config: &cfg, Author: ch.Author, Reason: ch.Reason, Evaluation: ch.Evaluation, Action: ch.Action})
	t.Active = v
	t.Events = append(t.Events, mnemo.TuningEvent{At: now, Active: v, Action: ch.Action, Actor: ch.Author})
	if err := s.save(ctx, sc.Namespace, t); err != nil {
		return nil, err
	}
	return &ConfigVersion{Namespace: sc.Namespace, Version: v, Active: true, Config: cfg, At: now,
		Author: ch.Author, Reason: ch.Reason, Evaluation: ch.Evaluation}, nil
}

// checkConfigShape refuses a document the engine cannot read: an intent
// missing or unknown, a number that is not finite.
func checkConfigShape(cfg mnemo.ScoringConfig) error {
	for _, i := range score.Intents() {
		if _, ok := cfg.Weights[string(i)]; !ok {
			return mnemo.Errorf(mnemo.EINVALID, "configuration: weights of intent %q are missing", i)
		}
	}
	nums := []float64{cfg.DefaultHalfLife, cfg.RecencyFloor, cfg.DedupThreshold}
	for i, w := range cfg.Weights {
		if _, err := score.ParseIntent(string(i)); err != nil {
			return mnemo.Errorf(mnemo.EINVALID, "configuration: unknown intent %q", i)
		}
		nums = append(nums, w.Semantic, w.Keyword, w.Recency, w.Importance, w.Confidence, w.Frequency)
	}
	for _, h := range cfg.HalfLives {
		nums = append(nums, h.Days)
	}
	if cfg.MinRelevance != nil {
		nums = append(nums, *cfg.MinRelevance)
	}
	if r := cfg.ScoreRatio; r != nil && !(*r >= 0 && *r <= 1) {
		return mnemo.Errorf(mnemo.EINVALID, "configuration: score_ratio %v is outside 0..1", *r)
	}
	for _, x := range nums {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return mnemo.Errorf(mnemo.EINVALID, "configuration: %v is not a finite number", x)
		}
	}
	return nil
}

// ParseConfig reads a configuration document; unknown fields are refused.
func ParseConfig(b []byte) (mnemo.ScoringConfig, error) {
	var cfg mnemo.ScoringConfig
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, mnemo.Errorf(mnemo.EINVALID, "configuration document: %v", err)
	}
	if err := checkConfigShape(cfg); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// nextVersion is the number the next version of t takes: one above the
// highest so far, 1 for the first.
func nextVersion(t *mnemo.Tuning) int {
	v := 1
	for _, x := range t.Versions {
		v = max(v, x.Version+1)
	}
	return v
}
