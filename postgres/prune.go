package postgres

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// pruneBudget bounds the rows a keyword query ranks: the most common terms
// are dropped until the document frequencies of the remaining ones sum to
// at most this (the rarest term is always kept).
var pruneBudget = 5000.0

// dfTTL is how long a counted document frequency is reused.
const dfTTL = time.Minute

// dfCacheMax bounds the counts kept; the cache starts over beyond it.
const dfCacheMax = 50000

// dfKey names a count: a token among the records of a namespace at or
// below a clearance.
type dfKey struct {
	ns        string
	clearance int
	token     string
}

type dfCount struct {
	n  float64
	at time.Time
}

// dfCache holds recent counts of visible records per token. A count holds
// only records its clearance sees, so reusing it reveals nothing hidden.
type dfCache struct {
	mu sync.Mutex
	m  map[dfKey]dfCount
}

// prune drops the most common tokens of a query, which cost the most to
// rank and contribute the least (they match most records). The document
// frequencies it compares count only the records of the namespace that sc
// sees (access level <= clearance), capped just above the budget, so which
// tokens are kept never depends on hidden records or on other namespaces,
// and counting stops early for a common token. Counts are reused for
// dfTTL.
func (s *Store) prune(ctx context.Context, sc mnemo.Scope, tokens []string) ([]string, error) {
	if len(tokens) < 2 {
		return tokens, nil
	}
	now := time.Now()
	df := make(map[string]float64, len(tokens))
	var missing []string
	prunedDF := &s.df
	prunedDF.mu.Lock()
	for _, t := range tokens {
		if c, ok := prunedDF.m[dfKey{sc.Namespace, sc.Clearance, t}]; ok && now.Sub(c.at) < dfTTL {
			df[t] = c.n
		} else {
			missing = append(missing, t)
		}
	}
	prunedDF.mu.Unlock()
	if len(missing) > 0 {
		w := &where{}
		ns, cl, limit := w.arg(sc.Namespace), w.arg(sc.Clearance), w.arg(int64(pruneBudget)+1)
		parts := make([]string, len(missing))
		for i, t := range missing {
			parts[i] = `(SELECT count(*) FROM (SELECT 1 FROM records WHERE namespace = ` + ns + ` AND access_level <= ` + cl +
				` AND fts @@ plainto_tsquery('mnemo', ` + w.arg(t) + `) LIMIT ` + limit + `) m)::float8`
		}
		counts := make([]float64, len(missing))
		dest := make([]any, len(missing))
		for i := range counts {
			dest[i] = &counts[i]
		}
		if err := s.pool.QueryRow(ctx, `SELECT `+strings.Join(parts, ", "), w.args...).Scan(dest...); err != nil {
			return nil, err
		}
		prunedDF.mu.Lock()
		if prunedDF.m == nil || len(prunedDF.m)+len(missing) > dfCacheMax {
			prunedDF.m = make(map[dfKey]dfCount, len(missing))
		}
		for i, t := range missing {
			df[t] = counts[i]
			prunedDF.m[dfKey{sc.Namespace, sc.Clearance, t}] = dfCount{counts[i], now}
		}
		prunedDF.mu.Unlock()
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
