package postgres

import (
	"context"
	"sort"
	"sync"
	"time"
)

// pruneBudget bounds the rows a keyword query ranks: the most common terms
// are dropped until the estimated document frequencies of the remaining
// ones sum to at most this (the rarest term is always kept).
var pruneBudget = 5000.0

// statsTTL is how long the term statistics are reused.
const statsTTL = time.Minute

// termStats are the estimated document frequencies of the most common
// lexemes of records.fts, from the planner statistics that ANALYZE (and
// autovacuum) collect for tsvector columns. Lexemes outside that list
// count as rare.
type termStats struct {
	mu sync.Mutex
	at time.Time
	df map[string]float64
}

// loadStats returns the document frequency estimates, re-reading them from
// pg_stats at most once per statsTTL.
func (s *Store) loadStats(ctx context.Context) (map[string]float64, error) {
	st := &s.stats
	st.mu.Lock()
	if st.df != nil && time.Since(st.at) < statsTTL {
		df := st.df
		st.mu.Unlock()
		return df, nil
	}
	st.mu.Unlock()
	var (
		rows  float64
		elems []string
		freqs []float32
	)
	err := s.pool.QueryRow(ctx, `SELECT greatest(c.reltuples, 0)::float8, st.most_common_elems::text::text[], st.most_common_elem_freqs
		FROM pg_class c
		LEFT JOIN pg_stats st ON st.schemaname = c.relnamespace::regnamespace::name AND st.tablename = c.relname AND st.attname = 'fts'
		WHERE c.oid = 'records'::regclass`).Scan(&rows, &elems, &freqs)
	if err != nil {
		return nil, err
	}
	df := make(map[string]float64, len(elems))
	for i, e := range elems {
		if i < len(freqs) { // freqs carries min, max and null fractions after the elements
			df[e] = float64(freqs[i]) * rows
		}
	}
	st.mu.Lock()
	st.df, st.at = df, time.Now()
	st.mu.Unlock()
	return df, nil
}

// prune drops the most common tokens of a query, which cost the most to
// rank and contribute the least (they match most records).
func (s *Store) prune(ctx context.Context, tokens []string) ([]string, error) {
	if len(tokens) < 2 {
		return tokens, nil
	}
	df, err := s.loadStats(ctx)
	if err != nil {
		return nil, err
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
