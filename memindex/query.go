package memindex

import "github.com/mnemo-dev/mnemo/internal/words"

// MaxQueryTokens caps the terms of a keyword query.
const MaxQueryTokens = 32

// QueryTokens extracts the words of any text (words.Each), lower-cased and
// de-duplicated. Stopwords (words.IsStopword) are dropped unless only
// stopwords remain; at most MaxQueryTokens are kept.
func QueryTokens(q string) []string {
	var out, stops []string
	seen := make(map[string]bool)
	words.Each(q, func(w string) bool {
		if seen[w] {
			return true
		}
		seen[w] = true
		if words.IsStopword(w) {
			if len(stops) < MaxQueryTokens {
				stops = append(stops, w)
			}
			return true
		}
		out = append(out, w)
		return len(out) < MaxQueryTokens
	})
	if len(out) == 0 {
		out = stops
	}
	return out
}
