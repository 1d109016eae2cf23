package sqlite

import (
	"context"
	"fmt"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// KeywordTerms is Keyword for terms already cut as the keyword index cuts
// them (memindex.Terms): the related terms of a query expansion, which a
// second cutting would change. The FTS5 fallback, which does not stem,
// finds nothing for them.
func (s *Store) KeywordTerms(ctx context.Context, sc mnemo.Scope, terms []string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if err := memindex.LiveOnly(f); err != nil {
		return nil, fmt.Errorf("sqlite: keyword terms: %w", err)
	}
	if n <= 0 || len(terms) == 0 || s.ftsKeyword {
		return nil, nil
	}
	if len(terms) > maxQueryTokens {
		terms = terms[:maxQueryTokens]
	}
	var hits []mnemo.Hit
	err := s.withCheckedIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		hits = idx.Keyword(terms, pruneBudget, s.compile(ctx, sc, f), n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword terms: %w", err)
	}
	return hits, nil
}

// IDFTerms is IDF for terms already cut as the keyword index cuts them.
func (s *Store) IDFTerms(ctx context.Context, sc mnemo.Scope, terms []string) (map[string]float64, float64, error) {
	var m map[string]float64
	var unseen float64
	err := s.withCheckedIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		m, unseen = idx.IDF(terms, sc.Clearance)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: idf terms: %w", err)
	}
	return m, unseen, nil
}

// RecordTerms returns the distinct index terms of the records of ids that
// sc sees, from the namespace's keyword index (mnemo.RecordTermer).
func (s *Store) RecordTerms(ctx context.Context, sc mnemo.Scope, ids []string) (map[string][]string, error) {
	out := make(map[string][]string, len(ids))
	err := s.withCheckedIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		clear(out)
		for _, id := range ids {
			if ts, ok := idx.TermsOf(id, sc.Clearance); ok {
				out[id] = ts
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: record terms: %w", err)
	}
	return out, nil
}

// NextInThread returns the record that follows each of ids in its thread
// among those sc and f see, from the namespace's index
// (mnemo.ThreadFollower).
func (s *Store) NextInThread(ctx context.Context, sc mnemo.Scope, f mnemo.Filter, ids []string) (map[string]string, error) {
	var out map[string]string
	c := s.compile(ctx, sc, f)
	err := s.withIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		out = idx.NextOf(ids, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: next in thread: %w", err)
	}
	return out, nil
}
