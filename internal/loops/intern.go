package loops

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// Probe kinds.
const (
	KindMasked     = "masked"     // the record's words without its most telling one
	KindParaphrase = "paraphrase" // its words replaced by thesaurus synonyms
	KindTemporal   = "temporal"   // "what did we decide N days ago about …"
	KindLanguage   = "language"   // a question in another language about its names and codes
	KindBoundary   = "boundary"   // a neighbour's scope with the record's subject
	KindCorrection = "correction" // a correction triple: a query and the records it missed
)

// Probe is a question the memory should answer, tagged with the records
// that answer it. Probes live in memory only: never as records.
type Probe struct {
	Kind   string       `json:"kind"`
	Query  string       `json:"query"`
	Expect []string     `json:"expect"` // ids of the records that should come back
	Lang   string       `json:"lang"`   // en, ru, uk
	Layer  mnemo.Layer  `json:"layer"`
	Scope  string       `json:"scope"`
	Age    float64      `json:"age_days"`
	Intent score.Intent `json:"intent"`
}

// word is one word of a record as the Intern reads it.
type word struct {
	surface string // lower-cased
	key     string // folded and stemmed: what the keyword index holds
}

// words returns the content words of text in order, once each: letters
// and digits (words.Compounds: "e-mail" is one word), at least three
// runes (or two with a digit), not a stopword.
func contentWords(text string) []word {
	var out []word
	seen := map[string]bool{}
	words.Compounds(text, "-", func(start, end int) bool {
		f := strings.ToLower(text[start:end])
		n := len([]rune(f))
		digit := strings.ContainsFunc(f, unicode.IsDigit)
		if n < 2 || (n < 3 && !digit) || n > 40 || words.IsStopword(f) {
			return true
		}
		k := words.Stem(words.Fold(f))
		if !seen[k] {
			seen[k] = true
			out = append(out, word{surface: f, key: k})
		}
		return true
	})
	return out
}

// language returns en, ru or uk by the letters of text
// (words.Letters.Language).
func language(text string) string { return words.Script(text).Language() }

// names returns the words of text that read the same in every language:
// codes and identifiers with digits, and acronyms of capitals.
func names(text string) []string {
	var out []string
	words.Compounds(text, "-", func(start, end int) bool {
		f := text[start:end]
		letters, digits, upper := 0, 0, 0
		for _, r := range f {
			switch {
			case unicode.IsDigit(r):
				digits++
			case unicode.IsUpper(r):
				letters++
				upper++
			case unicode.IsLetter(r):
				letters++
			}
		}
		if (digits > 0 && letters > 0) || (upper >= 2 && upper == letters && digits == 0) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		return true
	})
	return out
}

// Intern generates probes from the records the caller may see.
type Intern struct {
	// MaxRecords bounds the records probed per run (chosen by a hash of
	// their ids, so a run on the same store probes the same records).
	MaxRecords int
	// Thesaurus, when set, gives paraphrases; nil leaves them out.
	Thesaurus *thesaurus.Thesaurus
	// Model, when set, writes the paraphrase probes: a question the record
	// answers in other words. Its failures (timeouts, refusals, answers
	// that are not the JSON asked for, or that reuse the record's words)
	// fall back to the thesaurus paraphrase; the run goes on.
	Model llm.Model
}

// paraphraseRequest asks the model for one question that the record
// answers without its content words.
func paraphraseRequest(text string) llm.Request {
	return llm.Request{
		System: "You write test questions for a memory system. Given a stored memory, write ONE short question " +
			"(at most 20 words) that this memory answers, in the memory's language, using none of its content " +
			"words: synonyms and paraphrase only. Answer with a JSON object {\"question\": \"...\"} and nothing else.",
		User:      text,
		MaxTokens: 100,
	}
}

// modelParaphrase returns the model's paraphrase question for r, or "" when
// the model failed or its question reuses a content word of the record.
func (in Intern) modelParaphrase(ctx context.Context, r *mnemo.Record, key []word) string {
	var ans struct {
		Question string `json:"question"`
	}
	if err := in.Model.JSON(ctx, paraphraseRequest(r.Text), &ans); err != nil {
		return ""
	}
	q := strings.TrimSpace(ans.Question)
	if q == "" || len(q) > 300 || strings.ContainsAny(q, "\n\r") {
		return ""
	}
	have := map[string]bool{}
	for _, w := range contentWords(q) {
		have[w.key] = true
	}
	for _, w := range key {
		if have[w.key] {
			return "" // not a paraphrase: it reuses the record's words
		}
	}
	return q
}

// source is a record with its content words.
type source struct {
	rec   *mnemo.Record
	words []word
	hash  uint32
}

// Generate lists the namespace's live records visible to c and returns
// probes for up to MaxRecords of them. It writes nothing.
func (in Intern) Generate(ctx context.Context, svc *engine.Service, c mnemo.Caller, ns string, now time.Time) ([]Probe, error) {
	var all []source
	df := map[string]int{}
	after := ""
	for {
		page, err := svc.List(mnemo.WithCallerIn(ctx, c, ns), mnemo.ListOptions{Limit: 1000, After: after})
		if err != nil {
			return nil, err
		}
		for _, r := range page {
			if r.DeletedAt != nil || r.Kind == mnemo.KindCorrection {
				continue
			}
			ws := contentWords(r.Text)
			for _, w := range ws {
				df[w.key]++
			}
			h := fnv.New32a()
			h.Write([]byte(r.ID))
			all = append(all, source{rec: r, words: ws, hash: h.Sum32()})
		}
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].ID
	}
	n := float64(len(all))
	idf := func(k string) float64 { return math.Log(1 + n/float64(max(df[k], 1))) }
	slices.SortFunc(all, func(a, b source) int {
		if a.hash != b.hash {
			if a.hash < b.hash {
				return -1
			}
			return 1
		}
		return strings.Compare(a.rec.ID, b.rec.ID)
	})
	limit := in.MaxRecords
	if limit <= 0 {
		limit = 40
	}
	picked := all[:min(limit, len(all))]
	var out []Probe
	for i, s := range picked {
		if len(s.words) < 3 {
			continue
		}
		r := s.rec
		lang := language(r.Text)
		base := Probe{Expect: []string{r.ID}, Lang: lang, Layer: r.Layer, Scope: r.Scope,
			Age: math.Max(0, now.Sub(r.CreatedAt).Hours()/24)}
		// The record's words by how much they tell it apart, best first.
		ranked := slices.Clone(s.words)
		slices.SortStableFunc(ranked, func(a, b word) int {
			ia, ib := idf(a.key), idf(b.key)
			if ia != ib {
				if ia > ib {
					return -1
				}
				return 1
			}
			return strings.Compare(a.surface, b.surface)
		})
		top := func(from, n int) []string {
			var ws []string
			for _, w := range ranked[min(from, len(ranked)):min(from+n, len(ranked))] {
				ws = append(ws, w.surface)
			}
			return ws
		}
		// Masked: the five next most telling words, without the key term.
		if len(ranked) >= 3 {
			p := base
			p.Kind, p.Query = KindMasked, strings.Join(top(1, 5), " ")
			out = append(out, p)
		}
		// Paraphrase: the most telling words, the first two a thesaurus
		// knows a synonym of replaced by it (single words only): a question
		// put in other words, not a word salad.
		modelQ := ""
		if in.Model != nil {
			modelQ = in.modelParaphrase(ctx, r, s.words)
		}
		if modelQ != "" {
			p := base
			p.Kind, p.Query = KindParaphrase, modelQ
			out = append(out, p)
		} else if in.Thesaurus != nil {
			var q []string
			replaced := 0
			for _, w := range ranked[:min(5, len(ranked))] {
				syn := ""
				for _, rel := range in.Thesaurus.Expand(w.surface) {
					if replaced == 2 {
						break
					}
					if rel.Relation == thesaurus.Synonym && !strings.ContainsAny(rel.Word, " -") && rel.Term != w.key {
						syn = strings.ToLower(rel.Word)
						break
					}
				}
				if syn != "" {
					q = append(q, syn)
					replaced++
				} else {
					q = append(q, w.surface)
				}
			}
			if replaced > 0 {
				p := base
				p.Kind, p.Query = KindParaphrase, strings.Join(q, " ")
				out = append(out, p)
			}
		}
		// Temporal: the day the record was written, as the read path
		// understands it.
		if phrase := dayPhrase(r.CreatedAt, now); phrase != "" {
			p := base
			p.Kind = KindTemporal
			p.Query = "what did we decide " + phrase + " about " + strings.Join(top(0, 3), " ")
			out = append(out, p)
		}
		// Other language: a question framed in another language about the
		// record's names and codes, which read the same in every language.
		if ns := names(r.Text); len(ns) > 0 {
			p := base
			p.Kind = KindLanguage
			extra := top(0, 2)
			switch lang {
			case "en":
				p.Lang, p.Query = "ru", "что мы знаем о "+strings.Join(append(ns[:min(3, len(ns))], extra...), " ")
			default:
				p.Lang, p.Query = "en", "what do we know about "+strings.Join(append(ns[:min(3, len(ns))], extra...), " ")
			}
			out = append(out, p)
		}
		// Boundary: the record's subject asked within a neighbour's scope
		// (the next picked record of another scope): the subject must win.
		for j := 1; j < len(picked); j++ {
			nb := picked[(i+j)%len(picked)].rec
			if nb.Scope == r.Scope {
				continue
			}
			scopeWords := contentWords(strings.ReplaceAll(nb.Scope, "/", " "))
			if len(scopeWords) == 0 {
				break
			}
			p := base
			p.Kind = KindBoundary
			var q []string
			for _, w := range scopeWords[:min(2, len(scopeWords))] {
				q = append(q, w.surface)
			}
			p.Query = strings.Join(append(q, top(0, 3)...), " ")
			out = append(out, p)
			break
		}
	}
	for i := range out {
		out[i].Intent = score.Classify(out[i].Query)
	}
	return out, nil
}

// dayPhrase names the day of t relative to now as the read path's time
// expressions do: today, yesterday, N days ago (up to ten); "" beyond.
func dayPhrase(t, now time.Time) string {
	t, now = t.UTC(), now.UTC()
	d0 := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	d1 := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	days := int(d1.Sub(d0).Hours() / 24)
	switch {
	case days < 0 || days > 10:
		return ""
	case days == 0:
		return "today"
	case days == 1:
		return "yesterday"
	}
	return fmt.Sprintf("%d days ago", days)
}
