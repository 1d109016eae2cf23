package engine

import (
	"time"

	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/score"
)

// query is a recall's or digest's query cut once (cutQuery) into what
// every part of the read takes of it: the intent rules, the names, the
// time it names, the content words the channels search, their index
// terms and the language. Nothing on the read path cuts the query's text
// again but the embedder, whose vectors are made from its own reading of
// the text (the hash embedder's HashWords), and a store that takes no
// pre-cut terms (mnemo.TermKeyworder, mnemo.TermIDFSource).
type query struct {
	raw    string   // the query as asked
	spans  [][2]int // its words (words.SpanList)
	text   string   // the content words, space-separated: what a store without pre-cut terms searches
	words  []string // the content words
	terms  []string // distinct index terms of the content words
	first  []string // per content word, its first index term ("" for none)
	pieces []string // the content words' terms in order, folded, not stemmed (memindex.Cut.Pieces)
	lang   string   // "ru" or "uk" when the query is known to be in one (words.Letters.Lang)

	intent score.Intent    // the intent rules' reading (score.ClassifyWords)
	names  map[string]bool // the names it mentions (queryNames)
	iv     *interval       // the time it names (parseInterval), nil for none
}

// splitQuery splits a query into its words (a variable: the tests count
// its calls).
var splitQuery = words.SpanList

// cutQuery cuts q once: its words are split once and read by the intent
// rules and the names; the time expression and the content words are
// read by at (the clock is read only for a query that searches).
func cutQuery(q string) *query {
	spans := splitQuery(q)
	return &query{raw: q, spans: spans, intent: score.ClassifyWords(words.RuleWordsOf(q, spans)),
		names: queryNames(q, spans)}
}

// at reads the time q names relative to now and, with the time
// expression taken out (the words around it are split again then), the
// content words.
func (q *query) at(now time.Time) {
	iv, rest := parseInterval(q.raw, now)
	spans := q.spans
	if rest != q.raw {
		spans = splitQuery(rest)
	}
	c := cleanQuery(rest, spans)
	c.raw, c.spans, c.intent, c.names, c.iv = q.raw, q.spans, q.intent, q.names, iv
	*q = *c
}
