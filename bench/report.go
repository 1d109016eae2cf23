package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// categoryName names the LoCoMo question categories.
var categoryName = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// WriteMarkdown writes the report as Markdown tables: the methods over
// categories 1–4, then recall@10 and recall within each budget per category.
func (r *LoCoMoReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "LoCoMo retrieval: %d conversations, %d turns, %d questions scored (%d without resolvable evidence left out), %d evidence references skipped (%d repaired).\n",
		r.Conversations, r.Turns, r.Questions, r.Unscorable, r.SkippedEvidence, r.RepairedEvidence)
	fmt.Fprintf(&b, "Embedder %s, preset %s, tokenizer %s, ranked lists of %d, %s.\n\n", r.Embedder, r.Preset, r.Tokenizer, r.Depth,
		r.Elapsed.Round(100*time.Millisecond))

	b.WriteString("Categories 1–4")
	if len(r.Methods) > 0 {
		fmt.Fprintf(&b, " (%d questions)", r.Methods[0].Overall.Questions)
	}
	b.WriteString(":\n\n| method |")
	for _, k := range r.Ks {
		fmt.Fprintf(&b, " recall@%d |", k)
	}
	b.WriteString(" MRR |")
	for _, bu := range r.Budgets {
		fmt.Fprintf(&b, " in %s tok |", thousands(bu))
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---:|", len(r.Ks)+1+len(r.Budgets)))
	b.WriteString("\n")
	for _, m := range r.Methods {
		fmt.Fprintf(&b, "| %s |", m.Name)
		for _, k := range r.Ks {
			fmt.Fprintf(&b, " %.3f |", m.Overall.RecallAt[k])
		}
		fmt.Fprintf(&b, " %.3f |", m.Overall.MRR)
		for _, bu := range r.Budgets {
			fmt.Fprintf(&b, " %.3f |", m.Overall.RecallInBudget[bu])
		}
		b.WriteString("\n")
	}

	cats := map[int]int{}
	for _, m := range r.Methods {
		for c, cm := range m.ByCategory {
			cats[c] = cm.Questions
		}
	}
	catKeys := sortedKeys(cats)
	section := func(title string, val func(Metrics) float64) {
		fmt.Fprintf(&b, "\n%s by category:\n\n| method |", title)
		for _, c := range catKeys {
			fmt.Fprintf(&b, " %d %s (%d) |", c, categoryName[c], cats[c])
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(catKeys)) + "\n")
		for _, m := range r.Methods {
			fmt.Fprintf(&b, "| %s |", m.Name)
			for _, c := range catKeys {
				fmt.Fprintf(&b, " %.3f |", val(m.ByCategory[c]))
			}
			b.WriteString("\n")
		}
	}
	k10 := 10
	if !containsInt(r.Ks, 10) && len(r.Ks) > 0 {
		k10 = r.Ks[len(r.Ks)/2]
	}
	section("Recall@"+strconv.Itoa(k10), func(m Metrics) float64 { return m.RecallAt[k10] })
	for _, bu := range r.Budgets {
		section("Recall within "+thousands(bu)+" tokens", func(m Metrics) float64 { return m.RecallInBudget[bu] })
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// thousands formats n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
