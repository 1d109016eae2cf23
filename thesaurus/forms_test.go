package thesaurus

import (
	"bytes"
	"os"
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

// FuzzExceptions: any exception list parses into pairs that name each
// other both ways, never a word as its own inflection, never an empty or
// multi-word entry (the real lists hold "nuclei nucleus", "bought buy",
// and collocations such as "corpora_vile corpus_vile" that are skipped).
func FuzzExceptions(f *testing.F) {
	for _, s := range []string{"bought buy\nchildren child\n", "nuclei nucleus\n", "corpora_vile corpus_vile\n",
		"better good well\n", "same same\n", "\n\n  \t\n", "ÆØÅ æøå\r\n", "a\n", "x y z\nx w\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := appendFields(nil, b), bytes.Fields(b); !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("fields of %q: %q, bytes.Fields %q", b, got, want)
		}
		x := &exceptions{base: map[string][]string{}, forms: map[string][]string{}}
		x.parse(b)
		for infl, bases := range x.base {
			if infl == "" || !isSingleWord([]byte(infl)) {
				t.Fatalf("inflection %q", infl)
			}
			for _, base := range bases {
				if base == infl || base == "" || !isSingleWord([]byte(base)) {
					t.Fatalf("%q -> base %q", infl, base)
				}
				if !slices.Contains(x.forms[base], infl) {
					t.Fatalf("%q -> %q has no way back", infl, base)
				}
			}
		}
		for base, forms := range x.forms {
			for _, infl := range forms {
				if !slices.Contains(x.base[infl], base) {
					t.Fatalf("%q -> form %q has no way back", base, infl)
				}
			}
		}
	})
}

// FuzzForms: the guessed forms and lemmas of any word are non-empty words
// of their own, and never the word itself.
func FuzzForms(f *testing.F) {
	for _, s := range []string{"бояться", "щенок", "щенка", "пугают", "ок", "ець", "ень", "", "dog", "ятися", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		fw := words.Fold(w)
		for _, g := range append(Forms(w), cyrillicLemmas(fw)...) {
			if g == "" || g == fw {
				t.Fatalf("%q gave %q", w, g)
			}
		}
	})
}

// BenchmarkReadExceptions reads the installed WordNet's exception lists
// (what the first English query of a process pays):
//
//	go test ./thesaurus -run '^$' -bench ReadExceptions -benchmem
func BenchmarkReadExceptions(b *testing.B) {
	if _, err := os.Stat("/usr/share/wordnet/verb.exc"); err != nil {
		b.Skip("WordNet (Debian wordnet-base) is not installed")
	}
	for b.Loop() {
		readExceptions("/usr/share/wordnet")
	}
}
