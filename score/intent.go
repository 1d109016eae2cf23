package score

import (
	"strings"
	"sync"
	"unicode"

	"github.com/mnemo-dev/mnemo"
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
func Classify(text string) Intent {
	toks := tokenize(text)
	if len(toks) == 0 {
		return IntentGeneral
	}
	for _, r := range classifier() {
		if r.match(toks) {
			return r.intent
		}
	}
	return IntentGeneral
}

// tokenize lower-cases text and splits it into words of letters, digits
// and inner apostrophes; ё becomes е and every apostrophe becomes '.
func tokenize(text string) []string {
	var toks []string
	var b strings.Builder
	flush := func() {
		s := strings.TrimRight(b.String(), "'")
		if s != "" {
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
		case c == '\'' || c == '’' || c == 'ʼ' || c == '‘' || c == '`':
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

// wordMatcher matches one token: exactly, by prefix ("word*") or by suffix
// ("*ending").
type wordMatcher struct {
	s              string
	prefix, suffix bool
}

func (m wordMatcher) match(tok string) bool {
	switch {
	case m.prefix:
		return strings.HasPrefix(tok, m.s)
	case m.suffix:
		return len(tok) > len(m.s) && strings.HasSuffix(tok, m.s)
	}
	return tok == m.s
}

// pattern is a run of consecutive word matchers, optionally anchored at
// the first word ("^how …").
type pattern struct {
	anchored bool
	words    []wordMatcher
}

func (p pattern) match(toks []string) bool {
	last := len(toks) - len(p.words)
	if p.anchored && last > 0 {
		last = 0
	}
	for i := 0; i <= last; i++ {
		if p.matchAt(toks, i) {
			return true
		}
	}
	return false
}

// matchAt reports whether p matches toks from index i on.
func (p pattern) matchAt(toks []string, i int) bool {
	if (p.anchored && i > 0) || i+len(p.words) > len(toks) {
		return false
	}
	for j, m := range p.words {
		if !m.match(toks[i+j]) {
			return false
		}
	}
	return true
}

func compile(src string) pattern {
	var p pattern
	if strings.HasPrefix(src, "^") {
		p.anchored = true
		src = src[1:]
	}
	for _, w := range strings.Fields(src) {
		switch {
		case strings.HasSuffix(w, "*"):
			p.words = append(p.words, wordMatcher{s: strings.TrimSuffix(w, "*"), prefix: true})
		case strings.HasPrefix(w, "*"):
			p.words = append(p.words, wordMatcher{s: strings.TrimPrefix(w, "*"), suffix: true})
		default:
			p.words = append(p.words, wordMatcher{s: w})
		}
	}
	return p
}

// rule is the compiled patterns of one intent: those whose first word is
// exact, indexed by that word, and the rest.
type rule struct {
	intent  Intent
	byFirst map[string][]pattern
	rest    []pattern
}

func (r rule) match(toks []string) bool {
	for i, t := range toks {
		for _, p := range r.byFirst[t] {
			if p.matchAt(toks, i) {
				return true
			}
		}
	}
	for _, p := range r.rest {
		if p.match(toks) {
			return true
		}
	}
	return false
}

// classifier holds the rules in precedence order. Patterns are written in
// the normalised form tokenize produces: lower case, е for ё, ' for every
// apostrophe; "word*" is a prefix, "*end" a suffix, "^" anchors at the
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
		out[i] = rule{intent: r.intent, byFirst: map[string][]pattern{}}
		for _, src := range r.src {
			p := compile(src)
			if first := p.words[0]; !first.prefix && !first.suffix {
				out[i].byFirst[first.s] = append(out[i].byFirst[first.s], p)
			} else {
				out[i].rest = append(out[i].rest, p)
			}
		}
	}
	return out
}
