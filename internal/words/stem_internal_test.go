package words

import (
	"math/rand/v2"
	"testing"
)

// stemLenAll is StemLen trying every suffix in turn, as it did before it
// looked only at the suffixes ending in the word's last rune.
func stemLenAll(w []rune) int {
	n := len(w)
	if n <= MinStem {
		return n
	}
	for _, s := range stems().all {
		k := len(s)
		if n-k < MinStem || !hasSuffix(w, s) {
			continue
		}
		if k == 1 && s[0] == 's' && w[n-2] == 's' {
			continue
		}
		n -= k
		break
	}
	if n > MinStem+1 && isCyrillicVowel(w[n-1]) {
		n--
	}
	return n
}

// TestStemLenMatchesAllSuffixes checks StemLen against trying every suffix,
// on every suffix after stems of 0 to 6 runes (letters of the suffixes,
// others and the endings themselves), on pairs of suffixes, and on random
// words over the suffixes' runes.
func TestStemLenMatchesAllSuffixes(t *testing.T) {
	var alphabet []rune
	seen := map[rune]bool{}
	for _, s := range stems().all {
		for _, r := range s {
			if !seen[r] {
				seen[r] = true
				alphabet = append(alphabet, r)
			}
		}
	}
	alphabet = append(alphabet, 'x', 'z', '7', 'ж', 'щ', 'é')
	check := func(w []rune) {
		t.Helper()
		if got, want := StemLen(w), stemLenAll(w); got != want {
			t.Fatalf("StemLen(%q) = %d, every suffix in turn gives %d", string(w), got, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range stems().all {
		for _, s2 := range stems().all {
			check(append(append([]rune("de"), s2...), s...))
		}
		for n := range 7 {
			for range 20 {
				w := make([]rune, 0, n+len(s))
				for range n {
					w = append(w, alphabet[rng.IntN(len(alphabet))])
				}
				check(append(w, s...))
			}
		}
	}
	for range 200000 {
		w := make([]rune, 1+rng.IntN(12))
		for i := range w {
			w[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(w)
	}
}
