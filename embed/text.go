package embed

import (
	"strings"
	"sync"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// stopwords holds the stem feature keys of function words, which carry
// little meaning and get a small weight. Built on first use.
//
// stopList is part of the hash embedder's vectors (version 1), frozen:
// adding or removing a word would change the vector of every text that
// holds it, and stored vectors would no longer match their queries. It is
// a subset of the word model's function words (words.IsFunctionWord),
// which may grow; TestStopListIsFrozen holds both.
var stopwords = sync.OnceValue(func() map[uint64]bool {
	m := map[uint64]bool{}
	for _, w := range stopList() {
		m[featureKey(classStem, []rune(words.Fold(w)))] = true
	}
	return m
})

// stopList returns the words of stopText.
func stopList() []string { return strings.Fields(stopText) }

const stopText = `
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
`
