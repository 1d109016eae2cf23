// Package extract finds candidate memories in conversation messages with
// deterministic rules (no model), in English, Russian and Ukrainian:
// decisions ("we decided to …", "let's go with …", «мы решили …», «ми
// вирішили …»), standing rules ("always …", "never …", "must …", «нельзя
// …», «заборонено …»), preferences ("I prefer …", "please don't …", «я
// предпочитаю …», «будь ласка, не …»), procedures ("to deploy, first …
// then …", «сначала … потом …», numbered steps), facts with a date,
// deadline or quantity, and open questions. A candidate is an abstraction of one sentence, attributed to
// the message it came from; the caller stores it with low confidence, so
// that stated memories outrank extracted ones.
package extract

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
)

// Message is one message of a conversation.
type Message struct {
	ID   string // the record id of the message
	Text string // "Speaker: text" or plain text
}

// Candidate is one extracted memory.
type Candidate struct {
	Kind       mnemo.Kind
	Scope      string
	Text       string
	Importance float64
	Tags       []string
	Decision   *mnemo.Decision
	From       string // the message id
}

// MaxCandidates bounds the candidates of one call.
const MaxCandidates = 30

var (
	decisionRE   = lazyRegexp(`(?i)\b(we|i|the team)\s+(have\s+)?(decided|agreed|chose|settled on|will go with|are going with)\b|\blet'?s go with\b|\bagreed by (all|everyone|everybody)\b|^\s*(decision|decided|agreed)\s*:`)
	ruleRE       = lazyRegexp(`(?i)\b(always|never|must|must not|mustn't|is required|are required|is mandatory|are mandatory|is forbidden|is not allowed|no exceptions)\b`)
	preferenceRE = lazyRegexp(`(?i)\b(i|we)('d\s+rather|\s+(prefer|would rather|like it when|don't like|do not like|hate it when))\b|\bplease\s+(always|never|don't|do not|keep|avoid)\b`)
	procedureRE  = lazyRegexp(`(?i)^(to|how to)\s+[^,:]{3,60}[,:]\s*(first|1[.)]|run|start|open|go to|use)\b|\bfirst\b.{3,120}\bthen\b`)
	stepRE       = lazyRegexp(`^\s*(\d+[.)]|[-*])\s+\S`)
	dateRE       = lazyRegexp(`(?i)\b(\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|(mon|tues|wednes|thurs|fri|satur|sun)day|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}|deadline|due (by|on|in)|within \d+\s*\w+)`)
	quantityRE   = lazyRegexp(`\b\d+(\.\d+)?\s*(%|ms|s|sec|seconds|min|minutes|h|hours|days|weeks|w|kw|mb|gb|tb|km|m|kg|°c|usd|eur|\$)\b|\$\d`)
	factVerbRE   = lazyRegexp(`(?i)\b(is|are|was|were|has|have|takes|costs|runs|starts|ends|opens|closes|lasts|limit|maximum|minimum)\b`)
	questionRE   = lazyRegexp(`(?i)^(who|what|when|where|why|how|which|should|can|could|do|does|did|is|are|will|would)\b`)
	speakerRE    = lazyRegexp(`^([\p{L}][\p{L}\p{N} ._'-]{0,38}):\s+`)
)

// Extract returns the candidates of the messages, at most MaxCandidates, in
// message order; a sentence yields at most one candidate (the first rule
// that matches, in the order above).
func Extract(msgs []Message) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, m := range msgs {
		speaker, text := Speaker(m.Text)
		lines := strings.Split(text, "\n")
		var steps []string
		for _, l := range lines {
			if stepRE().MatchString(l) {
				steps = append(steps, strings.TrimSpace(l))
			}
		}
		if len(steps) >= 2 {
			c := Candidate{Kind: mnemo.KindProcedure, Text: "Procedure: " + strings.Join(steps, " "), Importance: 0.6, From: m.ID}
			if add(&out, seen, c) {
				return out
			}
		}
		for _, s := range Sentences(text) {
			c, ok := classify(s, speaker)
			if !ok {
				continue
			}
			c.From = m.ID
			if add(&out, seen, c) {
				return out
			}
		}
	}
	return out
}

// add appends c unless its text was seen; it reports whether the limit
// is reached.
func add(out *[]Candidate, seen map[string]bool, c Candidate) bool {
	key := strings.ToLower(c.Text)
	if seen[key] {
		return false
	}
	seen[key] = true
	*out = append(*out, c)
	return len(*out) >= MaxCandidates
}

func classify(s, speaker string) (Candidate, bool) {
	if len([]rune(s)) < 12 || len(strings.Fields(s)) < 3 {
		return Candidate{}, false
	}
	switch {
	case decisionRE().MatchString(s) || decisionSlavic().MatchString(s):
		return Make(LabelDecision, s, speaker)
	case isQuestion(s):
		return Make(LabelQuestion, s, speaker)
	case preferenceRE().MatchString(s) || preferenceSlavic().MatchString(s):
		return Make(LabelPreference, s, speaker)
	case ruleRE().MatchString(s) || ruleSlavic().MatchString(s):
		return Make(LabelRule, s, speaker)
	case procedureRE().MatchString(s) || procedureSlavic().MatchString(s):
		return Make(LabelProcedure, s, speaker)
	case isFact(s):
		return Make(LabelFact, s, speaker)
	}
	return Candidate{}, false
}

// Labels of what a sentence holds, as Make takes them (and a chat model
// names them).
const (
	LabelDecision   = "decision"
	LabelRule       = "rule"
	LabelPreference = "preference"
	LabelProcedure  = "procedure"
	LabelFact       = "fact"
	LabelQuestion   = "question"
)

// Labels lists the labels Make knows.
var Labels = []string{LabelDecision, LabelRule, LabelPreference, LabelProcedure, LabelFact, LabelQuestion}

// Make builds the candidate for a sentence s said by speaker ("" when
// unknown) that holds what label says: its kind, text, scope, importance,
// tags and, for a decision, its body. It reports false for an unknown
// label or an empty sentence.
func Make(label, s, speaker string) (Candidate, bool) {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return Candidate{}, false
	}
	who := ""
	if speaker != "" {
		who = " (" + speaker + ")"
	}
	switch label {
	case LabelDecision:
		return Candidate{Kind: mnemo.KindDecision, Text: "Decided" + who + ": " + s, Importance: 0.7,
			Decision: &mnemo.Decision{Decision: s, Status: "accepted"}}, true
	case LabelQuestion:
		return Candidate{Kind: mnemo.KindFact, Text: "Open question" + who + ": " + s, Importance: 0.5, Tags: []string{"question"}}, true
	case LabelPreference:
		return Candidate{Kind: mnemo.KindPreference, Text: "Preference" + who + ": " + s, Importance: 0.6}, true
	case LabelRule:
		return Candidate{Kind: mnemo.KindFact, Scope: "/rules", Text: "Rule" + who + ": " + s, Importance: 0.8}, true
	case LabelProcedure:
		return Candidate{Kind: mnemo.KindProcedure, Text: "Procedure" + who + ": " + s, Importance: 0.6}, true
	case LabelFact:
		return Candidate{Kind: mnemo.KindFact, Text: "Fact" + who + ": " + s, Importance: 0.5}, true
	}
	return Candidate{}, false
}

// isQuestion reports whether s asks something: it ends in "?" and opens
// with a question word, or is Russian or Ukrainian (where a yes-no
// question is marked by intonation alone).
func isQuestion(s string) bool {
	return strings.HasSuffix(s, "?") && (questionRE().MatchString(s) || questionSlavic().MatchString(s) || words.Script(s).MostlyCyrillic())
}

// isFact reports whether s states something with a date, deadline or
// quantity: the marker and a verb of the same language.
func isFact(s string) bool {
	return (dateRE().MatchString(s) || quantityRE().MatchString(s)) && factVerbRE().MatchString(s) ||
		(dateRE().MatchString(s) || dateSlavic().MatchString(s) || quantitySlavic().MatchString(s)) && factVerbSlavic().MatchString(s)
}

// Speaker splits a leading "Name: " off a message: the name and the rest
// ("" and the text when there is none).
func Speaker(text string) (string, string) {
	if sm := speakerRE().FindStringSubmatch(text); sm != nil {
		return sm[1], text[len(sm[0]):]
	}
	return "", text
}

// Sentences splits text at sentence ends (., ! or ? before a space or the
// end) and line breaks, folding whitespace.
func Sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	for i, r := range rs {
		end := r == '\n' || ((r == '.' || r == '!' || r == '?') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])))
		if !end && i+1 != len(rs) {
			continue
		}
		if s := strings.Join(strings.Fields(string(rs[start:i+1])), " "); s != "" {
			out = append(out, s)
		}
		start = i + 1
	}
	return out
}

// lazyRegexp compiles expr on first use, not when the program starts.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
