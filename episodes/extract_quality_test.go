package episodes

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/extract"
	"github.com/mnemo-dev/mnemo/llm"
)

// labelledSet is extract/testdata/labelled.json: threads whose messages
// are labelled with the memories they hold.
type labelledSet struct {
	Threads []struct {
		Name     string `json:"name"`
		Lang     string `json:"lang"`
		Messages []struct {
			Text string   `json:"text"`
			Gold []string `json:"gold"`
		} `json:"messages"`
	} `json:"threads"`
}

// labelOf is the label of a candidate, from the start of its text.
func labelOf(c extract.Candidate) string {
	for prefix, l := range map[string]string{"Decided": extract.LabelDecision, "Rule": extract.LabelRule, "Preference": extract.LabelPreference,
		"Procedure": extract.LabelProcedure, "Fact": extract.LabelFact, "Open question": extract.LabelQuestion} {
		if strings.HasPrefix(c.Text, prefix+" (") || strings.HasPrefix(c.Text, prefix+":") {
			return l
		}
	}
	return ""
}

// quality counts, per language and label, the memories predicted, the
// labelled ones and those found (per message: the smaller of the two).
type quality map[string]map[string]*[3]int

func (q quality) add(lang, label string, pred, gold int) {
	for _, k := range []string{lang, "all"} {
		if q[k] == nil {
			q[k] = map[string]*[3]int{}
		}
		for _, l := range []string{label, "all"} {
			if q[k][l] == nil {
				q[k][l] = &[3]int{}
			}
			q[k][l][0] += pred
			q[k][l][1] += gold
			q[k][l][2] += min(pred, gold)
		}
	}
}

func (q quality) pr(lang, label string) (float64, float64) {
	c := q[lang][label]
	if c == nil {
		return 0, 0
	}
	p, r := 1.0, 1.0
	if c[0] > 0 {
		p = float64(c[2]) / float64(c[0])
	}
	if c[1] > 0 {
		r = float64(c[2]) / float64(c[1])
	}
	return p, r
}

func (q quality) table() string {
	var b strings.Builder
	b.WriteString("| language | decisions P / R | rules P / R | questions P / R | all six kinds P / R |\n|---|---|---|---|---|\n")
	for _, lang := range []string{"en", "ru", "uk", "all"} {
		b.WriteString("| " + lang)
		for _, l := range []string{extract.LabelDecision, extract.LabelRule, extract.LabelQuestion, "all"} {
			p, r := q.pr(lang, l)
			fmt.Fprintf(&b, " | %.2f / %.2f", p, r)
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

// evaluate runs extractor over every thread of the labelled set.
func evaluate(t *testing.T, file string, extractor func([]extract.Message) ([]extract.Candidate, error)) quality {
	data, err := os.ReadFile("../internal/extract/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var set labelledSet
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	q := quality{}
	for _, th := range set.Threads {
		var msgs []extract.Message
		for i, m := range th.Messages {
			msgs = append(msgs, extract.Message{ID: fmt.Sprint(i), Text: m.Text})
		}
		cands, err := extractor(msgs)
		if err != nil {
			t.Logf("%s: %v", th.Name, err)
		}
		pred := map[string]map[string]int{}
		for _, c := range cands {
			if pred[c.From] == nil {
				pred[c.From] = map[string]int{}
			}
			pred[c.From][labelOf(c)]++
		}
		for i, m := range th.Messages {
			gold := map[string]int{}
			for _, g := range m.Gold {
				gold[g]++
			}
			for _, l := range extract.Labels {
				if p, g := pred[fmt.Sprint(i)][l], gold[l]; p > 0 || g > 0 {
					q.add(th.Lang, l, p, g)
					if testing.Verbose() && p != g {
						t.Logf("%s [%d] %s: predicted %d, labelled %d: %s", th.Name, i, l, p, g, m.Text)
					}
				}
			}
		}
	}
	return q
}

// TestExtractionQuality measures the rules on the labelled threads
// (English, Russian, Ukrainian; labelled.json, on which the rules were
// tuned, and heldout.json, which they never saw): precision and recall of decisions, rules
// and open questions. With MNEMO_CHAT_URL (and MNEMO_CHAT_MODEL) set, it
// measures that model too. Run with -v for the table of docs/BENCHMARKS.md.
func TestExtractionQuality(t *testing.T) {
	byRules := func(m []extract.Message) ([]extract.Candidate, error) { return extract.Extract(m), nil }
	for _, file := range []string{"labelled.json", "heldout.json"} {
		rules := evaluate(t, file, byRules)
		t.Logf("rules on %s:\n%s", file, rules.table())
		for _, lang := range []string{"en", "ru", "uk"} {
			if p, r := rules.pr(lang, "all"); p < 0.85 || r < 0.6 {
				t.Errorf("%s, %s: precision %.2f, recall %.2f of the rules, below 0.85 / 0.60", file, lang, p, r)
			}
		}
	}
	m, err := llm.FromEnv(os.Getenv)
	if err != nil || m == nil {
		t.Logf("no chat model measured (MNEMO_CHAT_URL unset or invalid: %v)", err)
		return
	}
	s := Extractor{Chat: m}
	for _, file := range []string{"labelled.json", "heldout.json"} {
		model := evaluate(t, file, func(msgs []extract.Message) ([]extract.Candidate, error) {
			return s.modelExtract(context.Background(), msgs)
		})
		t.Logf("%s on %s:\n%s", m.Name(), file, model.table())
	}
}
