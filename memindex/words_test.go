package memindex

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// eachTermOf returns the terms EachTerm cuts from text.
func eachTermOf(text string) []string {
	var out []string
	EachTerm([]byte(text), nil, func(t []byte) { out = append(out, string(t)) })
	return out
}

// The query side finds a query's words with the word model (words.Spans)
// and cuts each into index terms with EachTerm: on text of letters,
// digits, combining diacritics, punctuation, apostrophes, hyphens,
// symbols and spaces, of the scripts mnemo reads, that gives exactly the
// terms EachTerm (as FTS5) cuts from the whole text. The two splits
// differ only where FTS5 compatibility decides (private-use characters,
// the runes of ftsSeparator and ftsTokenExtra) and where the word model
// skips a word over words.MaxRunes.
func TestWordsCutAsTheIndexCuts(t *testing.T) {
	alphabet := []rune("abcxyzABCXYZ0123456789éÉèçñßøæÆœабвгдеёжийклмнопрстуфхцчшщъыьэюяАБЁЙЇІЄҐїієґ\u0301\u0308 \t\n.,;:!?'’-–—\"«»()[]{}/\\@#$%^&*+=<>|~`_😀€²½")
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(40); n > 0; n-- {
			b.WriteRune(alphabet[rng.Intn(len(alphabet))])
		}
		text := b.String()
		var got []string
		words.Spans(text, func(start, end int) bool {
			got = append(got, eachTermOf(text[start:end])...)
			return true
		})
		if want := eachTermOf(text); !slices.Equal(got, want) {
			t.Fatalf("%q: the words cut into %q, the text into %q", text, got, want)
		}
	}
}
