package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// Keyword returns up to n live ids of the namespace ranked by BM25 for a
// free-text query. The query is never parsed as query syntax: its word
// tokens (queryTokens) are OR-ed. It scores in memory (see bm25.go); with
// Options.FTSKeyword it asks FTS5 instead.
func (s *Store) Keyword(ctx context.Context, sc mnemo.Scope, query string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if err := memindex.LiveOnly(f); err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	if n <= 0 {
		return nil, nil
	}
	tokens := queryTokens(query)
	if len(tokens) == 0 {
		return nil, nil
	}
	if s.ftsKeyword {
		return s.keywordFTS(ctx, sc, tokens, f, n)
	}
	terms := memindex.Terms(tokens, maxQueryTokens)
	if len(terms) == 0 {
		return nil, nil
	}
	var hits []mnemo.Hit
	err := s.withCheckedIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		hits = idx.Keyword(terms, pruneBudget, s.compile(ctx, sc, f), n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	return hits, nil
}

// keywordFTS is Keyword on the FTS5 table: the fallback, and the reference
// the in-memory BM25 is tested against.
func (s *Store) keywordFTS(ctx context.Context, sc mnemo.Scope, tokens []string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	tokens, err := s.prune(ctx, tokens)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	expr := orExpr(tokens)
	var hits []mnemo.Hit
	err = s.withIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		c := s.compile(ctx, sc, f)
		// Ask FTS5 for a bounded top list first (it keeps a small heap
		// instead of sorting every match); only when the filters reject
		// too many of those does the query run again unbounded.
		limit := 4*n + 64
		var full bool
		var err error
		hits, full, err = s.keywordRows(ctx, idx, c, expr, n, limit)
		if err == nil && len(hits) < n && !full {
			hits, _, err = s.keywordRows(ctx, idx, c, expr, n, -1)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: keyword: %w", err)
	}
	return hits, nil
}

// keywordRows runs the MATCH with an optional row limit (-1 for none) and
// keeps up to n rows that pass the filters. full reports whether the match
// list was read to its end.
func (s *Store) keywordRows(ctx context.Context, idx *memindex.Namespace[int64], c *memindex.Cond, expr string, n, limit int) (hits []mnemo.Hit, full bool, err error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT rowid, rank FROM records_fts WHERE records_fts MATCH ? ORDER BY rank LIMIT ?`, expr, limit)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	read := 0
	for rows.Next() {
		read++
		var rowid int64
		var rank float64
		if err := rows.Scan(&rowid, &rank); err != nil {
			return nil, false, err
		}
		id, ok := idx.Match(rowid, c)
		if !ok {
			continue
		}
		hits = append(hits, mnemo.Hit{ID: id, Score: -rank})
		if len(hits) == n {
			return hits, false, rows.Err()
		}
	}
	return hits, limit < 0 || read < limit, rows.Err()
}

// FloorQuery is the bare FTS5 baseline for benchmarks: the sanitised MATCH
// ranked by BM25, limited to the namespace, with no other filter.
func (s *Store) FloorQuery(ctx context.Context, namespace, query string, n int) ([]mnemo.Hit, error) {
	expr := matchExpr(query)
	if expr == "" || n <= 0 {
		return nil, nil
	}
	if err := s.ensureFTS(ctx); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT r.id, bm25(records_fts) FROM records_fts
		JOIN records r ON r.rowid = records_fts.rowid
		WHERE records_fts MATCH ? AND r.namespace = ? ORDER BY bm25(records_fts) LIMIT ?`, expr, namespace, n)
	if err != nil {
		return nil, fmt.Errorf("sqlite: floor query: %w", err)
	}
	defer rows.Close()
	var hits []mnemo.Hit
	for rows.Next() {
		var h mnemo.Hit
		if err := rows.Scan(&h.ID, &h.Score); err != nil {
			return nil, fmt.Errorf("sqlite: floor query: %w", err)
		}
		h.Score = -h.Score
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: floor query: %w", err)
	}
	return hits, nil
}

// maxQueryTokens caps the terms of a keyword query.
const maxQueryTokens = memindex.MaxQueryTokens

// matchExpr turns any text into a safe FTS5 MATCH expression: the word
// tokens of queryTokens, each double-quoted, OR-ed together. It returns ""
// when the text holds no word.
func matchExpr(q string) string { return orExpr(queryTokens(q)) }

// orExpr quotes each token and joins them with OR.
func orExpr(tokens []string) string {
	q := make([]string, len(tokens))
	for i, w := range tokens {
		q[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(q, " OR ")
}

// pruneBudget bounds the postings a keyword query visits: the most common
// terms are dropped until the document frequencies of the remaining ones
// sum to at most this (the rarest term is always kept).
var pruneBudget int64 = 5000

// prune drops the most common tokens of a query, which cost the most to
// score and contribute the least to BM25 (their IDF is the lowest). Terms
// the index does not hold as such (diacritics are folded there) count as
// rare. It serves the FTS5 path; the in-memory path prunes with the
// document frequencies it holds (memindex.Namespace.Keyword).
func (s *Store) prune(ctx context.Context, tokens []string) ([]string, error) {
	if len(tokens) < 2 {
		return tokens, nil
	}
	type tf struct {
		w  string
		df int64
	}
	tfs := make([]tf, len(tokens))
	total := int64(0)
	for i, w := range tokens {
		var df int64
		err := s.rdb.QueryRowContext(ctx, `SELECT doc FROM records_fts_vocab WHERE term = ?`, w).Scan(&df)
		if err != nil && err != sql.ErrNoRows {
			return nil, err
		}
		tfs[i] = tf{w, df}
		total += df
	}
	if total <= pruneBudget {
		return tokens, nil
	}
	sort.SliceStable(tfs, func(i, j int) bool { return tfs[i].df < tfs[j].df })
	kept := []string{tfs[0].w}
	sum := tfs[0].df
	for _, t := range tfs[1:] {
		if sum+t.df > pruneBudget {
			break
		}
		sum += t.df
		kept = append(kept, t.w)
	}
	return kept, nil
}

// queryTokens extracts the word tokens of any text (memindex.QueryTokens).
func queryTokens(q string) []string { return memindex.QueryTokens(q) }

// Vector returns up to n live ids of the namespace ranked by cosine
// similarity to v. Records without a vector of v's dimension are skipped.
func (s *Store) Vector(ctx context.Context, sc mnemo.Scope, v []float32, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	return s.vector(ctx, sc, v, f, n, true)
}

// vector is Vector, whose candidates are rescored from the float32
// vectors when exact is set and scored from the int8 codes otherwise
// (VectorCodes).
func (s *Store) vector(ctx context.Context, sc mnemo.Scope, v []float32, f mnemo.Filter, n int, exact bool) ([]mnemo.Hit, error) {
	if err := memindex.LiveOnly(f); err != nil {
		return nil, fmt.Errorf("sqlite: vector: %w", err)
	}
	if n <= 0 {
		return nil, nil
	}
	q, err := memindex.Normalize(v)
	if err != nil {
		return nil, fmt.Errorf("sqlite: vector: %w", err)
	}
	if q == nil {
		return nil, nil
	}
	var hits []mnemo.Hit
	err = s.withCheckedIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		var ex memindex.Exact
		if exact {
			ex = s.exactVectors(ctx, sc, idx)
		}
		hits = idx.VectorExact(q, s.compile(ctx, sc, f), n, ex)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: vector: %w", err)
	}
	return hits, nil
}

// exactVectors returns the source of the float32 vectors that a vector
// search of namespace ns rescores its final candidates with (the index
// holds them quantised; see memindex.Exact): the record cache's copy of
// the row at the index's version. Rows it lacks are read whole into the
// cache, by the row keys idx holds, since the engine reads the records of
// the hits next (GetMany); a row changed since the index's version is not
// used. It runs under the index's read lock.
func (s *Store) exactVectors(ctx context.Context, sc mnemo.Scope, idx *memindex.Namespace[int64]) memindex.Exact {
	return func(ids []string, seqs []int64) [][]float32 {
		out := make([][]float32, len(ids))
		if s.cache == nil {
			return out // the candidates keep the scores of their codes
		}
		var miss []string
		var keys []int64
		for k, id := range ids {
			if out[k] = s.cache.vector(sc.Namespace, id, seqs[k]); out[k] == nil {
				if key, ok := idx.Key(id); ok {
					miss, keys = append(miss, id), append(keys, key)
				}
			}
		}
		if len(miss) == 0 {
			return out
		}
		if _, err := s.getRows(ctx, sc, miss, keys); err != nil {
			return out
		}
		for k, id := range ids {
			if out[k] == nil {
				out[k] = s.cache.vector(sc.Namespace, id, seqs[k])
			}
		}
		return out
	}
}

// IDF returns the inverse document frequency, over the records of the
// namespace that sc sees, of the stem of each word of text, and the IDF of
// an unseen term.
func (s *Store) IDF(ctx context.Context, sc mnemo.Scope, text string) (map[string]float64, float64, error) {
	return s.IDFTerms(ctx, sc, memindex.Terms(memindex.QueryTokens(text), maxQueryTokens))
}
