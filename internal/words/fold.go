package words

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// latinFold maps lower-case Latin letters with diacritics (Latin-1
// Supplement, Latin Extended-A and a few of Extended-B) to their base
// letters; ligatures fold to two letters. Zero means "no folding". Built
// on first use.
var latinFold = sync.OnceValue(func() *[0x250][2]rune {
	var t [0x250][2]rune
	for _, g := range []struct{ base, variants string }{
		{"a", "àáâãäåāăąǎ"}, {"ae", "æ"}, {"c", "çćĉċč"}, {"d", "ðďđ"},
		{"e", "èéêëēĕėęě"}, {"g", "ĝğġģ"}, {"h", "ĥħ"}, {"i", "ìíîïĩīĭįıǐ"},
		{"ij", "ĳ"}, {"j", "ĵ"}, {"k", "ķĸ"}, {"l", "ĺļľŀł"}, {"n", "ñńņňŉŋ"},
		{"o", "òóôõöøōŏőơǒ"}, {"oe", "œ"}, {"r", "ŕŗř"}, {"s", "śŝşšſș"},
		{"ss", "ß"}, {"t", "ţťŧț"}, {"th", "þ"}, {"u", "ùúûüũūŭůűųưǔ"}, {"w", "ŵ"},
		{"y", "ýÿŷ"}, {"z", "źżž"},
	} {
		b := []rune(g.base)
		for _, r := range g.variants {
			t[r][0] = b[0]
			if len(b) > 1 {
				t[r][1] = b[1]
			}
		}
	}
	return &t
})

// FoldRune lower-cases r and strips its diacritics. It returns up to two runes;
// r2 is zero unless r is a ligature such as "æ" or "ß".
func FoldRune(r rune) (r1, r2 rune) {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r, 0
	}
	r = unicode.ToLower(r)
	if t := latinFold(); r < rune(len(t)) {
		if f := t[r]; f[0] != 0 {
			return f[0], f[1]
		}
		return r, 0
	}
	switch r {
	case 'ё':
		return 'е', 0
	case 'й':
		return 'и', 0
	case 'ї':
		return 'і', 0
	case 'ў':
		return 'у', 0
	}
	return r, 0
}

// Fold lower-cases w and strips its diacritics, dropping combining marks:
// the form StemLen and Stem expect.
func Fold(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	var b strings.Builder
	for _, r := range strings.ToLower(w) {
		if r >= 0x300 && unicode.Is(unicode.Mn, r) {
			continue
		}
		r1, r2 := FoldRune(r)
		b.WriteRune(r1)
		if r2 != 0 {
			b.WriteRune(r2)
		}
	}
	return b.String()
}
