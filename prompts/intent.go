package prompts

import (
	"strings"
	"sync"
	"unicode"
)

// CodingIntent is what a prompt to a coding agent asks for.
type CodingIntent string

// Coding intents.
const (
	IntentFix      CodingIntent = "fix"      // repair a bug, an error, a failing test
	IntentFeature  CodingIntent = "feature"  // add or implement something new
	IntentRefactor CodingIntent = "refactor" // restructure without changing behaviour
	IntentQuestion CodingIntent = "question" // ask or explain, no change requested
	IntentReview   CodingIntent = "review"   // review or check existing work
	IntentOps      CodingIntent = "ops"      // build, deploy, release, CI, environment
	IntentOther    CodingIntent = "other"    // none of the above
)

// CodingIntents lists every coding intent, in tie-break order.
func CodingIntents() []CodingIntent {
	return []CodingIntent{IntentReview, IntentFix, IntentRefactor, IntentOps, IntentFeature, IntentQuestion, IntentOther}
}

// codingRules maps each intent to its keywords, in English, Russian and
// Ukrainian; "word*" matches a prefix (a stem), two words match a phrase.
var codingRules = []struct {
	intent CodingIntent
	words  []string
}{
	{IntentReview, []string{
		"review*", "code review", "look over", "audit*", "double check", "sanity check", "lgtm",
		"ревью", "ревью*", "проверь код", "посмотри код", "оцени", "аудит*",
		"перевір*", "переглянь", "рев'ю",
	}},
	{IntentFix, []string{
		"fix*", "bug*", "error*", "fail*", "broken", "crash*", "panic*", "regression*", "flaky",
		"doesn't work", "not working", "wrong", "issue", "exception*", "debug*", "repair*",
		"исправ*", "почини*", "ошибк*", "ошибоч*", "баг*", "пада*", "упал*", "сломал*", "не работает",
		"почин*", "падени*", "краш*",
		"виправ*", "помилк*", "полагод*", "зламал*", "не працює", "пада", "впав*",
	}},
	{IntentRefactor, []string{
		"refactor*", "rename*", "clean up", "cleanup", "simplif*", "extract*", "restructur*",
		"reorganiz*", "deduplicat*", "dedupe", "tidy", "split", "move",
		"рефактор*", "переимен*", "упрост*", "вынес*", "реорганиз*", "почист*", "раздели*",
		"перейменуй*", "перейменув*", "спрост*", "винес*", "рефакторинг", "почисть", "розділи*",
	}},
	{IntentOps, []string{
		"deploy*", "release*", "ci", "pipeline*", "docker*", "kubernetes", "k8s", "helm",
		"install*", "upgrade*", "provision*", "terraform", "ansible", "nginx", "systemd",
		"github actions", "workflow", "rollback", "rollout", "migration*", "backup*", "cron*",
		"деплой*", "задеплой*", "разверн*", "развёрт*", "релиз*", "установ*", "обнови*", "миграци*",
		"розгорн*", "реліз*", "встанов*", "онови*", "міграці*", "бекап*", "бэкап*",
	}},
	{IntentFeature, []string{
		"add*", "implement*", "create*", "support*", "introduce*", "build", "write", "new",
		"feature*", "generate*", "make", "allow*", "enable*",
		"добав*", "реализ*", "сделай", "создай", "создать", "напиши", "написать", "поддерж*", "новую", "новый", "новое", "фич*",
		"додай", "додати", "реаліз*", "зроби", "створи", "створити", "напиши", "підтрим*", "нову", "новий", "нове",
	}},
	{IntentQuestion, []string{
		"what", "why", "how", "where", "when", "which", "who", "explain*", "describe*",
		"is there", "are there", "does", "do we", "can you tell", "tell me", "what's",
		"что", "почему", "зачем", "как", "где", "когда", "какой", "какая", "какие", "объясни*", "расскажи*", "поясни*",
		"що", "чому", "навіщо", "як", "де", "коли", "який", "яка", "які", "чи", "поясни*", "розкажи*",
	}},
}

type keyword struct {
	words []string
	stem  bool // the last word is a prefix
}

var compiledRules = sync.OnceValue(func() []compiledRule {
	out := make([]compiledRule, len(codingRules))
	for i, r := range codingRules {
		out[i].intent = r.intent
		seen := map[string]bool{}
		for _, src := range r.words {
			if seen[src] {
				continue
			}
			seen[src] = true
			k := keyword{words: strings.Fields(src)}
			last := k.words[len(k.words)-1]
			if strings.HasSuffix(last, "*") {
				k.stem = true
				k.words[len(k.words)-1] = strings.TrimSuffix(last, "*")
			}
			out[i].keywords = append(out[i].keywords, k)
		}
	}
	return out
})

type compiledRule struct {
	intent   CodingIntent
	keywords []keyword
}

func (k keyword) matchAt(toks []string, i int) bool {
	if i+len(k.words) > len(toks) {
		return false
	}
	for j, w := range k.words {
		t := toks[i+j]
		if k.stem && j == len(k.words)-1 {
			if !strings.HasPrefix(t, w) {
				return false
			}
		} else if t != w {
			return false
		}
	}
	return true
}

// ClassifyCoding returns the coding intent of a prompt, by keywords in
// English, Russian and Ukrainian (case-insensitive, ё read as е). Each
// intent scores the number of its keyword occurrences; the highest score
// wins, ties go to the earlier intent in CodingIntents order. A prompt
// without keywords is a question when it ends with "?", else other.
func ClassifyCoding(text string) CodingIntent {
	toks := tokenize(text)
	best, bestScore := IntentOther, 0
	for _, r := range compiledRules() {
		score := 0
		for i := range toks {
			for _, k := range r.keywords {
				if k.matchAt(toks, i) {
					score++
				}
			}
		}
		if score > bestScore {
			best, bestScore = r.intent, score
		}
	}
	if bestScore == 0 && strings.HasSuffix(strings.TrimSpace(text), "?") {
		return IntentQuestion
	}
	return best
}

// tokenize lower-cases text and splits it into words of letters, digits and
// inner apostrophes (every apostrophe becomes '); ё becomes е.
func tokenize(text string) []string {
	var toks []string
	var b strings.Builder
	flush := func() {
		if s := strings.Trim(b.String(), "'"); s != "" {
			toks = append(toks, s)
		}
		b.Reset()
	}
	for _, c := range text {
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			c = unicode.ToLower(c)
			if c == 'ё' {
				c = 'е'
			}
			b.WriteRune(c)
		case c == '\'' || c == '’' || c == 'ʼ':
			if b.Len() > 0 {
				b.WriteByte('\'')
			}
		default:
			flush()
		}
	}
	flush()
	return toks
}
