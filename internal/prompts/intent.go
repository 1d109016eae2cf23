package prompts

import (
	"strings"
	"sync"

	"github.com/mnemo-dev/mnemo/internal/words"
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
// Ukrainian, as words.Rules patterns: "word*" matches a prefix (a stem),
// two words match a phrase.
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

// compiledRules are the rules of each intent, in codingRules' order,
// compiled on first use.
var compiledRules = sync.OnceValue(func() []compiledRule {
	out := make([]compiledRule, len(codingRules))
	for i, r := range codingRules {
		out[i] = compiledRule{intent: r.intent, rules: words.NewRules(r.words)}
	}
	return out
})

type compiledRule struct {
	intent CodingIntent
	rules  *words.Rules
}

// ClassifyCoding returns the coding intent of a prompt, by keywords in
// English, Russian and Ukrainian (words.RuleWords: case and diacritics
// folded, ё read as е). Each
// intent scores the number of its keyword occurrences; the highest score
// wins, ties go to the earlier intent in CodingIntents order. A prompt
// without keywords is a question when it ends with "?", else other.
func ClassifyCoding(text string) CodingIntent {
	toks := words.RuleWords(text)
	best, bestScore := IntentOther, 0
	for _, r := range compiledRules() {
		if score := r.rules.Count(toks); score > bestScore {
			best, bestScore = r.intent, score
		}
	}
	if bestScore == 0 && strings.HasSuffix(strings.TrimSpace(text), "?") {
		return IntentQuestion
	}
	return best
}
