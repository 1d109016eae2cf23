package sqlite

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// VectorCodes is Vector scored from the index's int8 codes alone, without
// reading a row for the exact rescoring (mnemo.RankIndex).
func (s *Store) VectorCodes(ctx context.Context, sc mnemo.Scope, v []float32, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	return s.vector(ctx, sc, v, f, n, false)
}

// accessSQL reads the counts the access table keeps apart from the rows
// (Touch) of a JSON list of rowids.
const accessSQL = `SELECT rid, count FROM access WHERE rid IN (SELECT value FROM json_each(?))`

// RankFields returns the ranking fields of the records of ids from the
// namespace's index (mnemo.RankIndex). The access counts add what the
// access table holds for each row, read in one statement, so that they
// are those of a record read from its row.
func (s *Store) RankFields(ctx context.Context, sc mnemo.Scope, ids []string, v []float32) ([]mnemo.RankFields, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	q, err := memindex.Normalize(v)
	if err != nil {
		return nil, fmt.Errorf("sqlite: rank fields: %w", err)
	}
	var out []mnemo.RankFields
	var keys []int64
	err = s.withIndex(ctx, sc.Namespace, func(idx *memindex.Namespace[int64]) error {
		out, keys = idx.RankFields(sc.Namespace, ids, sc.Clearance, q)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: rank fields: %w", err)
	}
	if len(keys) == 0 {
		return out, nil
	}
	list := make([]byte, 0, 12*len(keys))
	list = append(list, '[')
	at := make(map[int64]int, len(keys))
	for i, k := range keys {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, k, 10)
		at[k] = i
	}
	list = append(list, ']')
	rows, err := s.query(ctx, accessSQL, string(list))
	if err != nil {
		return nil, fmt.Errorf("sqlite: rank fields: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rid, n int64
		if err := rows.Scan(&rid, &n); err != nil {
			return nil, fmt.Errorf("sqlite: rank fields: %w", err)
		}
		if i, ok := at[rid]; ok {
			out[i].Record.AccessCount += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: rank fields: %w", err)
	}
	return out, nil
}
