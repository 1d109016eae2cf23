package postgres

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Filter semantics, shared by the SQL of List and Keyword and the in-memory
// predicate of Vector (the conformance suite checks that they agree):
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
	if p := scopePrefix(f.ScopePrefix); p != "" {
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
}

// entry is what the in-memory index keeps of a record: its filter fields
// and where its vector lives.
type entry struct {
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
	off, dim    int // vector position in the namespace's contiguous slice; dim 0 = none
}

// cond is a compiled Filter for the in-memory predicate.
type cond struct {
	clearance int
	at        int64
	prefix    string
	f         mnemo.Filter
	since     int64
	until     int64
}

func compile(sc mnemo.Scope, f mnemo.Filter, now time.Time) *cond {
	c := &cond{clearance: sc.Clearance, at: now.UnixNano(), prefix: scopePrefix(f.ScopePrefix), f: f,
		since: math.MinInt64, until: math.MaxInt64}
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
	if len(c.f.Layers) > 0 && !contains(c.f.Layers, e.layer) {
		return false
	}
	if len(c.f.Kinds) > 0 && !contains(c.f.Kinds, e.kind) {
		return false
	}
	if c.prefix != "" && e.scope != c.prefix && !strings.HasPrefix(e.scope, c.prefix+"/") {
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
