package semantic

import (
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/memindex"
)

// maxTermBytes drops absurdly long tokens, as the keyword index does
// (words.MaxRunes runes; a rune takes at most 4 bytes).
const maxTermBytes = 4 * words.MaxRunes

// Terms returns the content terms of text in order, duplicates included,
// as the model learns and looks them up: the keyword index's terms
// (memindex.EachTerm: folded as its FTS5 tokenizer folds, then stemmed by
// stem), without stopwords (words.IsStopword), one-rune terms and terms
// without a letter (numbers, dates). Query terms cut by memindex.Terms are
// the same strings, so either can be passed to Expand.
func Terms(text string) []string {
	var out []string
	eachTerm(text, nil, func(t []byte) { out = append(out, string(t)) })
	return out
}

// eachTerm calls fn with every content term of text (see Terms); the slice
// is only valid during the call. It returns buf for reuse.
func eachTerm(text string, buf []byte, fn func(term []byte)) []byte {
	return memindex.EachTerm([]byte(text), buf, func(t []byte) {
		if t, ok := learnable(t); ok {
			fn(t)
		}
	})
}

// learnable returns the stem of a term memindex.EachTerm cut, and whether
// the model learns it: not too long, a content term, no stopword.
func learnable(t []byte) ([]byte, bool) {
	if len(t) > maxTermBytes || !content(t) || words.IsStopword(string(t)) {
		return nil, false
	}
	return t[:words.StemBytes(t)], true
}

// content reports whether a folded term is worth learning: at least two
// runes, one of them a letter.
func content(t []byte) bool {
	if utf8.RuneCount(t) < 2 {
		return false
	}
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(t[i:])
		if unicode.IsLetter(r) {
			return true
		}
		i += size
	}
	return false
}
