package bench

import (
	"slices"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// ThreadRerank is the bm25-thread baseline: BM25 given the thread factor
// the hybrid ranking uses. hits are keyword hits, best first, whose Score
// is BM25 (higher is better); thread names a record's thread ("" for
// none). Each hit scores
//
//	bm25 / best bm25 + weight · score.ThreadFactor(mass of its thread, best thread's mass)
//
// where a thread's mass is the sum of the normalised BM25 of its hits among
// hits, so a record is lifted by how much of the matching text its thread
// holds, relative to the best thread. A record without a thread gets no
// thread term. The ids come back best first; equal scores keep BM25's
// order. With weight 0, or no positive score, the order is BM25's.
func ThreadRerank(hits []mnemo.Hit, thread func(id string) string, weight float64) []string {
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Score)
	}
	type scored struct {
		id string
		s  float64
	}
	out := make([]scored, len(hits))
	mass := map[string]float64{}
	bestMass := 0.0
	for i, h := range hits {
		s := 0.0
		if best > 0 {
			s = max(h.Score, 0) / best
		}
		out[i] = scored{h.ID, s}
		if t := thread(h.ID); t != "" {
			mass[t] += s
			bestMass = max(bestMass, mass[t])
		}
	}
	if weight != 0 {
		for i := range out {
			if t := thread(out[i].id); t != "" {
				out[i].s += weight * score.ThreadFactor(mass[t], bestMass)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	ids := make([]string, len(out))
	for i, o := range out {
		ids[i] = o.id
	}
	return ids
}
