package engine

import "github.com/mnemo-dev/mnemo/internal/words"

// Duplicate thresholds (DESIGN.md §4): keyword Jaccard >= 0.60 and at least
// three shared keywords.
const (
	dupJaccard = 0.60
	dupShared  = 3
)

// keywords returns the set of content words of text: its words folded
// (words.SplitFolded), two runes or longer, without stopwords
// (words.IsStopword).
func keywords(text string) map[string]struct{} {
	out := make(map[string]struct{})
	for _, w := range words.SplitFolded(text) {
		if len([]rune(w)) < 2 || words.IsStopword(w) {
			continue
		}
		out[w] = struct{}{}
	}
	return out
}

// IsDuplicate reports whether two keyword sets describe the same memory.
func IsDuplicate(a, b map[string]struct{}) bool {
	shared := 0
	for w := range a {
		if _, ok := b[w]; ok {
			shared++
		}
	}
	if shared < dupShared {
		return false
	}
	union := len(a) + len(b) - shared
	return float64(shared)/float64(union) >= dupJaccard
}
