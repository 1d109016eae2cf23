package engine

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/memindex"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// Query expansion.
//
// Terms related to the query's — synonyms and broader terms from the
// thesauri installed on the machine (package thesaurus), terms the store's
// own text relates to them (the learned model) — join the keyword channel
// at their lower weight, never replacing the query's own terms, and count
// towards the relevance floor as "expansion" evidence at that weight.

// expansionWeight scales a related term's relatedness in the keyword
// channel: a synonym counts half as much as a word of the query, as a
// neighbouring turn's word counts half as much as the record's own. The
// relevance floor counts it at its full relatedness.
const expansionWeight = 0.5

// variantWeight is the relatedness of a query word's irregular form
// (thesaurus.Variants): the same word, but a different index term.
const variantWeight = 0.9

// Caps on related terms: per query word from the thesauri (the best ones
// the store holds among the strongest maxThesaurusConsidered: a related
// word no record holds finds nothing and would only crowd out one that
// does, while the weakest ones, far down a word's senses, are noise), and
// per source. Chosen on LoCoMo conversations 1–5 among 8, 12, 16, 24 and
// all 32 considered.
const (
	maxThesaurusConsidered = 16
	maxThesaurusPerWord    = 8
	maxExpansionsPerGroup  = 32
	maxLearnedExpansions   = 8
)

// expansion is the related terms of one source.
type expansion struct {
	source string
	terms  []string           // index terms (memindex.Terms), sorted
	weight map[string]float64 // term -> relatedness in (0, 1)
	origin map[string]string  // term -> the query term it relates to ("" for several)
	mean   float64
	// capped: the group takes at most maxExpansionsPerGroup terms as they
	// come. The thesauri's group takes every related word and is cut to
	// its best ones among those the store holds (keepExpansions).
	capped bool
}

func (e *expansion) add(term, origin string, w float64, own map[string]bool) {
	if own[term] || w <= 0 || e.capped && len(e.weight) >= maxExpansionsPerGroup && e.weight[term] == 0 {
		return
	}
	if e.weight == nil {
		e.weight, e.origin = map[string]float64{}, map[string]string{}
	}
	if w > e.weight[term] {
		e.weight[term], e.origin[term] = w, origin
	}
}

func (e *expansion) done() *expansion {
	if len(e.weight) == 0 {
		return nil
	}
	for t, w := range e.weight {
		e.terms = append(e.terms, t)
		e.mean += w
	}
	slices.Sort(e.terms)
	e.mean /= float64(len(e.terms))
	return e
}

// expand returns the related terms of q by source (thesaurus, learned).
func (s *Service) expand(q *query, lm *learned) []*expansion {
	if q.text == "" {
		return nil
	}
	own := make(map[string]bool, len(q.terms))
	for _, t := range q.terms {
		own[t] = true
	}
	var out []*expansion
	if s.thes != nil {
		e := &expansion{source: "thesaurus"}
		for i, w := range q.words {
			origin := q.first[i]
			// The query word's own irregular forms count almost as the
			// word: "children" for "child", "buy" for "bought".
			for _, t := range memindex.Terms(s.thes.Variants(strings.ToLower(w)), 4) {
				if !own[t] && len([]rune(t)) > 2 {
					e.add(t, origin, variantWeight, own)
				}
			}
			for j, r := range s.thes.ExpandIn(w, q.lang) {
				if j == maxThesaurusConsidered {
					break
				}
				word := strings.ToLower(r.Word)
				if words.IsFunctionWord(word) {
					continue
				}
				added := false
				for _, t := range memindex.Terms([]string{word}, 4) {
					if !own[t] && len([]rune(t)) > 2 {
						e.add(t, origin, r.Weight, own)
						added = true
					}
				}
				if added {
					// A Russian or Ukrainian verb's past tense and participle,
					// which the stemmer keeps apart from its infinitive; an
					// English word's irregular forms ("buy": bought).
					for _, t := range memindex.Terms(append(thesaurus.Forms(word), s.thes.Variants(word)...), 4) {
						if !own[t] && len([]rune(t)) > 2 {
							e.add(t, origin, r.Weight, own)
						}
					}
				}
			}
		}
		if q.lang == "" {
			s.addMembers(q, e, own)
		}
		if e = e.done(); e != nil {
			out = append(out, e)
		}
	}
	if lm != nil {
		e := &expansion{source: "learned", capped: true}
		for _, w := range lm.m.Expand(q.terms, maxLearnedExpansions, lm.m.NullSim(nullQuantile)) {
			e.add(w.Term, "", w.Weight, own)
		}
		if e = e.done(); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// keywordQuery returns the keyword hits of a query's own terms: a store
// that searches pre-cut index terms (mnemo.TermKeyworder) gets them as
// they are, others the content words as text, which they cut into the
// same terms.
func (s *Service) keywordQuery(ctx context.Context, sc mnemo.Scope, q *query, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if tk, ok := s.store.(mnemo.TermKeyworder); ok {
		return tk.KeywordTerms(ctx, sc, q.terms, f, n)
	}
	return s.store.Keyword(ctx, sc, q.text, f, n)
}

// keywordExpansion returns the keyword hits of an expansion's terms: a
// store that searches pre-cut index terms (mnemo.TermKeyworder: the SQLite
// store) gets them as they are, others as text, which they cut again.
func (s *Service) keywordExpansion(ctx context.Context, sc mnemo.Scope, e *expansion, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	if tk, ok := s.store.(mnemo.TermKeyworder); ok {
		return tk.KeywordTerms(ctx, sc, e.terms, f, n)
	}
	return s.store.Keyword(ctx, sc, strings.Join(e.terms, " "), f, n)
}

// Thesaurus returns the thesauri expanding queries (nil: none).
func (s *Service) Thesaurus() *thesaurus.Thesaurus { return s.thes }

// addMembers adds to e the kinds and instances the thesaurus files under
// the category a question asks for (answerType): "which cities" reaches
// Paris, "what instruments" the clarinet, "what martial arts" taekwondo.
// Only the asked-for category is expanded: a noun elsewhere in the query
// is what the records talk about, not a class of answers.
func (s *Service) addMembers(q *query, e *expansion, own map[string]bool) {
	cat := answerType(q.raw, q.spans)
	if len(cat) == 0 {
		return
	}
	head := cat[len(cat)-1]
	origin := ""
	for _, t := range memindex.Terms([]string{head}, 4) {
		origin = t
	}
	if origin == "" {
		return
	}
	var rs []thesaurus.Related
	if len(cat) > 1 {
		rs = s.thes.Members(cat[len(cat)-2], head) // "martial arts", "board games"
	}
	if len(rs) == 0 {
		// No such compound: each word of the category ("art hobby").
		for _, w := range cat {
			rs = append(rs, s.thes.Members(w)...)
		}
	}
	for _, r := range rs {
		word := strings.ToLower(r.Word)
		if words.IsFunctionWord(word) {
			continue
		}
		for _, t := range memindex.Terms([]string{word}, 4) {
			if !own[t] && len([]rune(t)) > 2 {
				e.add(t, origin, r.Weight, own)
			}
		}
	}
}

// answerType returns the words naming the category an English question
// asks for, lower-cased: "What European countries has Maria been to?"
// gives european, countries; "What kind of art does she make?" art;
// "Which cities has Jon visited?" cities. Nil when the query asks for no
// category ("What do Melanie's kids like?") or is no such question.
func answerType(raw string, spans [][2]int) []string {
	var ws []string
	for _, sp := range spans {
		ws = append(ws, strings.ToLower(raw[sp[0]:sp[1]]))
	}
	i := slices.IndexFunc(ws, func(w string) bool { return w == "what" || w == "which" || w == "many" })
	if i < 0 || ws[i] == "many" && (i == 0 || ws[i-1] != "how") {
		return nil
	}
	i++
	if i+1 < len(ws) && ws[i+1] == "of" && (strings.HasPrefix(ws[i], "kind") || strings.HasPrefix(ws[i], "type") || strings.HasPrefix(ws[i], "sort")) {
		i += 2
	}
	var out []string
	for ; i < len(ws) && len(out) < 3; i++ {
		w := ws[i]
		if words.IsFunctionWord(w) || !isLatinWord(w) {
			break
		}
		out = append(out, w)
	}
	return out
}

// isLatinWord reports whether w is letters of the Latin script only.
func isLatinWord(w string) bool {
	for _, r := range w {
		if !unicode.Is(unicode.Latin, r) {
			return false
		}
	}
	return w != ""
}
