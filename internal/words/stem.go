package words

import (
	"sync"
	"unicode/utf8"
)

// Stemming strips inflectional and derivational endings from words in
// English, Russian and Ukrainian, so that "deploy", "deployed" and
// "deployment" (or "правила", "правило", "правилами") meet. It is a light,
// rule-based approximation of a stemmer, shared by the hash embedder and the
// keyword indexes. Words must already be lower-cased and folded (Fold: й→и,
// ё→е, ї→і, no diacritics). The suffix list is part of what stored vectors
// and keyword indexes hold: changing it changes both.

// MinStem is the shortest stem suffix stripping may leave, in runes.
const MinStem = 3

// suffixList returns the inflectional and derivational endings StemLen strips, in
// folded form (й→и, ё→е, ї→і), for English, Russian and Ukrainian. The
// longest matching suffix that leaves at least MinStem runes wins.
func suffixList() [][]rune {
	list := []string{
		// English
		"ations", "ation", "ments", "ment", "ings", "ing", "ness", "ities", "ity",
		"ies", "ied", "ers", "er", "ed", "es", "ly", "s", "e",
		// Russian
		"иями", "ями", "ами", "ого", "его", "ому", "ему", "ыми", "ими", "ость", "ости",
		"ия", "ие", "ии", "ию", "ах", "ях", "ам", "ям", "ов", "ев", "ом", "ем",
		"ои", "еи", "ыи", "ая", "яя", "ое", "ее", "ые", "ых", "их", "ую", "юю", "ым", "им",
		"ать", "ять", "ить", "еть", "ться", "тся", "ся", "ть",
		"а", "я", "о", "е", "ы", "и", "у", "ю", "ь",
		// Ukrainian
		"ами", "ів", "ою", "ею", "ові", "еві", "ість", "ості", "ння", "ти", "і",
	}
	out := make([][]rune, 0, len(list))
	for _, s := range list {
		out = append(out, []rune(s))
	}
	// Longest first, so the first match is the longest.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// stemTable holds suffixList three ways; built on first use, so that a
// process that stems nothing does not build it at start.
type stemTable struct {
	all    [][]rune          // suffixList, longest first
	byLast map[rune][][]rune // the entries of all by their last rune, in the order of all
	ascii  []string          // the ASCII entries of all, longest first
}

var stems = sync.OnceValue(func() *stemTable {
	t := &stemTable{all: suffixList(), byLast: map[rune][][]rune{}}
	for _, s := range t.all {
		last := s[len(s)-1]
		t.byLast[last] = append(t.byLast[last], s)
		if ascii := string(s); len(ascii) == len(s) {
			t.ascii = append(t.ascii, ascii)
		}
	}
	return t
})

// StemLen returns the length of w's stem: w without its longest known suffix,
// keeping at least MinStem runes. It is a light, language-agnostic
// approximation of a stemmer that maps "deploy", "deployed" and "deployment"
// (or "правила", "правило", "правилами") to one stem.
func StemLen(w []rune) int {
	n := len(w)
	if n <= MinStem {
		return n
	}
	// Only the suffixes that end in w's last rune can match, in the order
	// of suffixes.
	for _, s := range stems().byLast[w[n-1]] {
		k := len(s)
		if n-k < MinStem || !hasSuffix(w, s) {
			continue
		}
		// "class" keeps its "s"; "classes" loses "es".
		if k == 1 && s[0] == 's' && w[n-2] == 's' {
			continue
		}
		n -= k
		break
	}
	// A Cyrillic stem left ending in a vowel loses it too, so that "деплой"
	// and "деплоя" (folded "деплои", "деплоя") share the stem "депл".
	if n > MinStem+1 && isCyrillicVowel(w[n-1]) {
		n--
	}
	return n
}

func isCyrillicVowel(r rune) bool {
	switch r {
	case 'а', 'е', 'и', 'о', 'у', 'ы', 'э', 'ю', 'я', 'і', 'є', 'ь':
		return true
	}
	return false
}

func hasSuffix(w, s []rune) bool {
	off := len(w) - len(s)
	for i, r := range s {
		if w[off+i] != r {
			return false
		}
	}
	return true
}

// Stem returns the stem of the folded word w.
func Stem(w string) string {
	return w[:StemBytes([]byte(w))]
}

// StemBytes returns the length in bytes of the stem of the folded word w. ASCII
// words are handled without allocating.
func StemBytes(w []byte) int {
	for _, c := range w {
		if c >= 0x80 {
			// Runes and where each starts, so that invalid bytes keep
			// their own length.
			r := make([]rune, 0, len(w))
			offs := make([]int, 0, len(w)+1)
			for i := 0; i < len(w); {
				rr, size := utf8.DecodeRune(w[i:])
				r = append(r, rr)
				offs = append(offs, i)
				i += size
			}
			offs = append(offs, len(w))
			return offs[StemLen(r)]
		}
	}
	n := len(w)
	if n <= MinStem {
		return n
	}
	for _, s := range stems().ascii {
		k := len(s)
		if n-k < MinStem || string(w[n-k:]) != s {
			continue
		}
		if k == 1 && s[0] == 's' && w[n-2] == 's' {
			continue
		}
		return n - k
	}
	return n
}
