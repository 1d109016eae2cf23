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
	idx, err := s.acquire(ctx, sc.Namespace)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword terms: %w", err)
	}
	defer s.idx.mu.RUnlock()
	return idx.Keyword(terms, pruneBudget, memindex.Compile(sc, f, s.now()), n), nil
}

// IDFTerms is IDF for terms already cut as the keyword index cuts them.
func (s *Store) IDFTerms(ctx context.Context, sc mnemo.Scope, terms []string) (map[string]float64, float64, error) {
	idx, err := s.acquire(ctx, sc.Namespace)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: idf terms: %w", err)
	}
	defer s.idx.mu.RUnlock()
	m, unseen := idx.IDF(terms, sc.Clearance)
	return m, unseen, nil
}
