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
// categories 1–4 on all conversations, then on each half of them, then
// recall@10 and recall within each budget per category.
func (r *LoCoMoReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "LoCoMo retrieval: %d conversations, %d turns, %d questions scored (%d without resolvable evidence left out), %d evidence references skipped (%d repaired).\n",
		r.Conversations, r.Turns, r.Questions, r.Unscorable, r.SkippedEvidence, r.RepairedEvidence)
	learned := "learned semantic channel on"
	if !r.Learned {
		learned = "learned semantic channel off"
	}
	thes := "no thesaurus"
	if len(r.Thesauri) > 0 {
		thes = "thesauri " + strings.Join(r.Thesauri, ", ")
	}
	fmt.Fprintf(&b, "Embedder %s, preset %s, tokenizer %s, %s, %s, ranked lists of %d, %s.\n\n", r.Embedder, r.Preset, r.Tokenizer,
		learned, thes, r.Depth, r.Elapsed.Round(100*time.Millisecond))

	table := func(title string, pick func(MethodResult) (Metrics, bool)) {
		var n int
		for _, m := range r.Methods {
			if mt, ok := pick(m); ok {
				n = mt.Questions
				break
			}
		}
		fmt.Fprintf(&b, "%s, categories 1–4 (%d questions):\n\n| method |", title, n)
		for _, k := range r.Ks {
			fmt.Fprintf(&b, " recall@%d |", k)
		}
		b.WriteString(" MRR |")
		for _, bu := range r.Budgets {
			fmt.Fprintf(&b, " in %s tok |", thousands(bu))
		}
		for _, bu := range r.Budgets {
			fmt.Fprintf(&b, " tok/turn %s |", thousands(bu))
		}
		b.WriteString("\n|---|")
		b.WriteString(strings.Repeat("---:|", len(r.Ks)+1+2*len(r.Budgets)))
		b.WriteString("\n")
		for _, m := range r.Methods {
			mt, ok := pick(m)
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "| %s |", m.Name)
			for _, k := range r.Ks {
				fmt.Fprintf(&b, " %.3f |", mt.RecallAt[k])
			}
			fmt.Fprintf(&b, " %.3f |", mt.MRR)
			for _, bu := range r.Budgets {
				fmt.Fprintf(&b, " %.3f |", mt.RecallInBudget[bu])
			}
			for _, bu := range r.Budgets {
				if v, ok := mt.TokensPerFound[bu]; ok {
					fmt.Fprintf(&b, " %.0f |", v)
				} else {
					b.WriteString(" — |")
				}
			}
			b.WriteString("\n")
		}
	}
	table("All conversations", func(m MethodResult) (Metrics, bool) { return m.Overall, true })
	fmt.Fprintf(&b, "\nbm25-thread is BM25 given the hybrid's thread factor: BM25's top %d reranked by BM25 ÷ the best BM25 "+
		"+ %.2f × (the summed normalised BM25 of the record's thread among them ÷ the best thread's). "+
		"tok/turn B is the tokens packed within budget B (the digest's used_tokens for hybrid, the packed turns' tokens for the others), "+
		"summed over the questions, ÷ the evidence turns found within B (lower is better).\n", r.Depth, r.ThreadWeight)
	if len(r.Methods) > 0 {
		for i, h := range r.Methods[0].Halves {
			title := fmt.Sprintf("\nConversations %d–%d (settings are chosen on this half)", h.First, h.Last)
			if i > 0 {
				title = fmt.Sprintf("\nConversations %d–%d (held out)", h.First, h.Last)
			}
			table(title, func(m MethodResult) (Metrics, bool) {
				if i < len(m.Halves) {
					return m.Halves[i].Overall, true
				}
				return Metrics{}, false
			})
		}
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
