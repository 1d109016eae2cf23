// Package synth is the vocabulary of mnemo's synthetic corpora: invented
// words (a few syllables each, so that no thesaurus or stemmer knows them)
// drawn with a Zipf distribution, so that a few words are everywhere and
// most are rare, as in real text. The workload of the benchmarks and the
// load test (Workload: records and queries) and the stores' benchmark
// corpus (storetest.Corpus) are built on it.
package synth

import (
	"math/rand/v2"
	"strings"
)

// Words is a vocabulary of invented words with a Zipf distribution over
// them.
type Words struct {
	vocab []string
	zipf  *rand.Zipf
	s, v  float64 // the Zipf distribution's exponent and offset
}

// NewWords invents n distinct words of two to four syllables with rng and
// draws them with a Zipf distribution of exponent s (> 1) and offset v
// (>= 1): word i has weight (v + i)^-s.
func NewWords(rng *rand.Rand, syllables []string, n int, s, v float64) *Words {
	w := &Words{s: s, v: v}
	seen := make(map[string]bool, n)
	for len(w.vocab) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		if x := b.String(); !seen[x] {
			seen[x] = true
			w.vocab = append(w.vocab, x)
		}
	}
	w.zipf = rand.NewZipf(rng, s, v, uint64(n-1))
	return w
}

// Drawn returns the same words, with the same distribution, drawn with
// rng.
func (w *Words) Drawn(rng *rand.Rand) *Words {
	return &Words{vocab: w.vocab, zipf: rand.NewZipf(rng, w.s, w.v, uint64(len(w.vocab)-1)), s: w.s, v: w.v}
}

// Word draws a word.
func (w *Words) Word() string { return w.vocab[w.zipf.Uint64()] }

// At returns the word of rank i (0: the most frequent).
func (w *Words) At(i int) string { return w.vocab[i] }

// Len returns the number of words.
func (w *Words) Len() int { return len(w.vocab) }

// Text returns words separated by spaces, about chars characters in all.
func (w *Words) Text(chars int) string {
	var b strings.Builder
	for b.Len() < chars {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Word())
	}
	return b.String()
}
