package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/memindex"
)

// Keyword returns up to n live ids of the namespace ranked by ts_rank_cd
// for a free-text query. The query is never parsed as query syntax: it is
// cut into word tokens in Go (see queryTokens), each passed as a separate
// parameter.
func (s *Store) Keyword(ctx context.Context, sc mnemo.Scope, query string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if err := memindex.LiveOnly(f); err != nil {
		return nil, fmt.Errorf("postgres: keyword: %w", err)
	}
	if n <= 0 || !textOK(sc.Namespace) {
		return nil, nil
	}
	tokens := queryTokens(query)
	if len(tokens) == 0 {
		return nil, nil
	}
	tokens, err := s.prune(ctx, sc, tokens)
	if err != nil {
		return nil, fmt.Errorf("postgres: keyword: %w", err)
	}
	w := &where{}
	tsq := tsquery(w, tokens)
	whereSQL(w, sc, f, s.now(), false, false)
	q := `WITH tq AS MATERIALIZED (SELECT ` + tsq + ` AS q)
		SELECT id, ts_rank_cd(fts, tq.q, 32) AS rank FROM records, tq WHERE fts @@ tq.q
		AND ` + w.String() + ` ORDER BY rank DESC, id DESC LIMIT ` + w.arg(n)
	hits, err := s.hits(ctx, q, w.args)
	if err != nil {
		return nil, fmt.Errorf("postgres: keyword: %w", err)
	}
	return hits, nil
}

// FloorQuery is the bare full-text baseline for benchmarks: the sanitised
// query ranked by ts_rank_cd, limited to the namespace, with no other
// filter.
func (s *Store) FloorQuery(ctx context.Context, namespace, query string, n int) ([]mnemo.Hit, error) {
	tokens := queryTokens(query)
	if len(tokens) == 0 || n <= 0 || !textOK(namespace) {
		return nil, nil
	}
	w := &where{}
	tsq := tsquery(w, tokens)
	q := `WITH tq AS MATERIALIZED (SELECT ` + tsq + ` AS q)
		SELECT id, ts_rank_cd(fts, tq.q, 32) AS rank FROM records, tq WHERE fts @@ tq.q
		AND namespace = ` + w.arg(namespace) + ` ORDER BY rank DESC, id DESC LIMIT ` + w.arg(n)
	hits, err := s.hits(ctx, q, w.args)
	if err != nil {
		return nil, fmt.Errorf("postgres: floor query: %w", err)
	}
	return hits, nil
}

// hits runs a query returning (id, score) rows.
func (s *Store) hits(ctx context.Context, q string, args []any) ([]mnemo.Hit, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []mnemo.Hit
	for rows.Next() {
		var h mnemo.Hit
		var rank float32
		if err := rows.Scan(&h.ID, &rank); err != nil {
			return nil, err
		}
		h.Score = float64(rank)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// tsquery returns the SQL of the OR of the tokens, each normalised by the
// mnemo configuration (unaccent, lower case) as its own parameter. Tokens
// hold only letters, digits and marks, so plainto_tsquery sees no operator.
// Callers evaluate it once in a MATERIALIZED CTE: inline, a generic plan
// re-evaluates it for every row it rechecks.
func tsquery(w *where, tokens []string) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = "plainto_tsquery('mnemo', " + w.arg(t) + ")"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// maxDocWords caps the bytes of a record's indexed words, well under the
// 1 MB limit of a tsvector.
const maxDocWords = 256 << 10

// docWords returns the word tokens of a record's text joined by spaces:
// what the fts column indexes.
func docWords(text string) string {
	var b strings.Builder
	words.Each(text, func(w string) bool {
		w = words.Stem(words.Fold(w))
		if b.Len()+len(w)+1 > maxDocWords {
			return false
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		return true
	})
	return b.String()
}

// queryTokens returns the query's word tokens (memindex.QueryTokens) as
// folded stems.
func queryTokens(q string) []string {
	out := memindex.QueryTokens(q)
	// The fts column holds folded stems (docWords): so must the query.
	stems := out[:0:0]
	seenStem := make(map[string]bool, len(out))
	for _, w := range out {
		if st := words.Stem(words.Fold(w)); !seenStem[st] {
			seenStem[st] = true
			stems = append(stems, st)
		}
	}
	return stems
}

// Vector returns up to n live ids of the namespace ranked by cosine
// similarity to v. Records without a vector of v's dimension are skipped.
func (s *Store) Vector(ctx context.Context, sc mnemo.Scope, v []float32, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if err := memindex.LiveOnly(f); err != nil {
		return nil, fmt.Errorf("postgres: vector: %w", err)
	}
	if n <= 0 {
		return nil, nil
	}
	q, err := memindex.Normalize(v)
	if err != nil {
		return nil, fmt.Errorf("postgres: vector: %w", err)
	}
	if q == nil || !textOK(sc.Namespace) {
		return nil, nil
	}
	var hits []mnemo.Hit
	err = s.withIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[string]) error {
		hits = idx.VectorExact(q, memindex.Compile(sc, f, s.now()), n, s.exactVectors(ctx, sc.Namespace))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: vector: %w", err)
	}
	return hits, nil
}

// exactVectors returns the source of the float32 vectors that a vector
// search of namespace ns rescores its final candidates with (the index
// holds them quantised; see memindex.Exact): the rows' as they are now,
// one query for all of them. It runs under the index's read lock.
func (s *Store) exactVectors(ctx context.Context, ns string) memindex.Exact {
	return func(ids []string, _ []int64) [][]float32 {
		out := make([][]float32, len(ids))
		at := make(map[string]int, len(ids))
		for k, id := range ids {
			at[id] = k
		}
		rows, err := s.pool.Query(ctx, `SELECT id, embedding FROM records WHERE namespace = $1 AND id = ANY($2::text[])`, ns, validIDs(ids))
		if err != nil {
			return out // the candidates keep the scores of their codes
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var emb []byte
			if rows.Scan(&id, &emb) != nil {
				break
			}
			if k, ok := at[id]; ok {
				out[k] = storesql.DecodeVector(emb)
			}
		}
		return out
	}
}

// NextInThread returns the record that follows each of ids in its thread
// among those sc and f see, from the namespace's index, which keeps every
// thread's order (mnemo.ThreadFollower).
func (s *Store) NextInThread(ctx context.Context, sc mnemo.Scope, f mnemo.Filter, ids []string) (map[string]string, error) {
	if !textOK(sc.Namespace) {
		return map[string]string{}, nil
	}
	var out map[string]string
	err := s.withIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[string]) error {
		out = idx.NextOf(ids, memindex.Compile(sc, f, s.now()))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: next in thread: %w", err)
	}
	return out, nil
}
