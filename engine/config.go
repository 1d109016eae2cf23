package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// Configuration as versions. A namespace's scoring configuration is one
// document (ScoringConfig): the weights per intent, the half-life table,
// the recency floor, the candidate count, the relevance floor and the
// near-duplicate threshold. Its versions share the namespace's tuning
// history (Tuning): `tune`, `config apply`, the cold loop and rollbacks all
// add to it, each version with its author, reason and evaluation. Version 0
// is the default preset's own configuration.

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

// applyConfig sets p's base weights, half-lives and floor from c.
func applyConfig(c mnemo.ScoringConfig, p *score.Preset) {
	p.Weights = c.General()
	if len(c.HalfLives) > 0 {
		p.HalfLives = slices.Clone(c.HalfLives)
	}
	if c.DefaultHalfLife > 0 {
		p.DefaultHalfLife = c.DefaultHalfLife
	}
	p.Floor = c.RecencyFloor
}

// DefaultConfig returns version 0: the default preset's configuration with
// the service's half-life table and candidate count, the adaptive
// relevance floor and the standard near-duplicate threshold.
func (s *Service) DefaultConfig() mnemo.ScoringConfig {
	p, err := s.Preset(score.PresetDefault)
	if err != nil {
		p = score.Default()
	}
	c := mnemo.ScoringConfig{HalfLives: slices.Clone(p.HalfLives), DefaultHalfLife: p.DefaultHalfLife,
		RecencyFloor: p.Floor, Candidates: s.candN, DedupThreshold: nearDuplicate}
	return WithGeneral(c, p.Weights)
}

// configOf returns the configuration of a version of t: its document, or
// for a version written before documents existed (weights only) the
// default with those weights; version 0 or an unknown one gives the
// default.
func (s *Service) configOf(t *mnemo.Tuning, version int) mnemo.ScoringConfig {
	for _, v := range t.Versions {
		if v.Version != version {
			continue
		}
		if v.Config != nil {
			return v.Config.Clone()
		}
		return WithGeneral(s.DefaultConfig(), v.Weights)
	}
	return s.DefaultConfig()
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

// Config returns a version of the namespace's configuration; version < 0
// means the active one. Errors: ENOTFOUND for an unknown version.
func (s *Service) Config(ctx context.Context, version int) (*ConfigVersion, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.loadTuning(ctx, sc.Namespace)
	if err != nil {
		return nil, err
	}
	if version < 0 {
		version = t.Active
	}
	cv := &ConfigVersion{Namespace: sc.Namespace, Version: version, Active: version == t.Active, Config: s.configOf(t, version)}
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

// ApplyConfig stores cfg as a new version of the namespace's configuration
// and makes it active; a running server takes it within the cache TTL
// (its own process at once). The document is checked for shape only (no
// intent missing, numbers finite); the rules a version must pass are the
// caller's (the loops' Mentor). Errors: EINVALID for a malformed document.
func (s *Service) ApplyConfig(ctx context.Context, cfg mnemo.ScoringConfig, ch ConfigChange) (*ConfigVersion, error) {
	c, sc, err := admin(ctx, "applying a configuration")
	if err != nil {
		return nil, err
	}
	if err := checkConfigShape(cfg); err != nil {
		return nil, err
	}
	t, err := s.loadTuning(ctx, sc.Namespace)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	v := 1
	for _, x := range t.Versions {
		v = max(v, x.Version+1)
	}
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
	if err := s.saveTuning(ctx, sc.Namespace, t); err != nil {
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

// activeConfig returns the namespace's active configuration, nil when
// version 0 is in force; cached for tuneCacheTTL, so that another
// process's change arrives within it. A configuration under evaluation
// (WithConfig) in ctx wins.
func (s *Service) activeConfig(ctx context.Context, ns string) (*mnemo.ScoringConfig, error) {
	if c, ok := ctx.Value(evalKey{}).(*mnemo.ScoringConfig); ok {
		return c, nil
	}
	now := time.Now()
	s.tuneMu.Lock()
	e, ok := s.tuned[ns]
	s.tuneMu.Unlock()
	if ok && now.Sub(e.at) < tuneCacheTTL {
		return e.cfg, nil
	}
	t, err := s.loadTuning(ctx, ns)
	if err != nil {
		return nil, err
	}
	var cfg *mnemo.ScoringConfig
	if t.Active != 0 {
		c := s.configOf(t, t.Active)
		cfg = &c
	}
	s.tuneMu.Lock()
	if s.tuned == nil {
		s.tuned = map[string]tunedEntry{}
	}
	s.tuned[ns] = tunedEntry{cfg: cfg, at: now}
	s.tuneMu.Unlock()
	return cfg, nil
}

type evalKey struct{}

// WithConfig returns a context in which the engine ranks every namespace
// with cfg instead of its active configuration: how a configuration is
// evaluated before it is made a version.
func WithConfig(ctx context.Context, cfg mnemo.ScoringConfig) context.Context {
	c := cfg.Clone()
	return context.WithValue(ctx, evalKey{}, &c)
}

// RankConfig is what one ranking takes from the namespace's configuration
// beyond the base weights: the preset with the half-lives and floor
// applied, the weights of each intent, the candidate count, the relevance
// floor and the near-duplicate threshold.
type RankConfig struct {
	Preset         score.Preset
	Candidates     int
	MinRelevance   *float64
	ScoreRatio     float64 // a digest's min_score_ratio unless the request sets one
	DedupThreshold float64
	cfg            *mnemo.ScoringConfig
	override       bool
}

// Weights returns the weights of intent i: the configuration's own when it
// names them, else the preset's rule.
func (rc RankConfig) Weights(i score.Intent) mnemo.Weights {
	if rc.cfg != nil && !rc.override {
		return rc.cfg.ForIntent(string(i))
	}
	return rc.Preset.ForIntent(i)
}

// rankConfig is the read path's hook: for a ranking of the default preset
// in namespace ns it applies the active configuration (or the one under
// evaluation) to p and returns the values the ranking reads; minRel, the
// request's own relevance floor, wins over the configuration's. With
// override set (explicit weights) only the weights stay as given. Other
// presets are returned as they are.
func (s *Service) rankConfig(ctx context.Context, ns string, p score.Preset, override *mnemo.Weights, minRel *float64) (RankConfig, error) {
	rc := RankConfig{Preset: p, Candidates: s.candN, MinRelevance: minRel, ScoreRatio: DefaultScoreRatio, DedupThreshold: nearDuplicate, override: override != nil}
	if override != nil {
		rc.Preset.Weights = *override
	}
	if p.Name != score.PresetDefault {
		return rc, nil
	}
	cfg, err := s.activeConfig(ctx, ns)
	if err != nil || cfg == nil {
		return rc, err
	}
	applyConfig(*cfg, &rc.Preset)
	if override != nil {
		rc.Preset.Weights = *override
	}
	rc.cfg = cfg
	if cfg.Candidates > 0 {
		rc.Candidates = cfg.Candidates
	}
	if minRel == nil && cfg.MinRelevance != nil {
		v := *cfg.MinRelevance
		rc.MinRelevance = &v
	}
	if cfg.DedupThreshold > 0 {
		rc.DedupThreshold = cfg.DedupThreshold
	}
	if cfg.ScoreRatio != nil {
		rc.ScoreRatio = *cfg.ScoreRatio
	}
	return rc, nil
}

// ProbeAnswer is how the read path answers one probe.
type ProbeAnswer struct {
	TopK     []string      // ids of the k best records, near-duplicates dropped
	InBudget []string      // ids the digest's greedy fill places within the budget
	Latency  time.Duration // time to rank
}

// AnswerProbe ranks a query as recall and digest do, in the namespace and
// with the clearance of the caller, without logging a retrieval or
// counting an access (a probe is not a use of memory): the k best records
// and the records a digest of the budget would hold. Errors: EINVALID for
// an empty or oversized query.
func (s *Service) AnswerProbe(ctx context.Context, query string, k, budget int) (*ProbeAnswer, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rk, err := s.rankWith(ctx, sc, query, mnemo.Filter{}, score.PresetDefault, "", false, nil, nil)
	if err != nil {
		return nil, err
	}
	a := &ProbeAnswer{}
	dd := dedup{threshold: rk.dedup}
	for _, h := range rk.hits {
		if len(dd.kept) == k {
			break
		}
		if !dd.dup(h) {
			dd.add(h)
			a.TopK = append(a.TopK, h.ID)
		}
	}
	// The digest's fill: title, then entries by rank, a section header
	// when a section opens; near-duplicates skipped.
	left := budget - s.count("# Context for: "+truncate(oneLine(query), 200)+"\n") - s.countCached("_"+fmt.Sprint(len(rk.hits))+" more candidates left out to fit "+fmt.Sprint(budget)+" tokens._\n")
	opened := map[string]bool{}
	var fill dedup
	for _, h := range rk.hits {
		if left <= 0 {
			break
		}
		if fill.dup(h) {
			continue
		}
		r := h.Record
		sec := sectionTitle[r.Layer]
		tok := r.Tokens
		if tok <= 0 {
			tok = s.count(entryBody(r))
		}
		cost := s.countCached(scorePrefix(h.Score)) + tok
		if !opened[sec] {
			cost += s.countCached(sec)
		}
		if cost > left {
			continue
		}
		left -= cost
		opened[sec] = true
		fill.add(h)
		a.InBudget = append(a.InBudget, h.ID)
	}
	a.Latency = time.Since(start)
	return a, nil
}

// Now returns the engine's time (Config.Now): what "today" and ages mean
// on its read path.
func (s *Service) Now() time.Time { return s.now() }
