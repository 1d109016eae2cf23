package memindex

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxQueryTokens caps the terms of a keyword query.
const MaxQueryTokens = 32

// MaxTokenRunes drops absurdly long "words" (no real word is that long);
// they are neither indexed nor searched.
const MaxTokenRunes = 64

// stopwords are dropped from keyword queries unless nothing else remains.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`
		a an and are as at be but by did do does for from had has have how i if in into is it its
		me my no not of on or our so than that the their them then there these they this to was
		we were what when where which who why will with you your
		а без би бы в во вот все всё да для до же за и из или к как ли мне мы на над не нет ни но
		о об от по при с со так то ты у что чтобы это я его её ее он она они
		і й та але або чи що як це ми ви від із з ще якщо який яка які де коли`) {
		m[w] = true
	}
	return m
})

// Words calls fn with each word token of s: a run of Unicode letters,
// digits and marks (a mark only after another character), lower-cased;
// tokens longer than MaxTokenRunes are skipped. fn returns false to stop.
func Words(s string, fn func(w string) bool) {
	var b strings.Builder
	runes := 0
	flush := func() bool {
		if b.Len() == 0 {
			return true
		}
		w := strings.ToLower(b.String())
		b.Reset()
		long := runes > MaxTokenRunes
		runes = 0
		if long {
			return true
		}
		return fn(w)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) ||
			(b.Len() > 0 && unicode.IsMark(r))) {
			if runes <= MaxTokenRunes {
				b.WriteRune(r)
			}
			runes++
			continue
		}
		if !flush() {
			return
		}
	}
	flush()
}

// QueryTokens extracts the word tokens of any text, de-duplicated.
// Stopwords are dropped unless only stopwords remain; at most
// MaxQueryTokens are kept.
func QueryTokens(q string) []string {
	var out, stops []string
	seen := make(map[string]bool)
	Words(q, func(w string) bool {
		if seen[w] {
			return true
		}
		seen[w] = true
		if stopwords()[w] {
			if len(stops) < MaxQueryTokens {
				stops = append(stops, w)
			}
			return true
		}
		out = append(out, w)
		return len(out) < MaxQueryTokens
	})
	if len(out) == 0 {
		out = stops
	}
	return out
}

// IsStopword reports whether w (lower-case) is a function word that keyword
// queries drop (English, Russian, Ukrainian).
func IsStopword(w string) bool { return stopwords()[w] }
