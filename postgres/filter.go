package postgres

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// The SQL of List and Keyword follows the filter semantics of package
// memindex, whose predicate serves Vector (the conformance suite checks
// that they agree).

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

// whereSQL translates the scope and filter into conditions on records.
func whereSQL(w *where, sc mnemo.Scope, f mnemo.Filter, now time.Time, includeDeleted, includeHistory bool) {
	w.add("namespace = " + w.arg(sc.Namespace))
	w.add("access_level <= " + w.arg(sc.Clearance))
	if !includeDeleted {
		w.add("deleted_at IS NULL")
	}
	if !includeHistory {
		t := now
		if f.AsOf != nil {
			t = *f.AsOf
		}
		at := w.arg(t.UnixNano())
		w.add("(valid_from IS NULL OR valid_from <= " + at + ")")
		w.add("(valid_to IS NULL OR valid_to > " + at + ")")
	}
	if len(f.Layers) > 0 {
		vals := make([]string, len(f.Layers))
		for i, l := range f.Layers {
			vals[i] = string(l)
		}
		w.add("layer = ANY(" + w.arg(vals) + "::text[])")
	}
	if len(f.Kinds) > 0 {
		vals := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			vals[i] = string(k)
		}
		w.add("kind = ANY(" + w.arg(vals) + "::text[])")
	}
	if p := memindex.ScopePrefix(f.ScopePrefix); p != "" {
		// Byte-wise range (scope has the "C" collation): every string that
		// starts with p+"/" sorts in [p+"/", p+"0") because '0' follows '/'.
		w.add("(scope = " + w.arg(p) + " OR (scope >= " + w.arg(p+"/") + " AND scope < " + w.arg(p+"0") + "))")
	}
	if f.Component != "" {
		w.add("component = " + w.arg(f.Component))
	}
	if f.Mission != "" {
		w.add("mission = " + w.arg(f.Mission))
	}
	if f.Thread != "" {
		w.add("thread = " + w.arg(f.Thread))
	}
	if len(f.Tags) > 0 {
		b, _ := json.Marshal(f.Tags)
		w.add("tags @> " + w.arg(string(b)) + "::jsonb")
	}
	if f.MinCriticality > 0 {
		w.add("criticality >= " + w.arg(f.MinCriticality))
	}
	if f.Since != nil {
		w.add("created_at >= " + w.arg(f.Since.UnixNano()))
	}
	if f.Until != nil {
		w.add("created_at < " + w.arg(f.Until.UnixNano()))
	}
	if f.Outcome != "" {
		w.add("outcome = " + w.arg(f.Outcome))
	}
	if f.Operator != "" {
		b, _ := json.Marshal([]string{mnemo.OperatorRef + f.Operator})
		ref := w.arg(string(b))
		w.add("(tags @> " + ref + "::jsonb OR provenance @> " + ref + "::jsonb)")
	}
}
