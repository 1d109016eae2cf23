package semantic

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/locomotest"
)

// locomoSample is the part of a LoCoMo sample the diagnostic reads.
type locomoSample struct {
	ID   string                     `json:"sample_id"`
	Conv map[string]json.RawMessage `json:"conversation"`
	QA   []struct {
		Question string   `json:"question"`
		Category int      `json:"category"`
		Evidence []string `json:"evidence"`
	} `json:"qa"`
}

type locomoTurn struct {
	DiaID   string `json:"dia_id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

var diaRe = regexp.MustCompile(`^D:?(\d+):(\d+)$`)

// normDia returns "D<session>:<turn>" without zero padding, or "".
func normDia(s string) string {
	m := diaRe.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return fmt.Sprintf("D%d:%d", a, b)
}

func loadLocomo(t *testing.T) []locomoSample {
	path := locomotest.File(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s []locomoSample
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// turns returns a sample's turns in order, as records store them.
func (s locomoSample) turns(t *testing.T) (ids, texts []string) {
	var sessions []int
	for k := range s.Conv {
		if n, ok := strings.CutPrefix(k, "session_"); ok && !strings.Contains(n, "_") {
			i, _ := strconv.Atoi(n)
			sessions = append(sessions, i)
		}
	}
	sort.Ints(sessions)
	for _, n := range sessions {
		var ts []locomoTurn
		if err := json.Unmarshal(s.Conv[fmt.Sprintf("session_%d", n)], &ts); err != nil {
			t.Fatal(err)
		}
		for _, tu := range ts {
			text := tu.Speaker + ": " + tu.Text
			if tu.Caption != "" {
				text += " [shares a photo: " + tu.Caption + "]"
			}
			ids = append(ids, normDia(tu.DiaID))
			texts = append(texts, text)
		}
	}
	return ids, texts
}

// TestLoCoMoExpansion is a diagnostic, not a gate. For each of LoCoMo's
// conversations 1-5 it trains a model on the conversation's turns (as a
// namespace would) and takes the questions of categories 1-4 whose
// evidence turn shares no content term with the question. For those it
// reports how often the turn holds a term of the question's expansion
// (against how often any other such turn does), and how often it ranks in
// the top 10 of all turns scored by the expansion alone (each expansion
// term found adds weight × idf) and by Embed's cosine with the question,
// against chance. It does so for the turns
// as stored ("Speaker: text") and, since names make many questions share a
// term with their evidence, for the utterances with the speakers' names
// removed from the questions too.
func TestLoCoMoExpansion(t *testing.T) {
	samples := loadLocomo(t)
	for _, names := range []bool{true, false} {
		locomoExpansion(t, samples[:5], names)
	}
}

func locomoExpansion(t *testing.T, samples []locomoSample, names bool) {
	const k, top = 10, 10
	var pairs, reached, ranked, embRanked, others, othersReached int
	var chance float64
	for _, s := range samples {
		ids, texts := s.turns(t)
		var speakers []string
		if !names {
			for i, x := range texts {
				sp, rest, _ := strings.Cut(x, ": ")
				texts[i] = rest
				for _, w := range Terms(sp) {
					if !slices.Contains(speakers, w) {
						speakers = append(speakers, w)
					}
				}
			}
		}
		start := time.Now()
		m, err := Train(context.Background(), texts, Config{})
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		thr := m.NullSim(0.99)
		if names {
			t.Logf("%s: %d turns, %d terms, dim %d, %d PPMI pairs, trained in %v; null sim p50 %.3f p95 %.3f p99 %.3f p99.9 %.3f; centroid of 3 p99 %.3f",
				s.ID, len(texts), m.Len(), m.Dim(), m.pairs, time.Since(start).Round(time.Millisecond),
				m.NullSim(0.5), m.NullSim(0.95), thr, m.NullSim(0.999), m.nullSim(2, 0.99))
			t.Logf("  text null sim (Embed of random turns) p50 %.3f p95 %.3f p99 %.3f", m.NullTextSim(0.5), m.NullTextSim(0.95), m.NullTextSim(0.99))
		}
		if s.ID == "conv-26" && names {
			for _, w := range []string{"painting", "art", "camping", "adoption", "beach"} {
				var ns []string
				for _, n := range m.Neighbours(w, 8) {
					ns = append(ns, fmt.Sprintf("%s %.2f", n.Term, n.Sim))
				}
				t.Logf("  neighbours of %s: %s", w, strings.Join(ns, ", "))
			}
		}
		turnTerms := make(map[string][]string, len(ids))
		df := map[string]int{}
		for i, id := range ids {
			ts := Terms(texts[i])
			turnTerms[id] = ts
			seen := map[string]bool{}
			for _, w := range ts {
				if !seen[w] {
					seen[w] = true
					df[w]++
				}
			}
		}
		score := func(exp []Weighted, ts []string) float64 {
			s := 0.0
			for _, w := range exp {
				if slices.Contains(ts, w.Term) {
					s += w.Weight * math.Log(float64(len(ids))/float64(df[w.Term]))
				}
			}
			return s
		}
		for _, qa := range s.QA {
			if qa.Category < 1 || qa.Category > 4 {
				continue
			}
			var q []string
			for _, w := range Terms(qa.Question) {
				if !slices.Contains(speakers, w) {
					q = append(q, w)
				}
			}
			shares := func(ts []string) bool {
				return slices.ContainsFunc(ts, func(x string) bool { return slices.Contains(q, x) })
			}
			exp := m.Expand(q, k, thr)
			evidence := map[string]bool{}
			for _, e := range qa.Evidence {
				for _, f := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ' ' }) {
					if id := normDia(f); id != "" && turnTerms[id] != nil {
						evidence[id] = true
					}
				}
			}
			scores := make([]float64, len(ids))
			emb := make(map[string]float64, len(ids))
			qv := m.Embed(strings.Join(q, " "))
			for i, id := range ids {
				scores[i] = score(exp, turnTerms[id])
				emb[id] = float64(dot(qv, m.Embed(texts[i])))
			}
			for id := range evidence {
				ts := turnTerms[id]
				if shares(ts) {
					continue
				}
				pairs++
				chance += float64(top) / float64(len(ids))
				better := 0
				for _, x := range emb {
					if x > emb[id] {
						better++
					}
				}
				if better < top {
					embRanked++
				}
				sc := score(exp, ts)
				if sc > 0 {
					reached++
					better := 0
					for _, x := range scores {
						if x > sc {
							better++
						}
					}
					if better < top {
						ranked++
					}
				}
			}
			for _, id := range ids {
				if ts := turnTerms[id]; !evidence[id] && !shares(ts) {
					others++
					if score(exp, ts) > 0 {
						othersReached++
					}
				}
			}
		}
	}
	what := "turns as stored"
	if !names {
		what = "utterances, speaker names dropped"
	}
	t.Logf("conversations 1-5, %s: %d evidence turns share no term with their question; expansion (%d terms, above NullSim(0.99)) reaches %d (%.1f %%; other such turns %.1f %%); ranks it in the top %d of its conversation by expansion alone: %d (%.1f %%, chance %.1f %%)",
		what, pairs, k, reached, pct(reached, pairs), pct(othersReached, others), top, ranked, pct(ranked, pairs), 100*chance/float64(max(pairs, 1)))
	t.Logf("  ranked in the top %d by Embed cosine with the question alone: %d (%.1f %%)", top, embRanked, pct(embRanked, pairs))
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
