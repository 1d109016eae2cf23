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

// FuzzExceptions: any exception list, indexed as the lists are, answers
// as its pairs read line by line do (bases of an inflection and
// inflections of a base, each once, in the list's order), and its pairs
// name each other both ways, never a word as its own inflection, never an
// empty or multi-word entry (the real lists hold "nuclei nucleus",
// "bought buy", and collocations such as "corpora_vile corpus_vile" that
// are skipped).
func FuzzExceptions(f *testing.F) {
	for _, s := range []string{"bought buy\nchildren child\n", "nuclei nucleus\n", "corpora_vile corpus_vile\n",
		"better good well\n", "same same\n", "\n\n  \t\n", "ÆØÅ æøå\r\n", "a\n", "x y z\nx w\n", "x y y\nX y\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := appendFields(nil, b), bytes.Fields(b); !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("fields of %q: %q, bytes.Fields %q", b, got, want)
		}
		if len(b) >= 1<<30 {
			return
		}
		// The pairs, read line by line.
		base, forms := map[string][]string{}, map[string][]string{}
		for _, l := range bytes.Split(b, []byte{'\n'}) {
			fs := bytes.Fields(l)
			if len(fs) < 2 || !isSingleWord(fs[0]) {
				continue
			}
			infl := words.Fold(string(fs[0]))
			for _, bw := range fs[1:] {
				bf := words.Fold(string(bw))
				if infl == "" || len(infl) > maxKey || !isSingleWord(bw) || bf == infl || bf == "" || len(bf) > maxKey {
					continue
				}
				if !slices.Contains(base[infl], bf) {
					base[infl] = append(base[infl], bf)
				}
				if !slices.Contains(forms[bf], infl) {
					forms[bf] = append(forms[bf], infl)
				}
			}
		}
		x := &exceptions{}
		x.lists[1] = b
		if _, err := x.build(); err != nil {
			t.Fatal(err)
		}
		for infl, bases := range base {
			if got := x.lookup(infl, true); !slices.Equal(got, bases) {
				t.Fatalf("bases of %q: %q, want %q", infl, got, bases)
			}
			for _, bf := range bases {
				if bf == infl || !isSingleWord([]byte(bf)) || !slices.Contains(x.lookup(bf, false), infl) {
					t.Fatalf("%q -> %q has no way back", infl, bf)
				}
			}
		}
		for bf, infls := range forms {
			if got := x.lookup(bf, false); !slices.Equal(got, infls) {
				t.Fatalf("inflections of %q: %q, want %q", bf, got, infls)
			}
		}
		for _, w := range []string{"", "zz-none"} {
			if x.lookup(w, true) != nil && base[w] == nil || x.lookup(w, false) != nil && forms[w] == nil {
				t.Fatalf("%q: an answer for a word not in the list", w)
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
	b.Run("built", func(b *testing.B) {
		for b.Loop() {
			readExceptions("/usr/share/wordnet", "")
		}
	})
	b.Run("cached", func(b *testing.B) {
		dir := b.TempDir()
		readExceptions("/usr/share/wordnet", dir)
		for b.Loop() {
			readExceptions("/usr/share/wordnet", dir)
		}
	})
}
