package bench

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// Metrics are the retrieval figures of one method over a set of questions.
type Metrics struct {
	// Questions is how many questions the figures average over.
	Questions int
	// RecallAt maps k to the evidence recall@k: the share of a question's
	// evidence turns found in the top k, averaged over questions.
	RecallAt map[int]float64
	// MRR is the mean reciprocal rank of the first evidence turn in the
	// ranked list (0 when none is in the list).
	MRR float64
	// RecallInBudget maps a token budget to the share of a question's
	// evidence turns present in the context packed within that budget,
	// averaged over questions.
	RecallInBudget map[int]float64
}

// MarshalJSON writes {"recall_at_5": …, "mrr": …, "recall_in_budget": {"500": …}}.
func (m Metrics) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	m.writeFields(&b)
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (m Metrics) writeFields(b *bytes.Buffer) {
	for i, k := range sortedKeys(m.RecallAt) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"recall_at_` + strconv.Itoa(k) + `":` + num(m.RecallAt[k]))
	}
	if len(m.RecallAt) > 0 {
		b.WriteByte(',')
	}
	b.WriteString(`"mrr":` + num(m.MRR) + `,"recall_in_budget":{`)
	for i, k := range sortedKeys(m.RecallInBudget) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(k) + `":` + num(m.RecallInBudget[k]))
	}
	b.WriteByte('}')
}

// num formats a metric with 4 decimals.
func num(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// MethodResult is one method's figures: over categories 1–4 together, and
// per category.
type MethodResult struct {
	Name       string
	Overall    Metrics         // categories 1–4
	ByCategory map[int]Metrics // 1..5
}

// MarshalJSON writes the overall metrics flat beside the name, and
// by_category keyed by the category number as a string.
func (r MethodResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	name, _ := json.Marshal(r.Name)
	b.WriteString(`{"name":`)
	b.Write(name)
	b.WriteByte(',')
	r.Overall.writeFields(&b)
	b.WriteString(`,"by_category":{`)
	for i, c := range sortedKeys(r.ByCategory) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(c) + `":`)
		mb, _ := r.ByCategory[c].MarshalJSON()
		b.Write(mb)
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

// QuestionScore is the figures of one method on one question.
type QuestionScore struct {
	RecallAt       map[int]float64
	RR             float64 // reciprocal rank of the first evidence turn
	RecallInBudget map[int]float64
}

// ScoreQuestion scores one ranked list of dia_ids (best first, possibly
// with repeats or unknown ids) and the dia_ids packed within each budget
// against a question's evidence. With no evidence every figure is 0; the
// caller leaves such questions out.
func ScoreQuestion(ranked []string, packed map[int][]string, evidence []string, ks []int) QuestionScore {
	qs := QuestionScore{RecallAt: map[int]float64{}, RecallInBudget: map[int]float64{}}
	ev := make(map[string]bool, len(evidence))
	for _, e := range evidence {
		ev[e] = true
	}
	if len(ev) == 0 {
		for _, k := range ks {
			qs.RecallAt[k] = 0
		}
		for b := range packed {
			qs.RecallInBudget[b] = 0
		}
		return qs
	}
	for _, k := range ks {
		qs.RecallAt[k] = share(ranked[:min(k, len(ranked))], ev)
	}
	for i, id := range ranked {
		if ev[id] {
			qs.RR = 1 / float64(i+1)
			break
		}
	}
	for b, ids := range packed {
		qs.RecallInBudget[b] = share(ids, ev)
	}
	return qs
}

// share is the fraction of the evidence set present in ids.
func share(ids []string, ev map[string]bool) float64 {
	found := map[string]bool{}
	for _, id := range ids {
		if ev[id] {
			found[id] = true
		}
	}
	return float64(len(found)) / float64(len(ev))
}

// accumulator sums question scores per category.
type accumulator struct {
	ks, budgets []int
	sum         map[int]*Metrics // category -> sums
}

func newAccumulator(ks, budgets []int) *accumulator {
	return &accumulator{ks: ks, budgets: budgets, sum: map[int]*Metrics{}}
}

func (a *accumulator) add(category int, qs QuestionScore) {
	m := a.sum[category]
	if m == nil {
		m = &Metrics{RecallAt: map[int]float64{}, RecallInBudget: map[int]float64{}}
		for _, k := range a.ks {
			m.RecallAt[k] = 0
		}
		for _, b := range a.budgets {
			m.RecallInBudget[b] = 0
		}
		a.sum[category] = m
	}
	m.Questions++
	for k, v := range qs.RecallAt {
		m.RecallAt[k] += v
	}
	for b, v := range qs.RecallInBudget {
		m.RecallInBudget[b] += v
	}
	m.MRR += qs.RR
}

// mean averages the sums of the given categories together.
func (a *accumulator) mean(cats ...int) Metrics {
	out := Metrics{RecallAt: map[int]float64{}, RecallInBudget: map[int]float64{}}
	for _, k := range a.ks {
		out.RecallAt[k] = 0
	}
	for _, b := range a.budgets {
		out.RecallInBudget[b] = 0
	}
	for _, c := range cats {
		m := a.sum[c]
		if m == nil {
			continue
		}
		out.Questions += m.Questions
		out.MRR += m.MRR
		for k, v := range m.RecallAt {
			out.RecallAt[k] += v
		}
		for b, v := range m.RecallInBudget {
			out.RecallInBudget[b] += v
		}
	}
	if n := float64(out.Questions); n > 0 {
		out.MRR /= n
		for k := range out.RecallAt {
			out.RecallAt[k] /= n
		}
		for b := range out.RecallInBudget {
			out.RecallInBudget[b] /= n
		}
	}
	return out
}

// result builds the method result: overall over categories 1–4, and every
// category seen.
func (a *accumulator) result(name string) MethodResult {
	r := MethodResult{Name: name, Overall: a.mean(1, 2, 3, 4), ByCategory: map[int]Metrics{}}
	for c := range a.sum {
		r.ByCategory[c] = a.mean(c)
	}
	return r
}

// packGreedy takes ids in rank order and keeps each one whose token cost
// still fits in the budget, skipping those that do not (the same greedy
// fill the digest uses). cost returns an id's tokens.
func packGreedy(ids []string, budget int, cost func(string) int) []string {
	var out []string
	used := 0
	for _, id := range ids {
		c := cost(id)
		if used+c > budget {
			continue
		}
		used += c
		out = append(out, id)
	}
	return out
}
