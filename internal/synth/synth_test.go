package synth

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	syl := []string{"ka", "ro", "mi", "te"}
	a := NewWords(rand.New(rand.NewPCG(1, 2)), syl, 50, 1.1, 2)
	b := NewWords(rand.New(rand.NewPCG(1, 2)), syl, 50, 1.1, 2)
	if a.Len() != 50 {
		t.Fatalf("%d words", a.Len())
	}
	seen := map[string]bool{}
	for i := range a.Len() {
		w := a.At(i)
		if seen[w] || len(w) < 4 || len(w) > 8 {
			t.Errorf("word %d %q: repeated or not of 2 to 4 syllables", i, w)
		}
		seen[w] = true
	}
	ta, tb := a.Text(300), b.Text(300)
	if ta != tb || len(ta) < 300 || len(ta) > 310 {
		t.Errorf("texts differ for one seed or are not about 300 characters: %q %q", ta, tb)
	}
	// Zipf: the most frequent word is drawn far more often than the rarest.
	counts := map[string]int{}
	for _, w := range strings.Fields(a.Text(20000)) {
		counts[w]++
	}
	if counts[a.At(0)] <= 5*counts[a.At(a.Len()-1)] {
		t.Errorf("rank 0 drawn %d times, rank %d %d times", counts[a.At(0)], a.Len()-1, counts[a.At(a.Len()-1)])
	}
}
