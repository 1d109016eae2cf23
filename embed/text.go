package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// latinFold maps lower-case Latin letters with diacritics (Latin-1
// Supplement, Latin Extended-A and a few of Extended-B) to their base
// letters; ligatures fold to two letters. Zero means "no folding".
var latinFold [0x250][2]rune

func init() {
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
			latinFold[r][0] = b[0]
			if len(b) > 1 {
				latinFold[r][1] = b[1]
			}
		}
	}
	for _, w := range stopList {
		stopwords[featureKey(classStem, foldWord(w))] = true
	}
}

// fold lower-cases r and strips its diacritics. It returns up to two runes;
// r2 is zero unless r is a ligature such as "æ" or "ß".
func fold(r rune) (r1, r2 rune) {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r, 0
	}
	r = unicode.ToLower(r)
	if r < rune(len(latinFold)) {
		if f := latinFold[r]; f[0] != 0 {
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

// isWordRune reports whether r belongs to a word token.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isMark reports whether r is a combining mark (a decomposed diacritic),
// which is dropped without ending the word.
func isMark(r rune) bool {
	return r >= 0x300 && unicode.Is(unicode.Mn, r)
}

// foldWord folds a whole word the way the tokenizer does.
func foldWord(w string) []rune {
	out := make([]rune, 0, len(w))
	for _, r := range strings.ToLower(w) {
		if isMark(r) {
			continue
		}
		r1, r2 := fold(r)
		out = append(out, r1)
		if r2 != 0 {
			out = append(out, r2)
		}
	}
	return out
}

// minStem is the shortest stem suffix stripping may leave, in runes.
const minStem = 3

// suffixes are inflectional and derivational endings stripped by stem, in
// folded form (й→и, ё→е, ї→і), for English, Russian and Ukrainian. The
// longest matching suffix that leaves at least minStem runes wins.
var suffixes = func() [][]rune {
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
}()

// stem returns the length of w's stem: w without its longest known suffix,
// keeping at least minStem runes. It is a light, language-agnostic
// approximation of a stemmer that maps "deploy", "deployed" and "deployment"
// (or "правила", "правило", "правилами") to one stem.
func stem(w []rune) int {
	n := len(w)
	if n <= minStem {
		return n
	}
	for _, s := range suffixes {
		k := len(s)
		if n-k < minStem || !hasSuffix(w, s) {
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
	if n > minStem+1 && isCyrillicVowel(w[n-1]) {
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

// stopwords holds the stem feature keys of function words, which carry
// little meaning and get a small weight.
var stopwords = map[uint64]bool{}

var stopList = strings.Fields(`
a an the and or of to in on at for by with from is are was were be been being it its
this that these those as not no but if then so do does did has have had will would can
could should may might must i we you he she they them our your their my me us there here
what which who whom when where why how all any some such than too very just also into
over under about after before up down out off again once only own same other each both
few more most nor s t

и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
ее мне было вот от меня еще нет о из ему теперь когда даже ну ли если уже или ни быть был
него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть надо
ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто
этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы нее сейчас
были куда зачем всех никогда можно при наконец об другой хоть после над больше тот через
эти нас про всего них какая много разве эту моя впрочем свою этой перед иногда чуть том
нельзя такой им более всегда конечно всю между это

і й та в у на з із зі до від за що як не це ці той але або чи щоб для по при про ж же ще
вже так то він вона воно вони ми ви я ти його її їх їм нам вам мені тобі був була було
були є бути може можна також тому теж який яка яке які коли де там тут цей ця над під між
через без після перед лише тільки
`)
