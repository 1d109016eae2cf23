package storesql

import (
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// The SQL of the stores' List, Threads and (PostgreSQL) Keyword follows
// the filter semantics of package memindex, whose predicate serves the
// in-memory channels (the conformance suite checks that they agree). Both
// stores translate a scope and filter with Filter; what their dialects
// spell differently is a Dialect.

// Conds receives a filter's conditions, joined by AND: each store's own
// accumulator of SQL conditions and their parameters.
type Conds interface {
	// Arg adds a parameter and returns its placeholder. Filter asks for
	// one at each place a parameter stands, a value used twice twice
	// (SQLite's placeholders are positional).
	Arg(v any) string
	// Add adds a condition.
	Add(cond string)
}

// Dialect is what the two stores write differently in a filter's SQL.
type Dialect struct {
	// In is the condition that column col holds one of vals.
	In func(c Conds, col string, vals []string) string
	// Tags are the conditions that the record's tags hold every tag.
	Tags func(c Conds, tags []string) []string
	// Ref is the condition that the record's tags or provenance hold ref.
	Ref func(c Conds, ref string) string
}

// Filter adds to c the conditions on records of scope sc and filter f at
// now: the namespace and clearance, live records only unless
// includeDeleted, those valid at now (or f.AsOf) unless includeHistory,
// and each field f sets.
func Filter(c Conds, d Dialect, sc mnemo.Scope, f mnemo.Filter, now time.Time, includeDeleted, includeHistory bool) {
	c.Add("namespace = " + c.Arg(sc.Namespace))
	c.Add("access_level <= " + c.Arg(sc.Clearance))
	if !includeDeleted {
		c.Add("deleted_at IS NULL")
	}
	if !includeHistory {
		t := now
		if f.AsOf != nil {
			t = *f.AsOf
		}
		c.Add("(valid_from IS NULL OR valid_from <= " + c.Arg(t.UnixNano()) + ")")
		c.Add("(valid_to IS NULL OR valid_to > " + c.Arg(t.UnixNano()) + ")")
	}
	if len(f.Layers) > 0 {
		vals := make([]string, len(f.Layers))
		for i, l := range f.Layers {
			vals[i] = string(l)
		}
		c.Add(d.In(c, "layer", vals))
	}
	if len(f.Kinds) > 0 {
		vals := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			vals[i] = string(k)
		}
		c.Add(d.In(c, "kind", vals))
	}
	if p := memindex.ScopePrefix(f.ScopePrefix); p != "" {
		// Byte-wise range (PostgreSQL's scope has the "C" collation):
		// every string that starts with p+"/" sorts in [p+"/", p+"0")
		// because '0' follows '/'.
		c.Add("(scope = " + c.Arg(p) + " OR (scope >= " + c.Arg(p+"/") + " AND scope < " + c.Arg(p+"0") + "))")
	}
	if f.Component != "" {
		c.Add("component = " + c.Arg(f.Component))
	}
	if f.Mission != "" {
		c.Add("mission = " + c.Arg(f.Mission))
	}
	if f.Thread != "" {
		c.Add("thread = " + c.Arg(f.Thread))
	}
	if len(f.Tags) > 0 {
		for _, cond := range d.Tags(c, f.Tags) {
			c.Add(cond)
		}
	}
	if f.MinCriticality > 0 {
		c.Add("criticality >= " + c.Arg(f.MinCriticality))
	}
	if f.Since != nil {
		c.Add("created_at >= " + c.Arg(f.Since.UnixNano()))
	}
	if f.Until != nil {
		c.Add("created_at < " + c.Arg(f.Until.UnixNano()))
	}
	if f.Outcome != "" {
		c.Add("outcome = " + c.Arg(f.Outcome))
	}
	if f.Operator != "" {
		c.Add(d.Ref(c, mnemo.OperatorRef+f.Operator))
	}
}
