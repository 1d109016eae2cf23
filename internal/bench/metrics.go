package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	// TokensPerFound maps a token budget to the precision of the packed
	// context: the tokens packed within that budget, summed over the
	// questions, divided by the evidence turns found in it, summed over the
	// same questions (lower is better). A budget under which no evidence
	// turn was found has no entry.
	TokensPerFound map[int]float64
}

// MarshalJSON writes {"questions": …, "recall_at_5": …, "mrr": …,
// "recall_in_budget": {"500": …}, "tokens_per_evidence_turn": {"500": …}}
// (null for a budget under which no evidence turn was found).
func (m Metrics) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	m.writeFields(&b)
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (m Metrics) writeFields(b *bytes.Buffer) {
	b.WriteString(`"questions":` + strconv.Itoa(m.Questions))
	for _, k := range sortedKeys(m.RecallAt) {
		b.WriteString(`,"recall_at_` + strconv.Itoa(k) + `":` + num(m.RecallAt[k]))
	}
	b.WriteString(`,"mrr":` + num(m.MRR) + `,"recall_in_budget":{`)
	for i, k := range sortedKeys(m.RecallInBudget) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(k) + `":` + num(m.RecallInBudget[k]))
	}
	b.WriteString(`},"tokens_per_evidence_turn":{`)
	for i, k := range sortedKeys(m.RecallInBudget) {
		if i > 0 {
			b.WriteByte(',')
		}
		v, ok := m.TokensPerFound[k]
		s := "null"
		if ok {
			s = strconv.FormatFloat(v, 'f', 1, 64)
		}
		b.WriteString(`"` + strconv.Itoa(k) + `":` + s)
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
// per category; over all conversations, and over each half of them.
type MethodResult struct {
	Name       string
	Overall    Metrics         // categories 1–4
	ByCategory map[int]Metrics // 1..5
	Halves     []Half          // the first and the second half of the conversations
}

// Half is one method's figures on a contiguous run of conversations,
// numbered from 1 in file order.
type Half struct {
	Label      string // "1-5"
	First      int    // first conversation, from 1
	Last       int    // last conversation, inclusive
	Overall    Metrics
	ByCategory map[int]Metrics
}

// MarshalJSON writes the overall metrics flat beside the name,
// by_category keyed by the category number as a string, and halves keyed
// by their label ("1-5", "6-10"), each with the same metrics and its own
// by_category.
func (r MethodResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	name, _ := json.Marshal(r.Name)
	b.WriteString(`{"name":`)
	b.Write(name)
	b.WriteByte(',')
	writeResult(&b, r.Overall, r.ByCategory)
	b.WriteString(`,"halves":{`)
	for i, h := range r.Halves {
		if i > 0 {
			b.WriteByte(',')
		}
		label, _ := json.Marshal(h.Label)
		b.Write(label)
		b.WriteString(":{")
		writeResult(&b, h.Overall, h.ByCategory)
		b.WriteByte('}')
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

// writeResult writes overall's fields and "by_category".
func writeResult(b *bytes.Buffer, overall Metrics, byCategory map[int]Metrics) {
	overall.writeFields(b)
	b.WriteString(`,"by_category":{`)
	for i, c := range sortedKeys(byCategory) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(c) + `":`)
		mb, _ := byCategory[c].MarshalJSON()
		b.Write(mb)
	}
	b.WriteByte('}')
}

// QuestionScore is the figures of one method on one question.
type QuestionScore struct {
	RecallAt       map[int]float64
	RR             float64 // reciprocal rank of the first evidence turn
	RecallInBudget map[int]float64
	// FoundInBudget maps a budget to the number of distinct evidence turns
	// in the context packed within it.
	FoundInBudget map[int]int
	// PackedTokens maps a budget to the tokens of the context packed
	// within it; the caller sets it (ScoreQuestion sees only ids).
	PackedTokens map[int]int
}

// ScoreQuestion scores one ranked list of dia_ids (best first, possibly
// with repeats or unknown ids) and the dia_ids packed within each budget
// against a question's evidence. With no evidence every figure is 0; the
// caller leaves such questions out.
func ScoreQuestion(ranked []string, packed map[int][]string, evidence []string, ks []int) QuestionScore {
	qs := QuestionScore{RecallAt: map[int]float64{}, RecallInBudget: map[int]float64{}, FoundInBudget: map[int]int{},
		PackedTokens: map[int]int{}}
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
			qs.FoundInBudget[b] = 0
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
		n := found(ids, ev)
		qs.FoundInBudget[b] = n
		qs.RecallInBudget[b] = float64(n) / float64(len(ev))
	}
	return qs
}

// share is the fraction of the evidence set present in ids.
func share(ids []string, ev map[string]bool) float64 {
	return float64(found(ids, ev)) / float64(len(ev))
}

// found counts the distinct members of the evidence set present in ids.
func found(ids []string, ev map[string]bool) int {
	seen := map[string]bool{}
	for _, id := range ids {
		if ev[id] {
			seen[id] = true
		}
	}
	return len(seen)
}

// accumulator sums question scores per category.
type accumulator struct {
	ks, budgets []int
	sum         map[int]*Metrics        // category -> sums
	spent       map[int]map[int]float64 // category -> budget -> tokens packed
	found       map[int]map[int]float64 // category -> budget -> evidence turns found
}

func newAccumulator(ks, budgets []int) *accumulator {
	return &accumulator{ks: ks, budgets: budgets, sum: map[int]*Metrics{},
		spent: map[int]map[int]float64{}, found: map[int]map[int]float64{}}
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
		a.spent[category], a.found[category] = map[int]float64{}, map[int]float64{}
	}
	for b, n := range qs.FoundInBudget {
		a.found[category][b] += float64(n)
		a.spent[category][b] += float64(qs.PackedTokens[b])
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
	out := Metrics{RecallAt: map[int]float64{}, RecallInBudget: map[int]float64{}, TokensPerFound: map[int]float64{}}
	for _, k := range a.ks {
		out.RecallAt[k] = 0
	}
	for _, b := range a.budgets {
		out.RecallInBudget[b] = 0
	}
	spent, foundN := map[int]float64{}, map[int]float64{}
	for _, c := range cats {
		m := a.sum[c]
		if m == nil {
			continue
		}
		for b, v := range a.spent[c] {
			spent[b] += v
		}
		for b, v := range a.found[c] {
			foundN[b] += v
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
	for b, f := range foundN {
		if f > 0 {
			out.TokensPerFound[b] = spent[b] / f
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

// half builds the figures of conversations first..last (from 1).
func (a *accumulator) half(first, last int) Half {
	r := a.result("")
	return Half{Label: fmt.Sprintf("%d-%d", first, last), First: first, Last: last, Overall: r.Overall, ByCategory: r.ByCategory}
}

// halves splits conversations 1..n in file order into two contiguous
// halves, the first one the larger when n is odd: 1–5 and 6–10 for
// LoCoMo's ten. With fewer than two conversations there are none.
func halves(n int) [][2]int {
	if n < 2 {
		return nil
	}
	m := (n + 1) / 2
	return [][2]int{{1, m}, {m + 1, n}}
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
