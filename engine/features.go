package engine

import (
	"context"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/corrections"
	"github.com/mnemo-dev/mnemo/handoff"
)

// The features built beside the engine, each in a package of its own over
// the store and the root contract: the service answers their part of
// mnemo.Service by handing them what they read.

// Handoff builds the brief for an incoming operator of a namespace
// (package handoff). Errors: EINVALID for a bad budget or period.
func (s *Service) Handoff(ctx context.Context, req mnemo.HandoffRequest) (*mnemo.Handoff, error) {
	return handoff.Build(ctx, handoff.Source{Store: s.store, Tokenizer: s.tok, Now: s.now, MaxBudget: MaxTokenBudget}, req)
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
