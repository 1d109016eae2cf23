package engine

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Thread context.
//
// A message in a conversation leans on the ones before it: "They loved the
// dinosaur bones!" says nothing of children or museums, the turn it answers
// does. So the vector of a record that names a thread is not the embedding
// of its own text alone but
//
//	v_i = normalise(e_i + contextWeight · v_p)
//
// where e_i is the embedding of its text and v_p the (already contextual)
// vector of p, the record before it in the thread. Unrolled, a record
// carries its predecessor at half weight, the one before at a quarter, and
// so on: a fading trace of the thread. The keyword channel keeps each
// record's own words only, so the two channels see a record differently:
// BM25 what it says, the vector what it is about.
//
// p is the latest record of the same namespace and thread that was created
// no later than the record (ties broken by id), is not forgotten, and whose
// access level is at most the record's own: a record never carries words of
// one its readers may not see. The context is fixed when the record is
// written (or its text or thread changes); a record written later but dated
// earlier does not change the vectors of the records after it, and Reembed
// recomputes every thread from scratch.
const contextWeight = 0.5

// threadNode is one record of a thread in context order.
type threadNode struct {
	rec   *mnemo.Record
	own   []float32 // the embedding of the record's own text; nil for a stored record kept as it is
	fixed bool      // a stored record: its vector is context, not recomputed
}

func threadOrder(a, b threadNode) int {
	if c := a.rec.CreatedAt.Compare(b.rec.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.rec.ID, b.rec.ID)
}

// chain sets the contextual vector of every node that is not fixed, in
// thread order. nodes must be sorted by threadOrder; a forgotten node is
// never context.
func chain(nodes []threadNode) {
	for i := range nodes {
		n := &nodes[i]
		if n.fixed {
			continue
		}
		v := n.own
		for j := i - 1; j >= 0; j-- {
			p := nodes[j].rec
			if p.DeletedAt != nil || p.AccessLevel > n.rec.AccessLevel {
				continue
			}
			if len(p.Embedding) == len(v) && len(v) > 0 {
				v = blend(v, p.Embedding)
			}
			break
		}
		n.rec.Embedding = v
	}
}

// blend returns normalise(own + contextWeight·prev) as a new slice; own is
// returned unchanged when the sum is zero.
func blend(own, prev []float32) []float32 {
	out := make([]float32, len(own))
	var norm float64
	for i := range out {
		x := own[i] + contextWeight*prev[i]
		out[i] = x
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return own
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range out {
		out[i] *= inv
	}
	return out
}

// threadContext gives the records of one write (already embedded with their
// own text) their thread context. For each thread of the batch it reads
// from the store, by the thread index, the latest earlier record visible at
// each access level of the batch (the predecessor of the batch's first
// record at that level) and any stored records dated within the batch's
// time span (a batch written into the middle of a thread); appending to a
// thread reads one record per access level.
func (s *Service) threadContext(ctx context.Context, recs []*mnemo.Record) error {
	type key struct{ ns, thread string }
	groups := map[key][]*mnemo.Record{}
	var order []key
	for _, r := range recs {
		if r.Thread == "" {
			continue
		}
		k := key{r.Namespace, r.Thread}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		batch := groups[k]
		nodes := make([]threadNode, 0, len(batch)+1)
		mine := make(map[string]bool, len(batch))
		levels := map[int]bool{}
		first, last := batch[0].CreatedAt, batch[0].CreatedAt
		for _, r := range batch {
			nodes = append(nodes, threadNode{rec: r, own: r.Embedding})
			mine[r.ID] = true
			levels[r.AccessLevel] = true
			if r.CreatedAt.Before(first) {
				first = r.CreatedAt
			}
			if r.CreatedAt.After(last) {
				last = r.CreatedAt
			}
		}
		seen := map[string]bool{}
		add := func(stored []*mnemo.Record) {
			for _, r := range stored {
				if !mine[r.ID] && !seen[r.ID] {
					seen[r.ID] = true
					nodes = append(nodes, threadNode{rec: r, fixed: true})
				}
			}
		}
		top := 0
		for level := range levels {
			top = max(top, level)
			prev, err := s.store.List(ctx, mnemo.Scope{Namespace: k.ns, Clearance: level}, mnemo.ListOptions{
				Filter: mnemo.Filter{Thread: k.thread, Until: &first}, ByTime: true, Limit: 1, IncludeHistory: true})
			if err != nil {
				return err
			}
			add(prev)
		}
		until := last.Add(time.Nanosecond)
		within, err := s.store.List(ctx, mnemo.Scope{Namespace: k.ns, Clearance: top}, mnemo.ListOptions{
			Filter: mnemo.Filter{Thread: k.thread, Since: &first, Until: &until}, ByTime: true,
			Limit: maxThreadSpan, IncludeHistory: true})
		if err != nil {
			return err
		}
		add(within)
		slices.SortStableFunc(nodes, threadOrder)
		chain(nodes)
	}
	return nil
}

// maxThreadSpan bounds how many stored records of a thread dated within one
// batch's time span the write path reads.
const maxThreadSpan = 100_000

// rethread recomputes the vectors of every thread among recs from their
// own embeddings (own[id]), as Reembed does: recs holds whole threads.
func rethread(recs []*mnemo.Record, own map[string][]float32) {
	type key struct{ ns, thread string }
	groups := map[key][]threadNode{}
	for _, r := range recs {
		if r.Thread == "" {
			continue
		}
		k := key{r.Namespace, r.Thread}
		groups[k] = append(groups[k], threadNode{rec: r, own: own[r.ID]})
	}
	for _, nodes := range groups {
		slices.SortStableFunc(nodes, threadOrder)
		chain(nodes)
	}
}
