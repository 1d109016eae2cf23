package thesaurus

import (
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/words"
)

func TestForms(t *testing.T) {
	for word, want := range map[string]string{
		"измотаться":  "измотан",
		"починить":    "починил",
		"купить":      "купила",
		"полагодити":  "полагодив",
		"відмовитися": "відмовився",
		"сказать":     "сказал",
		"приобрести":  "приобрёл",
		"купувати":    "купив",
		"записывать":  "записал",
		"выигрывать":  "выигрывал",
		// Present tense.
		"бояться":    "боится",
		"пугать":     "пугают",
		"рисовать":   "рисует",
		"вирощувати": "вирощує",
		"лякати":     "лякають",
		"зачинятися": "зачиняється",
		// Fleeting vowels.
		"щенок":   "щенка",
		"отец":    "отца",
		"хлопець": "хлопця",
		"день":    "дня",
	} {
		if got := Forms(word); !slices.Contains(got, words.Fold(want)) {
			t.Errorf("Forms(%s) = %v, want %s among them", word, got, want)
		}
	}
	for _, word := range []string{"собака", "dog", "", "ть", "быстро"} {
		if got := Forms(word); got != nil {
			t.Errorf("Forms(%q) = %v, want none", word, got)
		}
	}
}
