package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
)

// Names in queries.
//
// A query that names a person or a component ("What did Melanie paint?",
// "why did we pin the parser's version in Ingest?") is after what that
// person said or what concerns that component. The names of a query are
// its capitalised content words but the first word; a relevant record
// "by" one of them — its text opens with "Name:" (a speaker) or a
// provenance reference ends in ":Name" (author:, operator:, speaker:) —
// ranks higher (factor name_boost, score.NameBoost), and one of a named
// component a little higher (score.ComponentBoost).

// queryNames returns the lower-cased names of q: its capitalised words
// (words.Compounds: "Jean-Luc", "O'Brien") but the first, without a
// possessive "'s", and not a month or a weekday (isTimeWord). spans are
// q's words (words.SpanList).
func queryNames(q string, spans [][2]int) map[string]bool {
	var out map[string]bool
	first := true
	words.CompoundsOf(q, spans, "-'", func(start, end int) bool {
		w := strings.TrimSuffix(q[start:end], "'s")
		if first {
			first = false
			return true
		}
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) || utf8.RuneCountInString(w) < 2 {
			return true
		}
		lw := strings.ToLower(w)
		if words.IsFunctionWord(lw) || isTimeWord(lw) {
			return true
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[lw] = true
		return true
	})
	return out
}

// byName reports whether a record by speakers (mnemo.SpeakerNames: its
// speaker label "Name: …", the author:, operator: and speaker:
// references of its provenance) is by one of names.
func byName(speakers []string, names map[string]bool) bool {
	for _, n := range speakers {
		if names[n] {
			return true
		}
	}
	return false
}

// ofComponent reports whether r's component is one of names.
func ofComponent(r *mnemo.Record, names map[string]bool) bool {
	return r.Component != "" && names[strings.ToLower(r.Component)]
}

// isTimeWord reports whether w (lower-case) names a month or a day of the
// week, which a query capitalises without naming anyone ("in July").
func isTimeWord(w string) bool {
	if _, ok := monthNames()[w]; ok {
		return true
	}
	switch w {
	case "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
		"понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье",
		"понеділок", "вівторок", "середа", "четвер", "п'ятниця", "субота", "неділя":
		return true
	}
	return false
}
