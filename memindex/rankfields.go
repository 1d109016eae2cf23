package memindex

import (
	"math"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// RankFields returns the ranking fields (mnemo.RankFields) of the entries
// of ids that clearance sees and that are not forgotten, in the order of
// ids, with the row key of each; ns is the namespace's name. Sem is
// scored from the entry's codes against q, a unit vector, as Vector
// scores it. It must be called under the read lock.
func (n *Namespace[K]) RankFields(ns string, ids []string, clearance int, q []float32) ([]mnemo.RankFields, []K) {
	out := make([]mnemo.RankFields, 0, len(ids))
	keys := make([]K, 0, len(ids))
	recs := make([]mnemo.Record, len(ids)) // one allocation for all
	for _, id := range ids {
		i, ok := n.idPos(id)
		if !ok {
			continue
		}
		e := n.ent(i)
		if e.Deleted || e.Seq == -1 || e.AccessLevel > clearance {
			continue
		}
		r := &recs[len(out)]
		*r = mnemo.Record{ID: e.ID, Namespace: ns, Layer: e.Layer, Kind: e.Kind, Scope: e.Scope,
			Component: e.Component, Mission: e.Mission, Thread: e.Thread, Tags: e.Tags,
			Importance: float64(e.Importance), Confidence: float64(e.Confidence), Criticality: e.Criticality,
			AccessLevel: e.AccessLevel, AccessCount: e.Access, Tokens: int(e.Tokens)}
		if e.Extracted {
			r.Source = mnemo.SourceExtracted
		}
		if e.Created != math.MinInt64 {
			r.CreatedAt = time.Unix(0, e.Created).UTC()
		}
		if e.Updated != 0 {
			r.UpdatedAt = time.Unix(0, e.Updated).UTC()
		}
		if e.ValidFrom != math.MinInt64 {
			r.ValidFrom = time.Unix(0, e.ValidFrom).UTC()
		}
		if e.ValidTo != math.MaxInt64 {
			t := time.Unix(0, e.ValidTo).UTC()
			r.ValidTo = &t
		}
		f := mnemo.RankFields{Record: r, Speakers: e.Authors}
		if e.Speaker != "" && !contains(f.Speakers, e.Speaker) {
			f.Speakers = append(f.Speakers[:len(f.Speakers):len(f.Speakers)], e.Speaker)
		}
		if e.dim > 0 && e.dim == len(q) && n.vecOK(i) {
			f.Sem, f.HasSem = float64(e.vs)*dotCodes(q, n.vecs[e.off:e.off+e.dim]), true
		}
		out = append(out, f)
		keys = append(keys, n.keyAt(i))
	}
	return out, keys
}
