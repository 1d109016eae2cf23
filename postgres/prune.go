package postgres

import (
	"context"
	"sort"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// pruneBudget bounds the rows a keyword query ranks: the most common terms
// are dropped until the document frequencies of the remaining ones sum to
// at most this (the rarest term is always kept).
var pruneBudget = 5000.0

// prune drops the most common tokens of a query, which cost the most to
// rank and contribute the least (they match most records). The document
// frequencies it compares count only the records of the namespace that sc
// sees (access level <= clearance), capped just above the budget, so which
// tokens are kept never depends on hidden records or on other namespaces,
// and counting stops early for a common token.
func (s *Store) prune(ctx context.Context, sc mnemo.Scope, tokens []string) ([]string, error) {
	if len(tokens) < 2 {
		return tokens, nil
	}
	w := &where{}
	ns, cl, limit := w.arg(sc.Namespace), w.arg(sc.Clearance), w.arg(int64(pruneBudget)+1)
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = `(SELECT count(*) FROM (SELECT 1 FROM records WHERE namespace = ` + ns + ` AND access_level <= ` + cl +
			` AND fts @@ plainto_tsquery('mnemo', ` + w.arg(t) + `) LIMIT ` + limit + `) m)::float8`
	}
	counts := make([]float64, len(tokens))
	dest := make([]any, len(tokens))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := s.pool.QueryRow(ctx, `SELECT `+strings.Join(parts, ", "), w.args...).Scan(dest...); err != nil {
		return nil, err
	}
	df := make(map[string]float64, len(tokens))
	for i, t := range tokens {
		df[t] = counts[i]
	}
	return pruneTokens(tokens, df, pruneBudget), nil
}

// pruneTokens keeps the rarest tokens whose frequencies fit the budget.
func pruneTokens(tokens []string, df map[string]float64, budget float64) []string {
	total := 0.0
	for _, w := range tokens {
		total += df[w]
	}
	if total <= budget {
		return tokens
	}
	sorted := append([]string(nil), tokens...)
	sort.SliceStable(sorted, func(i, j int) bool { return df[sorted[i]] < df[sorted[j]] })
	kept := []string{sorted[0]}
	sum := df[sorted[0]]
	for _, w := range sorted[1:] {
		if sum+df[w] > budget {
			break
		}
		sum += df[w]
		kept = append(kept, w)
	}
	return kept
}
