package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/tuning"
)

// The read path's configuration. A namespace's scoring configuration is
// one document (ScoringConfig), kept as versions by package tuning; the
// read path ranks with the active version (cached for tuneCacheTTL), or
// with the one under evaluation (WithConfig). Version 0 is the default
// preset's own configuration (DefaultConfig).

// tuneCacheTTL is how long a namespace's active configuration is cached,
// so that another process's change arrives within it.
const tuneCacheTTL = 30 * time.Second

type tunedEntry struct {
	cfg *mnemo.ScoringConfig
	at  time.Time
}

// configCache keeps each namespace's active configuration for
// tuneCacheTTL.
type configCache struct {
	mu sync.Mutex
	m  map[string]tunedEntry // namespace -> active configuration (nil: version 0)
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
	return tuning.WithGeneral(c, p.Weights)
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
	s.tuned.mu.Lock()
	e, ok := s.tuned.m[ns]
	s.tuned.mu.Unlock()
	if ok && now.Sub(e.at) < tuneCacheTTL {
		return e.cfg, nil
	}
	t, err := tuning.Load(ctx, s.store, ns)
	if err != nil {
		return nil, err
	}
	var cfg *mnemo.ScoringConfig
	if t.Active != 0 {
		c := tuning.ConfigOf(t, t.Active, s.DefaultConfig)
		cfg = &c
	}
	s.tuned.mu.Lock()
	if s.tuned.m == nil {
		s.tuned.m = map[string]tunedEntry{}
	}
	s.tuned.m[ns] = tunedEntry{cfg: cfg, at: now}
	s.tuned.mu.Unlock()
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
	if err := s.fillAll(ctx, rk); err != nil {
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
