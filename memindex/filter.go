// Package memindex is the in-memory search index the stores keep beside
// their database: per namespace, the filter fields of every record, its
// normalised vector (searched exactly, or through sign sketches with exact
// rescoring once the namespace is large) and an inverted index of its text
// ranked by BM25. It knows no database: a store reads the rows and feeds
// them in, and answers its searches from here.
package memindex

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Filter semantics, which the stores' SQL (List, and keyword search where
// the database ranks) and the in-memory predicate share (the conformance
// suite checks that they agree):
//
//   - namespace equal, access_level <= clearance;
//   - deleted records hidden unless IncludeDeleted (List only);
//   - validity: valid_from <= t < valid_to with t = AsOf or now, unless
//     IncludeHistory (List only), which drops the validity constraint;
//   - Layers, Kinds: membership; Component, Mission, Thread, Outcome:
//     equality;
//   - Tags: the record carries every tag;
//   - ScopePrefix: path prefix: "/a" matches "/a" and "/a/b" but not "/ab";
//     "" and "/" match everything;
//   - MinCriticality: criticality >= it; Since <= created_at < Until;
//   - Operator: the record's operators (mnemo.Operators of its tags and
//     provenance) hold the name;
//   - AsKnownAt is not the index's: it is answered from the revisions
//     (ListKnownAt); Compile ignores it.

// ScopePrefix normalises a ScopePrefix; "" means no constraint.
func ScopePrefix(p string) string {
	return strings.TrimRight(p, "/")
}

// Entry is what the index keeps of a record: its filter fields, its row
// version and where its vector and terms live.
type Entry struct {
	ID          string
	Layer       mnemo.Layer
	Kind        mnemo.Kind
	Scope       string
	Component   string
	Mission     string
	Thread      string
	Outcome     string
	Tags        []string
	Operators   []string // mnemo.Operators of the record's tags and provenance
	Criticality float64
	AccessLevel int
	Created     int64 // unix nanos; math.MinInt64 when unset
	ValidFrom   int64 // math.MinInt64 when unset
	ValidTo     int64 // math.MaxInt64 when unset
	Deleted     bool
	// Seq is the row's change stamp: what a record cache keyed on it is
	// valid for; -1 once the row is gone.
	Seq int64

	// What ranking needs of the record (mnemo.Brief), besides the above.
	Importance, Confidence float32
	Access                 int64 // the row's access_count (a store may add counts kept apart)
	Updated                int64 // unix nanos
	Tokens                 int32
	Extracted              bool     // Source is "extracted"
	Speaker                string   // mnemo.SpeakerLabel of the text
	Authors                []string // mnemo.Authors of the provenance

	off, dim   int     // vector position in the namespace's contiguous slice; dim 0 = none
	vs, ve     float32 // the vector's quantisation scale and error norm (quant.go)
	sk         int     // sketch position in Namespace.signs; -1 = none
	hash       uint64
	dl         int32 // length in terms
	tOff, tLen int32 // distinct term ids in keywordIndex.arena
	indexed    bool  // the text is in the keyword index
}

// SetTimes sets Created, ValidFrom and ValidTo from nullable unix nanos,
// with the sentinels the predicate expects for unset ones.
func (e *Entry) SetTimes(created, validFrom, validTo *int64) {
	e.Created, e.ValidFrom, e.ValidTo = math.MinInt64, math.MinInt64, math.MaxInt64
	if created != nil {
		e.Created = *created
	}
	if validFrom != nil {
		e.ValidFrom = *validFrom
	}
	if validTo != nil {
		e.ValidTo = *validTo
	}
}

// Cond is a compiled scope and Filter: the in-memory predicate for live
// reads.
type Cond struct {
	clearance int
	at        int64
	layers    []mnemo.Layer
	kinds     []mnemo.Kind
	prefix    string
	f         mnemo.Filter
	since     int64
	until     int64
}

// Compile compiles the scope's clearance and f for reads at now (or at
// f.AsOf when set). The namespace is the caller's to match.
func Compile(sc mnemo.Scope, f mnemo.Filter, now time.Time) *Cond {
	c := &Cond{clearance: sc.Clearance, at: now.UnixNano(), layers: f.Layers, kinds: f.Kinds,
		prefix: ScopePrefix(f.ScopePrefix), f: f, since: math.MinInt64, until: math.MaxInt64}
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

// From reports whether c was compiled from sc's clearance and f
// (Compile), whatever the moment it was compiled at.
func (c *Cond) From(sc mnemo.Scope, f mnemo.Filter) bool {
	g := c.f
	return c.clearance == sc.Clearance && slices.Equal(g.Layers, f.Layers) && slices.Equal(g.Kinds, f.Kinds) &&
		g.ScopePrefix == f.ScopePrefix && g.Component == f.Component && g.Mission == f.Mission && g.Thread == f.Thread &&
		slices.Equal(g.Tags, f.Tags) && g.MinCriticality == f.MinCriticality && sameTime(g.Since, f.Since) &&
		sameTime(g.Until, f.Until) && g.Outcome == f.Outcome && sameTime(g.AsOf, f.AsOf) &&
		sameTime(g.AsKnownAt, f.AsKnownAt) && g.Operator == f.Operator
}

func sameTime(a, b *time.Time) bool { return a == b || a != nil && b != nil && a.Equal(*b) }

// Matches reports whether e passes c: the Go twin of the stores' SQL for
// live reads (deleted excluded, validity at AsOf or now).
func (c *Cond) Matches(e *Entry) bool {
	if e.AccessLevel > c.clearance || e.Deleted {
		return false
	}
	if e.ValidFrom > c.at || e.ValidTo <= c.at {
		return false
	}
	if len(c.layers) > 0 && !contains(c.layers, e.Layer) {
		return false
	}
	if len(c.kinds) > 0 && !contains(c.kinds, e.Kind) {
		return false
	}
	if c.prefix != "" && e.Scope != c.prefix &&
		!(len(e.Scope) > len(c.prefix) && e.Scope[len(c.prefix)] == '/' && e.Scope[:len(c.prefix)] == c.prefix) {
		return false
	}
	if c.f.Component != "" && e.Component != c.f.Component {
		return false
	}
	if c.f.Mission != "" && e.Mission != c.f.Mission {
		return false
	}
	if c.f.Thread != "" && e.Thread != c.f.Thread {
		return false
	}
	for _, t := range c.f.Tags {
		if !contains(e.Tags, t) {
			return false
		}
	}
	if c.f.MinCriticality > 0 && !(e.Criticality >= c.f.MinCriticality) {
		return false
	}
	if c.f.Since != nil && (e.Created == math.MinInt64 || e.Created < c.since) {
		return false
	}
	if c.f.Until != nil && (e.Created == math.MinInt64 || e.Created >= c.until) {
		return false
	}
	if c.f.Outcome != "" && e.Outcome != c.f.Outcome {
		return false
	}
	if c.f.Operator != "" && !contains(e.Operators, c.f.Operator) {
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
