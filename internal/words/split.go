package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxRunes is the length of the longest word: a longer run of letters is
// no word (a hash, base64, a URL's tail) and is skipped, neither indexed
// nor searched.
const MaxRunes = 64

// isWordStart reports whether r begins or continues a word: a letter or a
// number of any script.
func isWordStart(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// Spans calls fn with the byte offsets of each word of s, in order: a run
// of letters, numbers and marks, where a mark (a combining diacritic, a
// vowel sign) continues a word but does not start one. Everything else
// (spaces, punctuation, symbols, apostrophes, hyphens, invalid UTF-8)
// separates words. Words longer than MaxRunes runes are skipped. fn
// returns false to stop.
func Spans(s string, fn func(start, end int) bool) {
	start, runes := -1, 0
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isWordStart(r) || start >= 0 && r >= utf8.RuneSelf && unicode.IsMark(r) {
			if start < 0 {
				start = i
			}
			runes++
		} else if start >= 0 {
			if runes <= MaxRunes && !fn(start, i) {
				return
			}
			start, runes = -1, 0
		}
		i += size
	}
	if start >= 0 && runes <= MaxRunes {
		fn(start, len(s))
	}
}

// Each calls fn with each word of s (see Spans), lower-cased, in order.
// fn returns false to stop.
func Each(s string, fn func(w string) bool) {
	Spans(s, func(start, end int) bool { return fn(strings.ToLower(s[start:end])) })
}

// Split returns the words of s, lower-cased, in order, repeats included.
func Split(s string) []string {
	var out []string
	Each(s, func(w string) bool {
		out = append(out, w)
		return true
	})
	return out
}

// SplitFolded returns the words of s folded (Fold: lower case, no
// diacritics, й→и, ё→е, ї→і), in order, repeats included.
func SplitFolded(s string) []string {
	var out []string
	Spans(s, func(start, end int) bool {
		out = append(out, Fold(s[start:end]))
		return true
	})
	return out
}

// Compounds calls fn with the byte offsets of each compound word of s:
// words (Spans) joined by a single joiner rune between them, as "jean-luc"
// with joiners "-" or "don't" with "'". fn returns false to stop.
func Compounds(s string, joiners string, fn func(start, end int) bool) {
	compounds(s, Spans, joiners, fn)
}

// SpanList returns the byte offsets of the words of s (Spans), for a
// reader that reads them more than once (CompoundsOf, RuleWordsOf).
func SpanList(s string) [][2]int {
	var out [][2]int
	Spans(s, func(start, end int) bool {
		out = append(out, [2]int{start, end})
		return true
	})
	return out
}

// CompoundsOf is Compounds of s given its words (SpanList(s)).
func CompoundsOf(s string, spans [][2]int, joiners string, fn func(start, end int) bool) {
	compounds(s, func(_ string, fn func(start, end int) bool) {
		for _, sp := range spans {
			if !fn(sp[0], sp[1]) {
				return
			}
		}
	}, joiners, fn)
}

func compounds(s string, spans func(string, func(start, end int) bool), joiners string, fn func(start, end int) bool) {
	cs, ce := -1, -1
	stopped := false
	spans(s, func(start, end int) bool {
		if cs >= 0 {
			if r, size := utf8.DecodeRuneInString(s[ce:]); ce+size == start && strings.ContainsRune(joiners, r) {
				ce = end
				return true
			}
			if !fn(cs, ce) {
				stopped = true
				return false
			}
		}
		cs, ce = start, end
		return true
	})
	if cs >= 0 && !stopped {
		fn(cs, ce)
	}
}

// HashWords calls fn with each word of text as the hash embedder cuts it,
// folded (FoldRune), in order; buf is scratch space, returned for reuse,
// and w is only valid during the call.
//
// It is the word model as it was when the hash embedder's vectors were
// first stored (version 1), kept unchanged because stored vectors are
// made from it: a word is a run of letters and decimal digits only
// (other numbers such as "²" and marks other than non-spacing ones
// separate), a non-spacing mark (U+0300 and up) is dropped without ending
// a word, and no word is too long.
func HashWords(text string, buf []rune, fn func(w []rune)) []rune {
	w := buf[:0]
	for _, r := range text {
		if isHashWordRune(r) {
			r1, r2 := FoldRune(r)
			w = append(w, r1)
			if r2 != 0 {
				w = append(w, r2)
			}
			continue
		}
		if r >= 0x300 && unicode.Is(unicode.Mn, r) {
			continue
		}
		if len(w) > 0 {
			fn(w)
			w = w[:0]
		}
	}
	if len(w) > 0 {
		fn(w)
		w = w[:0]
	}
	return w
}

func isHashWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
