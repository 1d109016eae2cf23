package words

import "strings"

// Rules: the keyword matcher of the classifiers (a query's intent, a
// prompt's coding intent).
//
// A classifier reads a text as its rule words (RuleWords) and matches
// patterns written in the same form. A pattern is one or more words
// separated by spaces, matched against consecutive rule words:
//
//	word     the word itself
//	word*    a word that starts with "word" (a stem)
//	*ending  a word longer than "ending" that ends with it
//	^...     only at the text's first word
//
// Pattern words are normalised as the text is (folded, every apostrophe
// read as '), so they may be written with ё, й or ’.

// apostrophes are the spellings of the apostrophe inside a word, as in
// "don't", "рев'ю", "п’ять".
const apostrophes = "'’ʼ‘`"

// RuleWords returns the rule words of text, in order: its words (Spans)
// folded (Fold), where words joined by one apostrophe are one word spelled
// with ' ("doesn't", "рев'ю").
func RuleWords(text string) []string {
	return ruleWords(text, func(fn func(start, end int) bool) { Compounds(text, apostrophes, fn) })
}

// RuleWordsOf is RuleWords of text given its words (SpanList(text)).
func RuleWordsOf(text string, spans [][2]int) []string {
	return ruleWords(text, func(fn func(start, end int) bool) { CompoundsOf(text, spans, apostrophes, fn) })
}

func ruleWords(text string, compounds func(fn func(start, end int) bool)) []string {
	var out []string
	compounds(func(start, end int) bool {
		out = append(out, ruleWord(text[start:end]))
		return true
	})
	return out
}

// ruleWord folds w and spells its apostrophes '.
func ruleWord(w string) string {
	w = Fold(w)
	if strings.ContainsAny(w, apostrophes[1:]) {
		w = strings.Map(func(r rune) rune {
			if strings.ContainsRune(apostrophes, r) {
				return '\''
			}
			return r
		}, w)
	}
	return w
}

// wordMatcher matches one rule word: exactly, by prefix or by suffix.
type wordMatcher struct {
	s              string
	prefix, suffix bool
}

func (m wordMatcher) match(w string) bool {
	switch {
	case m.prefix:
		return strings.HasPrefix(w, m.s)
	case m.suffix:
		return len(w) > len(m.s) && strings.HasSuffix(w, m.s)
	}
	return w == m.s
}

// Pattern is a compiled pattern (see Compile).
type Pattern struct {
	anchored bool
	words    []wordMatcher
}

// Compile compiles one pattern: words separated by spaces, each exact,
// "prefix*" or "*suffix", the whole optionally anchored at the first word
// by a leading "^".
func Compile(src string) Pattern {
	var p Pattern
	if strings.HasPrefix(src, "^") {
		p.anchored = true
		src = src[1:]
	}
	for _, w := range strings.Fields(src) {
		switch {
		case strings.HasSuffix(w, "*"):
			p.words = append(p.words, wordMatcher{s: ruleWord(strings.TrimSuffix(w, "*")), prefix: true})
		case strings.HasPrefix(w, "*"):
			p.words = append(p.words, wordMatcher{s: ruleWord(strings.TrimPrefix(w, "*")), suffix: true})
		default:
			p.words = append(p.words, wordMatcher{s: ruleWord(w)})
		}
	}
	return p
}

// MatchAt reports whether p matches the rule words ws from index i on.
func (p Pattern) MatchAt(ws []string, i int) bool {
	if len(p.words) == 0 || (p.anchored && i > 0) || i+len(p.words) > len(ws) {
		return false
	}
	for j, m := range p.words {
		if !m.match(ws[i+j]) {
			return false
		}
	}
	return true
}

// Rules is a set of patterns, indexed by their first word when it is
// exact.
type Rules struct {
	byFirst map[string][]Pattern
	rest    []Pattern
}

// NewRules compiles patterns (see Compile); a pattern given twice counts
// once.
func NewRules(patterns []string) *Rules {
	r := &Rules{byFirst: map[string][]Pattern{}}
	seen := map[string]bool{}
	for _, src := range patterns {
		if seen[src] {
			continue
		}
		seen[src] = true
		p := Compile(src)
		if len(p.words) == 0 {
			continue
		}
		if first := p.words[0]; !first.prefix && !first.suffix {
			r.byFirst[first.s] = append(r.byFirst[first.s], p)
		} else {
			r.rest = append(r.rest, p)
		}
	}
	return r
}

// Match reports whether any pattern matches the rule words ws anywhere.
func (r *Rules) Match(ws []string) bool {
	for i, w := range ws {
		for _, p := range r.byFirst[w] {
			if p.MatchAt(ws, i) {
				return true
			}
		}
		for _, p := range r.rest {
			if p.MatchAt(ws, i) {
				return true
			}
		}
	}
	return false
}

// Count returns the number of matches in the rule words ws: of every
// pattern, at every index.
func (r *Rules) Count(ws []string) int {
	n := 0
	for i, w := range ws {
		for _, p := range r.byFirst[w] {
			if p.MatchAt(ws, i) {
				n++
			}
		}
		for _, p := range r.rest {
			if p.MatchAt(ws, i) {
				n++
			}
		}
	}
	return n
}
