package sqlite

import (
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// The SQL of List follows the filter semantics of package memindex, whose
// predicate serves Keyword and Vector (tests check that they agree).

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

func inList(col string, vals []string) (string, []any) {
	marks := make([]string, len(vals))
	args := make([]any, len(vals))
	for i, v := range vals {
		marks[i], args[i] = "?", v
	}
	return col + " IN (" + strings.Join(marks, ",") + ")", args
}

// whereSQL translates the scope and filter into conditions on records.
func whereSQL(sc mnemo.Scope, f mnemo.Filter, now time.Time, includeDeleted, includeHistory bool) *where {
	w := &where{}
	w.add("namespace = ?", sc.Namespace)
	w.add("access_level <= ?", sc.Clearance)
	if !includeDeleted {
		w.add("deleted_at IS NULL")
	}
	if !includeHistory {
		t := now
		if f.AsOf != nil {
			t = *f.AsOf
		}
		w.add("(valid_from IS NULL OR valid_from <= ?)", t.UnixNano())
		w.add("(valid_to IS NULL OR valid_to > ?)", t.UnixNano())
	}
	if len(f.Layers) > 0 {
		vals := make([]string, len(f.Layers))
		for i, l := range f.Layers {
			vals[i] = string(l)
		}
		c, a := inList("layer", vals)
		w.add(c, a...)
	}
	if len(f.Kinds) > 0 {
		vals := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			vals[i] = string(k)
		}
		c, a := inList("kind", vals)
		w.add(c, a...)
	}
	if p := memindex.ScopePrefix(f.ScopePrefix); p != "" {
		// Byte-wise range: every string that starts with p+"/" sorts in
		// [p+"/", p+"0") because '0' follows '/'.
		w.add("(scope = ? OR (scope >= ? AND scope < ?))", p, p+"/", p+"0")
	}
	if f.Component != "" {
		w.add("component = ?", f.Component)
	}
	if f.Mission != "" {
		w.add("mission = ?", f.Mission)
	}
	if f.Thread != "" {
		w.add("thread = ?", f.Thread)
	}
	for _, tag := range f.Tags {
		w.add("EXISTS (SELECT 1 FROM json_each(records.tags) WHERE value = ?)", tag)
	}
	if f.MinCriticality > 0 {
		w.add("criticality >= ?", f.MinCriticality)
	}
	if f.Since != nil {
		w.add("created_at >= ?", f.Since.UnixNano())
	}
	if f.Until != nil {
		w.add("created_at < ?", f.Until.UnixNano())
	}
	if f.Outcome != "" {
		w.add("outcome = ?", f.Outcome)
	}
	if f.Operator != "" {
		ref := mnemo.OperatorRef + f.Operator
		w.add("(EXISTS (SELECT 1 FROM json_each(records.tags) WHERE value = ?) OR "+
			"EXISTS (SELECT 1 FROM json_each(records.provenance) WHERE value = ?))", ref, ref)
	}
	return w
}
