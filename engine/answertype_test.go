package engine

import (
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/words"
)

func TestAnswerType(t *testing.T) {
	for q, want := range map[string][]string{
		"What European countries has Maria been to?":  {"european", "countries"},
		"What kind of art does Caroline make?":        {"art"},
		"Which cities has Jon visited?":               {"cities"},
		"How many children does Melanie have?":        {"children"},
		"What martial arts has John done?":            {"martial", "arts"},
		"What do Melanie's kids like?":                nil,
		"When did Jon go to Rome?":                    nil,
		"Fix the flaky test in engine/recall_test.go": nil,
		"Many thanks for the report":                  nil,
		"Какие овощи растит бабуля?":                  nil,
		"": nil,
	} {
		if got := answerType(q, words.SpanList(q)); !slices.Equal(got, want) {
			t.Errorf("answerType(%q) = %q, want %q", q, got, want)
		}
	}
}
