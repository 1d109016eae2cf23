package engine

import (
	"context"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/corrections"
	"github.com/mnemo-dev/mnemo/episodes"
	"github.com/mnemo-dev/mnemo/handoff"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/tuning"
)

// The features built beside the engine, each in a package of its own over
// the store and the root contract: the service answers their part of
// mnemo.Service by handing them what they read.

// Handoff builds the brief for an incoming operator of a namespace
// (package handoff). Errors: EINVALID for a bad budget or period.
func (s *Service) Handoff(ctx context.Context, req mnemo.HandoffRequest) (*mnemo.Handoff, error) {
	return handoff.Build(ctx, handoff.Source{Store: s.store, Tokenizer: s.tok, Now: s.now, MaxBudget: MaxTokenBudget}, req)
}

// Summarize writes (or rewrites) the episode of a thread within budget
// tokens (package episodes): by the chat model when one is configured, by
// the rules otherwise or when the model fails. Errors: EINVALID for an
// empty thread name or a bad budget, ENOTFOUND when the thread has fewer
// than two records the caller may see.
func (s *Service) Summarize(ctx context.Context, thread string, budget int) (*mnemo.EpisodeResult, error) {
	return episodes.Summarize(ctx, episodes.Source{Store: s.store, Records: s, Tokenizer: s.tok, Embed: s.embedAll,
		Chat: s.chat, Log: s.log}, thread, budget)
}

// Corrections reports the correction signal of a namespace (package
// corrections). Errors: EINVALID for a bad bucket or period.
func (s *Service) Corrections(ctx context.Context, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error) {
	return corrections.Report(ctx, s.correctionSource(), req)
}

// CorrectionTriples calls fn, oldest first, with the (query, retrieved,
// missed) triple of each missing-context correction of the request's
// period linked to a logged retrieval, and returns their number (package
// corrections; administrators only).
func (s *Service) CorrectionTriples(ctx context.Context, req mnemo.CorrectionRequest, fn func(mnemo.CorrectionTriple) error) (int, error) {
	return corrections.Triples(ctx, s.correctionSource(), req, fn)
}

func (s *Service) correctionSource() corrections.Source {
	return corrections.Source{Store: s.store, Now: s.now}
}

// Tune searches the namespace's default-preset weights against its
// correction triples and, unless dryRun, makes an accepted setting the
// active version (package tuning; administrators only).
func (s *Service) Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*mnemo.TuneResult, error) {
	return tuning.Tune(ctx, s.tuningSource(), req, dryRun)
}

// Tuning returns the namespace's tuning history (empty when never tuned).
func (s *Service) Tuning(ctx context.Context) (*mnemo.Tuning, error) {
	return tuning.History(ctx, s.tuningSource())
}

// Rollback makes an earlier tuning version active; version 0 restores the
// preset's own weights (administrators only). Errors: ENOTFOUND for an
// unknown version.
func (s *Service) Rollback(ctx context.Context, version int) (*mnemo.Tuning, error) {
	return tuning.Rollback(ctx, s.tuningSource(), version)
}

// Config returns a version of the namespace's configuration; version < 0
// means the active one. Errors: ENOTFOUND for an unknown version.
func (s *Service) Config(ctx context.Context, version int) (*tuning.ConfigVersion, error) {
	return tuning.Show(ctx, s.tuningSource(), version)
}

// ApplyConfig stores cfg as a new version of the namespace's configuration
// and makes it active (package tuning; administrators only); this process
// ranks with it at once, others within the cache TTL.
func (s *Service) ApplyConfig(ctx context.Context, cfg mnemo.ScoringConfig, ch tuning.ConfigChange) (*tuning.ConfigVersion, error) {
	return tuning.Apply(ctx, s.tuningSource(), cfg, ch)
}

func (s *Service) tuningSource() tuning.Source {
	return tuning.Source{Store: s.store, Now: s.now, Default: s.DefaultConfig, Weights: s.startWeights, Rank: s.rankedIDs, Saved: s.dropTuned}
}

// startWeights returns the general weights of the namespace's active
// configuration (or of the one under evaluation, WithConfig), else the
// default preset's.
func (s *Service) startWeights(ctx context.Context, ns string) (mnemo.Weights, error) {
	cfg, err := s.activeConfig(ctx, ns)
	if err != nil {
		return mnemo.Weights{}, err
	}
	if cfg != nil {
		return cfg.General(), nil
	}
	p, err := s.Preset(score.PresetDefault)
	return p.Weights, err
}

// rankedIDs ranks query with the default preset under weights w, as recall
// does but without logging it, and returns the ids best first,
// near-duplicates dropped.
func (s *Service) rankedIDs(ctx context.Context, sc mnemo.Scope, query string, w mnemo.Weights) ([]string, error) {
	rk, err := s.rankWith(ctx, sc, query, mnemo.Filter{}, score.PresetDefault, "", false, &w, nil)
	if err != nil {
		return nil, err
	}
	if err := s.fillAll(ctx, rk); err != nil {
		return nil, err
	}
	dd := dedup{threshold: rk.dedup}
	var ids []string
	for _, h := range rk.hits {
		if !dd.dup(h) {
			dd.add(h)
			ids = append(ids, h.ID)
		}
	}
	return ids, nil
}

// dropTuned forgets the cached configuration of namespace ns.
func (s *Service) dropTuned(ns string) {
	s.tuned.mu.Lock()
	delete(s.tuned.m, ns)
	s.tuned.mu.Unlock()
}
