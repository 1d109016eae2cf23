package embed

import (
	"github.com/mnemo-dev/mnemo/stem"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// fold lower-cases r and strips its diacritics (see stem.FoldRune).
func fold(r rune) (r1, r2 rune) { return stem.FoldRune(r) }

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

// stopwords holds the stem feature keys of function words, which carry
// little meaning and get a small weight. Built on first use.
var stopwords = sync.OnceValue(func() map[uint64]bool {
	m := map[uint64]bool{}
	for _, w := range stopList {
		m[featureKey(classStem, foldWord(w))] = true
	}
	return m
})

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
