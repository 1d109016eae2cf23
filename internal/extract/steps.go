package extract

import (
	"strings"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// Step sequences, for learning procedures from repetition: Steps reads the
// steps of a procedure's text, StepKey reduces a step to its content
// words, and SameSteps compares two sequences.

var (
	numberedRE = lazyRegexp(`(?:^|\s)(?:\d{1,2}[.)]|[-*•])\s+`)
	// sequenceRE marks the words that order steps: first, then, after that,
	// next, finally, and their Russian and Ukrainian forms.
	sequenceRE = lazyRegexp(`(?i)(?:^|[^\p{L}\p{N}])(first|then|after that|afterwards|next|finally|сначала|сперва|потом|затем|после этого|далее|в конце|спочатку|спершу|потім|далі|після цього|наприкінці)(?:$|[^\p{L}\p{N}])`)
)

// Steps returns the steps of a procedure's text: numbered or bulleted
// items ("1. stop 2. select"), or the clauses that "first … then …" (or
// «сначала … потом …», «спочатку … потім …») order, without a leading
// "Procedure (speaker):" label or the goal before the first step. It
// returns nil for fewer than two steps.
func Steps(text string) []string {
	if i := strings.Index(text, ": "); i >= 0 && (strings.HasPrefix(text, "Procedure") || strings.HasPrefix(text, "Learned procedure")) {
		text = text[i+2:]
	}
	var parts []string
	if locs := numberedRE().FindAllStringIndex(text, -1); len(locs) >= 2 {
		for i, l := range locs {
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			parts = append(parts, text[l[1]:end])
		}
	} else if locs := sequenceRE().FindAllStringSubmatchIndex(text, -1); len(locs) >= 2 {
		for i, l := range locs {
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][2]
			}
			parts = append(parts, text[l[3]:end])
		}
	}
	var out []string
	for _, p := range parts {
		p = strings.TrimFunc(strings.Join(strings.Fields(p), " "), func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune(",;.:!–—-", r)
		})
		if p != "" {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// StepKey is the content words of a step: its words folded
// (words.SplitFolded) of three or more letters or digits, function words
// (words.IsFunctionWord) left out.
func StepKey(step string) []string {
	var out []string
	for _, w := range words.SplitFolded(step) {
		if len([]rune(w)) >= 3 && !words.IsStopword(w) {
			out = append(out, w)
		}
	}
	return out
}

// SameSteps reports whether two step sequences are the same procedure:
// as many steps, each pair sharing at least half of their content words
// (Jaccard ≥ 0.5).
func SameSteps(a, b []string) bool {
	if len(a) != len(b) || len(a) < 2 {
		return false
	}
	for i := range a {
		if jaccard(StepKey(a[i]), StepKey(b[i])) < 0.5 {
			return false
		}
	}
	return true
}

func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	set := map[string]int{}
	for _, w := range a {
		set[w] |= 1
	}
	for _, w := range b {
		set[w] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	return float64(both) / float64(len(set))
}
