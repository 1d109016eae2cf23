package sqlite

import (
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/storesql"
)

// The SQL of List and Threads is storesql.Filter's, in SQLite's dialect.

// where accumulates SQL conditions joined by AND.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return "1"
	}
	return strings.Join(w.conds, " AND ")
}

// Arg adds a parameter and returns its placeholder (storesql.Conds).
func (w *where) Arg(v any) string {
	w.args = append(w.args, v)
	return "?"
}

// Add adds a condition (storesql.Conds).
func (w *where) Add(cond string) { w.conds = append(w.conds, cond) }

// dialect is SQLite's spelling of a filter's lists, tags and references.
var dialect = storesql.Dialect{
	In: func(c storesql.Conds, col string, vals []string) string {
		marks := make([]string, len(vals))
		for i, v := range vals {
			marks[i] = c.Arg(v)
		}
		return col + " IN (" + strings.Join(marks, ",") + ")"
	},
	Tags: func(c storesql.Conds, tags []string) []string {
		conds := make([]string, len(tags))
		for i, tag := range tags {
			conds[i] = "EXISTS (SELECT 1 FROM json_each(records.tags) WHERE value = " + c.Arg(tag) + ")"
		}
		return conds
	},
	Ref: func(c storesql.Conds, ref string) string {
		return "(EXISTS (SELECT 1 FROM json_each(records.tags) WHERE value = " + c.Arg(ref) + ") OR " +
			"EXISTS (SELECT 1 FROM json_each(records.provenance) WHERE value = " + c.Arg(ref) + "))"
	},
}

// whereSQL translates the scope and filter into conditions on records
// (storesql.Filter).
func whereSQL(sc mnemo.Scope, f mnemo.Filter, now time.Time, includeDeleted, includeHistory bool) *where {
	w := &where{}
	storesql.Filter(w, dialect, sc, f, now, includeDeleted, includeHistory)
	return w
}
