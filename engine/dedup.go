package engine

import (
	"strings"
	"sync"
	"unicode"
)

// Duplicate thresholds (DESIGN.md §4): keyword Jaccard >= 0.60 and at least
// three shared keywords.
const (
	dupJaccard = 0.60
	dupShared  = 3
)

// keywords returns the set of content words of text: lowercased runs of
// letters and digits, two runes or longer, without common English, Russian
// and Ukrainian function words.
func keywords(text string) map[string]struct{} {
	out := make(map[string]struct{})
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 2 || stopwords()[w] {
			continue
		}
		out[w] = struct{}{}
	}
	return out
}

// IsDuplicate reports whether two keyword sets describe the same memory.
func IsDuplicate(a, b map[string]struct{}) bool {
	shared := 0
	for w := range a {
		if _, ok := b[w]; ok {
			shared++
		}
	}
	if shared < dupShared {
		return false
	}
	union := len(a) + len(b) - shared
	return float64(shared)/float64(union) >= dupJaccard
}

var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for with from as is are was were be been being
	it its this that these those there here we you they he she i me my our your their them us do does did done have has had
	not no so than then too very can could should would will shall may might must what which who whom whose when where why how
	all any some each about into over under again also just only own same such up down out off
	и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от меня еще нет о из ему
	теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где
	есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой совсем
	ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над больше
	тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой им более
	всегда конечно всю между це що як та й і з до на не у в за від по ми ви вони він вона воно його її їх це цей ця ці той також або але
	бо коли де чому хто який яка яке які що-небудь так ні чи вже ще лише тільки при про для через після над під між без біля`) {
		m[w] = true
	}
	return m
})
