package words

import (
	"slices"
	"strings"
	"sync"
)

// Stopwords and function words, per language.
//
// A stopword is one of a language's commonest function words: an article,
// a preposition, a conjunction, a pronoun or an auxiliary that nearly
// every text holds. It tells no text apart from another: keyword queries
// drop it (unless nothing else remains) and the learned model and the
// loops' probes leave it out.
//
// A function word, in the wide sense of IsFunctionWord, carries no topic
// of its own: every stopword, the other pronouns, prepositions, particles
// and auxiliaries, question words, quantifiers, and the politeness and
// politeness of questions ("tell", "kind", "please", «пожалуйста»). The
// relevance floor, query expansion, the duplicate check and prompt topics
// leave function words out.
//
// A request word is what a request to a coding agent says beside its
// topic: thanks, assent and the verbs of asking ("need", "want", "make",
// "use", "look", «спасибо», «сделать», «дякую», «зробити»). In a question
// about a conversation the same words are its topic ("what does Melanie
// like?", "thanks"), so only prompt topics leave them out.
//
// Both tables accept a word lower-cased (the words of Each: "её") or
// folded (Fold: "ее", "її" → "іі"); English contractions are spelled with
// ' (the rule words of RuleWords: "don't").

// Languages lists the languages of the stopword and function-word tables.
var Languages = []string{"en", "ru", "uk"}

// stopEN are the English stopwords.
const stopEN = `
a an and are as at be but by did do does for from had has have how i if in into is it its me my
no not of on or our so than that the their them then there these they this to was we were what
when where which who why will with you your
`

// stopRU are the Russian stopwords.
const stopRU = `
а без би бы в во вот все всё да для до же за и из или к как ли мне мы на над не нет ни но о об
от по при с со так то ты у что чтобы это я его её ее он она они
`

// stopUK are the Ukrainian stopwords.
const stopUK = `
і й та але або чи що як це ми ви від із з ще якщо який яка які де коли
`

// functionEN are the English function words that are not stopwords.
const functionEN = `
about above after again against all also am any anyone anything aren't around because been
before being below between both can can't cannot could couldn't didn't doesn't doing don't done
down during each either else ever every few further get got hadn't hasn't haven't having he her
here here's hers herself him himself his how's however i'd i'll i'm i've isn't it's itself just
kind let let's lets may maybe might mine more most much must mustn't myself neither nor now off
often once one ones only other ought ours ourselves out over own please rather really s same
shall shan't she she'd she'll she's should shouldn't since some something sort such t tell
that's theirs themselves there's they'd they'll they're they've thing things those though
through told too under until up upon us very via wasn't we'd we'll we're we've weren't what's
whatever when's whenever where's whether while who's whom whose why's won't would wouldn't yet
you'd you'll you're you've yours yourself yourselves
`

// functionRU are the Russian function words that are not stopwords.
const functionRU = `
более больше будет будто будут был была были было быть вам вас ваш ваша ваше ваши вдруг ведь
весь вообще впрочем всегда всего всех всю вы где даже два другой ей ему если есть еще ещё ж
зачем здесь им иногда их какая какие каким каких какое какой какую когда кого кому конечно
которая которое которые который кто куда либо лишь лучше между меня много мной мною может можно
мои мой моя моё надо наконец нам нас наш наша наше наши него нее ней нельзя нею неё нибудь
никогда ним ними них ничего ну нужно один однако около оно опять откуда отчего очень перед под
пожалуйста пока после потом потому почему почти про просто раз разве сам сама сами само свое
свои свой свою своя своё себе себя сейчас совсем та также такой там те тебе тебя тем теперь тех
тобой тогда того тоже той только том тот три тут уж уже хорошо хоть хотя чего чей чем через чтоб
чуть чье чья эта эти этим этих этого этой этом этот эту
`

// functionUK are the Ukrainian function words that are not stopwords.
const functionUK = `
аби адже без бо був буде будуть була були було бути біля в вам вас ваша ваше ваші весь вже вона
вони воно все всього всі всіх він для до дуже ж же за зараз звідки зі його йому кого кому котрий
куди лише мене мені мною може можна моя моє мої між мій на навіщо над нам нас наша наше наші
нащо не неї них нього ні ніж ній ось перед по поки потрібно потім при про просто під після раз
сам сама саме самі своя своє свої свій себе собі так також там те тебе теж тепер ти то тобою
тобі той тому треба тут ті тільки у уже усі хоча хто цей цим цих цього цю ця ці цієї через чим
чого чому щоб я яке яким яких якого якою якої яку якій є їй їм їх її
`

// requestEN are the English request words.
const requestEN = `
everything like look make need okay see still sure thank thanks two use used using want way yeah
yes
`

// requestRU are the Russian request words.
const requestRU = `
давай давайте можешь сделать спасибо
`

// requestUK are the Ukrainian request words.
const requestUK = `
будь давай дякую зробити ласка можеш
`

type table struct {
	stop, function, request map[string]bool
	lists                   map[string][3][]string // language -> stopwords, other function words, request words
}

var tables = sync.OnceValue(func() *table {
	t := &table{stop: map[string]bool{}, function: map[string]bool{}, request: map[string]bool{}, lists: map[string][3][]string{}}
	add := func(m map[string]bool, list string) []string {
		ws := strings.Fields(list)
		for _, w := range ws {
			m[w] = true
			m[Fold(w)] = true
		}
		return ws
	}
	for _, l := range []struct{ lang, stop, function, request string }{
		{"en", stopEN, functionEN, requestEN}, {"ru", stopRU, functionRU, requestRU}, {"uk", stopUK, functionUK, requestUK},
	} {
		t.lists[l.lang] = [3][]string{add(t.stop, l.stop), add(t.function, l.function), add(t.request, l.request)}
	}
	return t
})

// IsStopword reports whether w, lower-cased or folded, is a stopword of
// English, Russian or Ukrainian.
func IsStopword(w string) bool { return tables().stop[w] }

// IsFunctionWord reports whether w, lower-cased or folded, carries no
// topic of its own in English, Russian or Ukrainian: a stopword or
// another function word.
func IsFunctionWord(w string) bool {
	t := tables()
	return t.stop[w] || t.function[w]
}

// IsRequestWord reports whether w, lower-cased or folded, is a request
// word of English, Russian or Ukrainian.
func IsRequestWord(w string) bool { return tables().request[w] }

// Stopwords returns the stopwords of lang ("en", "ru", "uk"), nil for
// another language.
func Stopwords(lang string) []string { return slices.Clone(tables().lists[lang][0]) }

// FunctionWords returns the function words of lang that are not
// stopwords, nil for another language.
func FunctionWords(lang string) []string { return slices.Clone(tables().lists[lang][1]) }

// RequestWords returns the request words of lang, nil for another
// language.
func RequestWords(lang string) []string { return slices.Clone(tables().lists[lang][2]) }
