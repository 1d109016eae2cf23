package score

import (
	"strings"
	"sync"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
)

// Intent is what a query is after; it re-weights the score before
// retrieval (Preset.ForIntent) and boosts record kinds (KindBoost).
type Intent string

// The query intents.
const (
	IntentGeneral Intent = "general" // no particular need: the preset's weights
	IntentRecent  Intent = "recent"  // what was just said or decided: recency first
	IntentRules   Intent = "rules"   // standing rules and policies: importance first
	IntentHowTo   Intent = "howto"   // how to do something: procedures first
	IntentWhy     Intent = "why"     // why something was done: decisions first
)

// Intents lists every intent.
func Intents() []Intent {
	return []Intent{IntentGeneral, IntentRecent, IntentRules, IntentHowTo, IntentWhy}
}

// ParseIntent returns the intent named s (case-insensitive, spaces
// trimmed). The empty string returns "" and no error, meaning "classify
// the query"; an unknown name returns an EINVALID error.
func ParseIntent(s string) (Intent, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", nil
	}
	for _, i := range Intents() {
		if string(i) == s {
			return i, nil
		}
	}
	return "", mnemo.Errorf(mnemo.EINVALID, "unknown intent %q (want general, recent, rules, howto or why)", s)
}

// ForIntent returns p's weights re-weighted for intent i. The sum of the
// weights is preserved (up to float rounding):
//
//   - recent: every weight but recency is halved and recency receives the
//     freed mass, so recency becomes (S + w_rec)/2 >= S/2 and is the largest
//     weight (S is the sum). aura 0.5/0.3/0.2 becomes semantic 0.25,
//     recency 0.65, importance 0.10.
//   - rules: the same with importance in place of recency. aura becomes
//     semantic 0.25, recency 0.15, importance 0.60.
//   - howto and why: half of the recency weight moves to semantic, since
//     procedures and decisions stay valid for long and the match of the
//     question matters more than age; the kind preference is KindBoost.
//   - general, "" and unknown intents: p.Weights unchanged.
func (p Preset) ForIntent(i Intent) mnemo.Weights {
	w := p.Weights
	switch i {
	case IntentRecent:
		concentrate(&w, &w.Recency)
	case IntentRules:
		concentrate(&w, &w.Importance)
	case IntentHowTo, IntentWhy:
		half := w.Recency / 2
		w.Recency -= half
		w.Semantic += half
	}
	return w
}

// concentrate halves every weight of w except *target and adds the freed
// mass to *target; target must point into w.
func concentrate(w *mnemo.Weights, target *float64) {
	keep := *target
	freed := 0.0
	for _, p := range []*float64{&w.Semantic, &w.Keyword, &w.Recency, &w.Importance, &w.Confidence, &w.Frequency} {
		if p == target {
			continue
		}
		h := *p / 2
		*p -= h
		freed += h
	}
	*target = keep + freed
}

// KindBoost returns the multiplier (>= 1) an intent applies to the score
// of a record of kind k: 1.5 for procedures under howto, 1.5 for decisions
// under why, 1.25 for decisions, events, episodes and refresh briefs under
// recent, and 1 otherwise (rules favours important records through the
// weights, not through kinds). The caller clamps the boosted score to 1
// if it needs a score in [0, 1].
func KindBoost(i Intent, k mnemo.Kind) float64 {
	switch i {
	case IntentHowTo:
		if k == mnemo.KindProcedure {
			return 1.5
		}
	case IntentWhy:
		if k == mnemo.KindDecision {
			return 1.5
		}
	case IntentRecent:
		switch k {
		case mnemo.KindDecision, mnemo.KindEvent, mnemo.KindEpisode, mnemo.KindRefresh:
			return 1.25
		}
	}
	return 1
}

// Classify returns the intent of a query by rules over its words, in
// English, Russian and Ukrainian (case-insensitive; ё is read as е, and
// the apostrophes ' ’ ʼ are one letter). The first intent that matches, in
// the order why, recent decision ("did we decide", «решили»), howto,
// recent, rules, wins; a query that matches none is
// general:
//
//   - why: "why", "what was the reason", «почему», «зачем», «чому»,
//     «навіщо», «причина» …
//   - howto: "how do I", "how to", "how can we", "steps to", a question
//     opening with «как» or «як», «как настроить», «каким образом»,
//     «інструкція» …
//   - recent: "yesterday", "today", "latest", "last week", "did we decide",
//     «вчера», «вчерашний», «недавно», «последний», «решили», «вчора»,
//     «щойно», «вирішили» …
//   - rules: "rules", "policy", "baseline", "requirements", "must",
//     «правила», «политика», «регламент», «требования», «політика»,
//     «вимоги», «заборонено» …
func Classify(text string) Intent { return ClassifyWords(words.RuleWords(text)) }

// ClassifyWords is Classify of a text given its rule words
// (words.RuleWords).
func ClassifyWords(toks []string) Intent {
	if len(toks) == 0 {
		return IntentGeneral
	}
	for _, r := range classifier() {
		if r.rules.Match(toks) {
			return r.intent
		}
	}
	return IntentGeneral
}

// rule is the compiled patterns of one intent.
type rule struct {
	intent Intent
	rules  *words.Rules
}

// classifier holds the rules in precedence order. Patterns are matched
// against the query's rule words (words.RuleWords: folded, ' for every
// apostrophe); "word*" is a prefix, "*end" a suffix, "^" anchors at the
// first word. They are compiled on first use, not when the program starts.
var classifier = sync.OnceValue(func() []rule { return compileRules(classifierRules) })

var classifierRules = []struct {
	intent Intent
	src    []string
}{
	{IntentWhy, []string{
		// English
		"why", "rationale", "how come", "what was the reason", "what is the reason",
		"what's the reason", "reason for", "reasons for", "reasoning behind",
		"what made us", "what led us", "what led to",
		// Russian
		"почему", "зачем", "отчего", "причина", "причины", "причину", "обоснование",
		"по какой причине",
		// Ukrainian
		"чому", "навіщо", "нащо", "причини", "причиною", "обґрунтування",
		"з якої причини",
	}},
	{IntentRecent, []string{
		// A decision just taken outranks howto: "how did we decide …",
		// «как мы решили …» ask for the decision, not for a procedure.
		"did we decide", "did we agree", "have we decided", "we decided", "we agreed",
		"just decided", "was decided", "were decided",
		"решили", "договорились", "постановили",
		"вирішили", "домовились", "домовилися", "ухвалили",
	}},
	{IntentHowTo, []string{
		// English
		"how do i", "how do we", "how do you", "how does one", "how to", "how can i",
		"how can we", "how can you", "how should i", "how should we", "how would i",
		"how would we", "steps to", "step by step", "what are the steps",
		"what is the procedure", "what's the procedure", "procedure for", "instructions for",
		"walk me through", "guide to", "runbook*", "playbook*",
		// Russian: a question opening with «как», or «как» + an infinitive
		"^как", "как *ть", "как *ться", "как *чь", "каким образом", "инструкци*",
		"пошагов*", "шаги", "порядок действий", "что нужно сделать чтобы",
		// Ukrainian: a question opening with «як», or «як» + an infinitive
		"^як", "як *ти", "як *тися", "як *ться", "яким чином", "інструкці*",
		"покроков*", "кроки", "порядок дій", "що треба зробити щоб",
		"що потрібно зробити щоб",
	}},
	{IntentRecent, []string{
		// English
		"yesterday*", "today*", "tonight*", "recent", "recently", "latest", "lately",
		"just now", "this morning", "this week", "this week's", "earlier today",
		"last week*", "last night*", "last call", "last meeting", "last sprint",
		"last standup", "last stand up", "last session", "last time", "last month*",
		"last release", "last few days", "past few days", "past week",
		"what's new", "what is new", "any updates",
		// Russian
		"вчера", "вчерашн*", "позавчера", "сегодня", "сегодняшн*", "недавн*",
		"последн*", "только что", "на днях", "на этой неделе", "на прошлой неделе",
		"прошл* неделе", "прошл* созвон*", "прошл* встреч*", "утром", "что нового",
		// Ukrainian
		"вчора", "вчорашн*", "позавчора", "сьогодні", "сьогоднішн*", "нещодавн*",
		"останн*", "щойно", "цього тижня", "минулого тижня", "минул* зустріч*",
		"минул* дзвін*", "вранці", "що нового",
	}},
	{IntentRules, []string{
		// English
		"rule", "rules", "ruleset*", "policy", "policies", "baseline*", "guideline*",
		"regulation*", "compliance", "compliant", "requirement*", "mandatory",
		"allowed", "forbidden", "prohibited", "permitted", "must", "constraint*",
		"principle*", "invariant*", "restriction*", "standards", "do's and don'ts",
		// Russian (the forms of «правило», not «правильно»)
		"правило", "правила", "правил", "правилам", "правилами", "правилах",
		"правилу", "правилом", "политик*", "регламент*", "требовани*", "нормы",
		"норматив*", "стандарт*", "запрещ*", "разрешено", "разрешается",
		"обязательн*", "ограничени*", "принцип*", "нельзя",
		// Ukrainian
		"правилі", "політик*", "вимог*", "норми", "заборон*", "дозволено",
		"обов'язков*", "обмежен*", "не можна",
	}},
}

func compileRules(in []struct {
	intent Intent
	src    []string
}) []rule {
	out := make([]rule, len(in))
	for i, r := range in {
		out[i] = rule{intent: r.intent, rules: words.NewRules(r.src)}
	}
	return out
}
