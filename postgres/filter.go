package postgres

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// The SQL of List, Threads and Keyword is storesql.Filter's, in
// PostgreSQL's dialect.

// where accumulates SQL conditions joined by AND, with numbered parameters.
type where struct {
	conds []string
	args  []any
}

// arg adds a parameter and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

func (w *where) add(cond string) { w.conds = append(w.conds, cond) }

func (w *where) String() string {
	if len(w.conds) == 0 {
		return "true"
	}
	return strings.Join(w.conds, " AND ")
}

// Arg adds a parameter and returns its placeholder (storesql.Conds).
func (w *where) Arg(v any) string { return w.arg(v) }

// Add adds a condition (storesql.Conds).
func (w *where) Add(cond string) { w.add(cond) }

// dialect is PostgreSQL's spelling of a filter's lists, tags and
// references.
var dialect = storesql.Dialect{
	In: func(c storesql.Conds, col string, vals []string) string {
		return col + " = ANY(" + c.Arg(vals) + "::text[])"
	},
	Tags: func(c storesql.Conds, tags []string) []string {
		b, _ := json.Marshal(tags)
		return []string{"tags @> " + c.Arg(string(b)) + "::jsonb"}
	},
	Ref: func(c storesql.Conds, ref string) string {
		b, _ := json.Marshal([]string{ref})
		r := c.Arg(string(b))
		return "(tags @> " + r + "::jsonb OR provenance @> " + r + "::jsonb)"
	},
}

// whereSQL translates the scope and filter into conditions on records
// (storesql.Filter).
func whereSQL(w *where, sc mnemo.Scope, f mnemo.Filter, now time.Time, includeDeleted, includeHistory bool) {
	storesql.Filter(w, dialect, sc, f, now, includeDeleted, includeHistory)
}
