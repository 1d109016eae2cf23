package loops

import (
	"slices"
	"strconv"

	"github.com/mnemo-dev/mnemo"
)

// Change is one field that differs between two configurations; a field
// absent on one side has the value "".
type Change struct {
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// Diff lists the fields in which b differs from a, sorted by field name.
func Diff(a, b mnemo.ScoringConfig) []Change {
	fa, fb := flatten(a), flatten(b)
	var out []Change
	for k, v := range fa {
		if fb[k] != v {
			out = append(out, Change{Field: k, From: v, To: fb[k]})
		}
	}
	for k, v := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, Change{Field: k, To: v})
		}
	}
	slices.SortFunc(out, func(x, y Change) int {
		if x.Field < y.Field {
			return -1
		}
		if x.Field > y.Field {
			return 1
		}
		return 0
	})
	return out
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// flatten names every value of c by a path: weights.recent.semantic,
// half_lives./news, recency_floor, …
func flatten(c mnemo.ScoringConfig) map[string]string {
	m := map[string]string{}
	for i, w := range c.Weights {
		for name, x := range w.Score().Map() {
			m["weights."+string(i)+"."+name] = num(x)
		}
	}
	for k, h := range c.HalfLives {
		m["half_lives."+h.Prefix] = num(h.Days) + " (#" + strconv.Itoa(k+1) + ")"
	}
	m["default_half_life"] = num(c.DefaultHalfLife)
	m["recency_floor"] = num(c.RecencyFloor)
	m["candidates"] = strconv.Itoa(c.Candidates)
	m["dedup_threshold"] = num(c.DedupThreshold)
	if c.MinRelevance != nil {
		m["min_relevance"] = num(*c.MinRelevance)
	} else {
		m["min_relevance"] = "adaptive"
	}
	return m
}
