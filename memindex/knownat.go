package memindex

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// EntryOf returns the filter fields of a record, as a store's index keeps
// them (no vector, no terms).
func EntryOf(r *mnemo.Record) Entry {
	e := Entry{ID: r.ID, Layer: r.Layer, Kind: r.Kind, Scope: r.Scope, Component: r.Component, Mission: r.Mission,
		Thread: r.Thread, Tags: r.Tags, Operators: r.Operators(), Criticality: r.Criticality,
		AccessLevel: r.AccessLevel, Deleted: r.DeletedAt != nil,
		Importance: float32(r.Importance), Confidence: float32(r.Confidence), Access: r.AccessCount,
		Updated: r.UpdatedAt.UnixNano(), Tokens: int32(min(r.Tokens, math.MaxInt32)), Extracted: r.Source == mnemo.SourceExtracted,
		Speaker: mnemo.SpeakerLabel(r.Text), Authors: mnemo.Authors(r.Provenance)}
	if r.Correction != nil {
		e.Outcome = r.Correction.Outcome
	}
	var created, from, to *int64
	nanos := func(t time.Time) *int64 { n := t.UnixNano(); return &n }
	if !r.CreatedAt.IsZero() {
		created = nanos(r.CreatedAt)
	}
	if !r.ValidFrom.IsZero() {
		from = nanos(r.ValidFrom)
	}
	if r.ValidTo != nil {
		to = nanos(*r.ValidTo)
	}
	e.SetTimes(created, from, to)
	return e
}

// ListKnownAt answers a List whose filter sets AsKnownAt from known, the
// records of sc's namespace as they were known then (each record's latest
// revision at or before that time, as a store reads it from its
// revisions; records whose current row is above sc's clearance already
// left out). It applies the filter with the predicate of live reads —
// the revision's own access level against the clearance, validity at
// AsOf or else at AsKnownAt (unless IncludeHistory), forgotten-by-then
// records only with IncludeDeleted — then the order, cursor and limit of
// opt. known is reordered.
func ListKnownAt(known []*mnemo.Record, sc mnemo.Scope, opt mnemo.ListOptions) []*mnemo.Record {
	f := opt.Filter
	at := time.Now()
	if f.AsKnownAt != nil {
		at = *f.AsKnownAt
	}
	if f.AsOf != nil {
		at = *f.AsOf
	}
	c := Compile(sc, f, at)
	out := known[:0]
	for _, r := range known {
		e := EntryOf(r)
		if opt.IncludeDeleted {
			e.Deleted = false
		}
		if opt.IncludeHistory {
			e.ValidFrom, e.ValidTo = math.MinInt64, math.MaxInt64
		}
		if r.Namespace == sc.Namespace && c.Matches(&e) {
			out = append(out, r)
		}
	}
	if opt.ByTime {
		slices.SortFunc(out, func(a, b *mnemo.Record) int {
			if d := b.CreatedAt.Compare(a.CreatedAt); d != 0 {
				return d
			}
			return cmp.Compare(b.ID, a.ID)
		})
	} else {
		slices.SortFunc(out, func(a, b *mnemo.Record) int { return cmp.Compare(b.ID, a.ID) })
		if opt.After != "" {
			i, _ := slices.BinarySearchFunc(out, opt.After, func(r *mnemo.Record, after string) int {
				return cmp.Compare(after, r.ID) // descending: records with id >= After come first
			})
			for i < len(out) && out[i].ID >= opt.After {
				i++
			}
			out = out[i:]
		}
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = 100
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// LiveOnly refuses, for the searches the index answers (keyword and
// vector), a filter that sets AsKnownAt: a past state of the namespace is
// read from the revisions (a List with AsKnownAt; the engine ranks it).
func LiveOnly(f mnemo.Filter) error {
	if f.AsKnownAt != nil {
		return mnemo.Errorf(mnemo.EINVALID, "as_known_at is answered from the revisions: list with it, or recall and digest through the engine, not a store's keyword or vector search")
	}
	return nil
}
