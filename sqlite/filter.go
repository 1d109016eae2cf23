package sqlite

import (
	"math"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Filter semantics, shared by the SQL of List and the in-memory predicate
// of Keyword and Vector (tests check that they agree):
//
//   - namespace equal, access_level <= clearance;
//   - deleted records hidden unless IncludeDeleted (List only);
//   - validity: valid_from <= t < valid_to with t = AsOf or now, unless
//     IncludeHistory (List only), which drops the validity constraint;
//   - Layers, Kinds: membership; Component, Mission, Outcome: equality;
//   - Tags: the record carries every tag;
//   - ScopePrefix: path prefix: "/a" matches "/a" and "/a/b" but not "/ab";
//     "" and "/" match everything;
//   - MinCriticality: criticality >= it; Since <= created_at < Until.

// scopePrefix normalises a ScopePrefix; "" means no constraint.
func scopePrefix(p string) string {
	return strings.TrimRight(p, "/")
}

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
	if p := scopePrefix(f.ScopePrefix); p != "" {
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
	return w
}

// entry is what the in-memory index keeps of a record: its filter fields
// and where its vector lives.
type entry struct {
	rowid       int64
	id          string
	layer       mnemo.Layer
	kind        mnemo.Kind
	scope       string
	component   string
	mission     string
	outcome     string
	tags        []string
	criticality float64
	accessLevel int
	created     int64 // unix nanos; math.MinInt64 when unset
	validFrom   int64 // math.MinInt64 when unset
	validTo     int64 // math.MaxInt64 when unset
	deleted     bool
	off, dim    int   // vector position in the namespace's contiguous slice; dim 0 = none
	sk          int   // sketch position in nsIndex.signs; -1 = none
	seq         int64 // the row's seq: the record cache is valid for this version only
	hash        uint64
	dl          int32 // length in terms
	tOff, tLen  int32 // distinct term ids in keywordIndex.arena
	indexed     bool  // the text is in the keyword index
}

// cond is a compiled Filter for the in-memory predicate.
type cond struct {
	clearance int
	at        int64
	layers    []mnemo.Layer
	kinds     []mnemo.Kind
	prefix    string
	f         mnemo.Filter
	since     int64
	until     int64
}

func compile(sc mnemo.Scope, f mnemo.Filter, now time.Time) *cond {
	c := &cond{clearance: sc.Clearance, at: now.UnixNano(), layers: f.Layers, kinds: f.Kinds,
		prefix: scopePrefix(f.ScopePrefix), f: f, since: math.MinInt64, until: math.MaxInt64}
	if f.AsOf != nil {
		c.at = f.AsOf.UnixNano()
	}
	if f.Since != nil {
		c.since = f.Since.UnixNano()
	}
	if f.Until != nil {
		c.until = f.Until.UnixNano()
	}
	return c
}

// matches reports whether e passes c: the Go twin of whereSQL for live reads
// (deleted excluded, validity at AsOf or now).
func (c *cond) matches(e *entry) bool {
	if e.accessLevel > c.clearance || e.deleted {
		return false
	}
	if e.validFrom > c.at || e.validTo <= c.at {
		return false
	}
	if len(c.layers) > 0 && !contains(c.layers, e.layer) {
		return false
	}
	if len(c.kinds) > 0 && !contains(c.kinds, e.kind) {
		return false
	}
	if c.prefix != "" && e.scope != c.prefix &&
		!(len(e.scope) > len(c.prefix) && e.scope[len(c.prefix)] == '/' && e.scope[:len(c.prefix)] == c.prefix) {
		return false
	}
	if c.f.Component != "" && e.component != c.f.Component {
		return false
	}
	if c.f.Mission != "" && e.mission != c.f.Mission {
		return false
	}
	for _, t := range c.f.Tags {
		if !contains(e.tags, t) {
			return false
		}
	}
	if c.f.MinCriticality > 0 && !(e.criticality >= c.f.MinCriticality) {
		return false
	}
	if c.f.Since != nil && (e.created == math.MinInt64 || e.created < c.since) {
		return false
	}
	if c.f.Until != nil && (e.created == math.MinInt64 || e.created >= c.until) {
		return false
	}
	if c.f.Outcome != "" && e.outcome != c.f.Outcome {
		return false
	}
	return true
}

func contains[T comparable](a []T, x T) bool {
	for _, y := range a {
		if x == y {
			return true
		}
	}
	return false
}
