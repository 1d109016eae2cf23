// Package prompts computes statistics over the captured prompt corpus
// (DESIGN.md §6): intent labels, topic frequencies per repository and week,
// and how the operator switches between projects. Its output holds labels,
// single terms and counts only: raw prompt text stays in the capture
// repository.
package prompts

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo/internal/words"
	"github.com/mnemo-dev/mnemo/score"
)

// Prompt is one captured prompt, as the statistics need it.
type Prompt struct {
	Text       string
	Time       time.Time
	Session    string
	Repository string
	Branch     string
}

// Options tune Analyze.
type Options struct {
	// TopTerms is the number of terms kept per repository and week;
	// 10 when 0.
	TopTerms int
}

// Stats is the report of `mnemo prompts stats`. JSON shape:
//
//	{
//	  "prompts": 42, "sessions": 7, "repositories": 3,
//	  "first": "2025-01-06T09:00:00Z", "last": "2025-01-20T18:00:00Z",
//	  "intents": {"general": 30, "why": 5, …},          // the digest classifier (score.Classify)
//	  "coding_intents": {"fix": 12, "feature": 9, …},  // fix, feature, refactor, question, review, ops, other
//	  "topics": [
//	    {"repository": "/src/mnemo", "week": "2025-W02", "prompts": 12,
//	     "terms": [{"term": "digest", "count": 5}, …]}  // most frequent first
//	  ],
//	  "switching": {
//	    "switches": 9,              // consecutive prompts (by time) in different repositories
//	    "runs": 10,                 // maximal runs of consecutive prompts in one repository
//	    "median_run_length": 3,     // median length of the runs that end in a switch
//	    "transitions": {"/src/a": {"/src/b": 4}, …}  // from → to → switches
//	  }
//	}
//
// Intent maps hold only intents that occur. Topics are ordered by
// repository, then week. Prompts without a timestamp are counted
// everywhere except in topics and switching.
type Stats struct {
	Prompts       int                  `json:"prompts"`
	Sessions      int                  `json:"sessions"`
	Repositories  int                  `json:"repositories"`
	First         *time.Time           `json:"first,omitempty"`
	Last          *time.Time           `json:"last,omitempty"`
	Intents       map[score.Intent]int `json:"intents"`
	CodingIntents map[CodingIntent]int `json:"coding_intents"`
	Topics        []Topic              `json:"topics"`
	Switching     Switching            `json:"switching"`
}

// Topic is the most frequent terms of one repository in one ISO week.
type Topic struct {
	Repository string      `json:"repository"`
	Week       string      `json:"week"` // ISO 8601 week, "2025-W02"
	Prompts    int         `json:"prompts"`
	Terms      []TermCount `json:"terms"`
}

// TermCount is a term and the number of its occurrences.
type TermCount struct {
	Term  string `json:"term"`
	Count int    `json:"count"`
}

// Switching describes how the operator moves between repositories.
type Switching struct {
	Switches        int                       `json:"switches"`
	Runs            int                       `json:"runs"`
	MedianRunLength float64                   `json:"median_run_length"`
	Transitions     map[string]map[string]int `json:"transitions"`
}

// Analyze computes the statistics of prompts. Prompts are ordered by time
// (ties keep their input order) for project switching. The median of an
// even number of run lengths is the mean of the two middle ones; it is 0
// when there is no switch.
func Analyze(prompts []Prompt, opt Options) *Stats {
	top := opt.TopTerms
	if top <= 0 {
		top = 10
	}
	st := &Stats{
		Prompts:       len(prompts),
		Intents:       map[score.Intent]int{},
		CodingIntents: map[CodingIntent]int{},
		Topics:        []Topic{},
		Switching:     Switching{Transitions: map[string]map[string]int{}},
	}
	sessions, repos := map[string]bool{}, map[string]bool{}
	type key struct{ repo, week string }
	terms := map[key]map[string]int{}
	counts := map[key]int{}
	for _, p := range prompts {
		sessions[p.Session] = true
		repos[p.Repository] = true
		st.Intents[score.Classify(p.Text)]++
		st.CodingIntents[ClassifyCoding(p.Text)]++
		if p.Time.IsZero() {
			continue
		}
		t := p.Time.UTC()
		if st.First == nil || t.Before(*st.First) {
			st.First = &t
		}
		if st.Last == nil || t.After(*st.Last) {
			st.Last = &t
		}
		y, w := t.ISOWeek()
		k := key{p.Repository, fmt.Sprintf("%04d-W%02d", y, w)}
		if terms[k] == nil {
			terms[k] = map[string]int{}
		}
		counts[k]++
		for _, term := range Terms(p.Text) {
			terms[k][term]++
		}
	}
	st.Sessions, st.Repositories = len(sessions), len(repos)

	for k, m := range terms {
		tc := make([]TermCount, 0, len(m))
		for term, n := range m {
			tc = append(tc, TermCount{term, n})
		}
		slices.SortFunc(tc, func(a, b TermCount) int {
			if c := cmp.Compare(b.Count, a.Count); c != 0 {
				return c
			}
			return strings.Compare(a.Term, b.Term)
		})
		if len(tc) > top {
			tc = tc[:top]
		}
		st.Topics = append(st.Topics, Topic{Repository: k.repo, Week: k.week, Prompts: counts[k], Terms: tc})
	}
	slices.SortFunc(st.Topics, func(a, b Topic) int {
		if c := strings.Compare(a.Repository, b.Repository); c != 0 {
			return c
		}
		return strings.Compare(a.Week, b.Week)
	})

	st.Switching = switching(prompts)
	return st
}

func switching(prompts []Prompt) Switching {
	var timed []Prompt
	for _, p := range prompts {
		if !p.Time.IsZero() {
			timed = append(timed, p)
		}
	}
	sort.SliceStable(timed, func(i, j int) bool { return timed[i].Time.Before(timed[j].Time) })
	sw := Switching{Transitions: map[string]map[string]int{}}
	var ended []float64 // lengths of runs that end in a switch
	run := 0
	for i, p := range timed {
		if i > 0 && p.Repository != timed[i-1].Repository {
			from := timed[i-1].Repository
			if sw.Transitions[from] == nil {
				sw.Transitions[from] = map[string]int{}
			}
			sw.Transitions[from][p.Repository]++
			sw.Switches++
			ended = append(ended, float64(run))
			run = 0
		}
		if run == 0 {
			sw.Runs++
		}
		run++
	}
	if len(ended) > 0 {
		slices.Sort(ended)
		n := len(ended)
		if n%2 == 1 {
			sw.MedianRunLength = ended[n/2]
		} else {
			sw.MedianRunLength = (ended[n/2-1] + ended[n/2]) / 2
		}
	}
	return sw
}

// Terms returns the topic terms of text: its rule words (words.RuleWords,
// folded) of at least three letters that are neither function words nor
// request words (words.IsFunctionWord, words.IsRequestWord: English,
// Russian, Ukrainian) and not numbers, in order, with repeats.
func Terms(text string) []string {
	var out []string
	for _, t := range words.RuleWords(text) {
		if utf8.RuneCountInString(t) < 3 || words.IsFunctionWord(t) || words.IsRequestWord(t) || !hasLetter(t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func hasLetter(s string) bool {
	for _, c := range s {
		if unicode.IsLetter(c) {
			return true
		}
	}
	return false
}

// WriteText renders st as plain-text tables.
func (st *Stats) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "prompts %d, sessions %d, repositories %d", st.Prompts, st.Sessions, st.Repositories)
	if st.First != nil && st.Last != nil {
		fmt.Fprintf(tw, ", %s .. %s", st.First.Format("2006-01-02"), st.Last.Format("2006-01-02"))
	}
	fmt.Fprintln(tw)

	fmt.Fprintln(tw, "\nINTENT\tPROMPTS")
	for _, i := range score.Intents() {
		if n := st.Intents[i]; n > 0 {
			fmt.Fprintf(tw, "%s\t%d\n", i, n)
		}
	}
	fmt.Fprintln(tw, "\nCODING INTENT\tPROMPTS")
	for _, i := range CodingIntents() {
		if n := st.CodingIntents[i]; n > 0 {
			fmt.Fprintf(tw, "%s\t%d\n", i, n)
		}
	}

	fmt.Fprintln(tw, "\nREPOSITORY\tWEEK\tPROMPTS\tTOP TERMS")
	for _, t := range st.Topics {
		parts := make([]string, len(t.Terms))
		for i, tc := range t.Terms {
			parts[i] = fmt.Sprintf("%s(%d)", tc.Term, tc.Count)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", repoLabel(t.Repository), t.Week, t.Prompts, strings.Join(parts, " "))
	}

	sw := st.Switching
	fmt.Fprintf(tw, "\nswitches %d, runs %d, median run length before a switch %g\n", sw.Switches, sw.Runs, sw.MedianRunLength)
	if len(sw.Transitions) > 0 {
		// The transition matrix: rows are "from", columns "to".
		var names []string
		seen := map[string]bool{}
		for from, m := range sw.Transitions {
			for to := range m {
				for _, n := range []string{from, to} {
					if !seen[n] {
						seen[n] = true
						names = append(names, n)
					}
				}
			}
		}
		sort.Strings(names)
		fmt.Fprint(tw, "FROM \\ TO")
		for _, n := range names {
			fmt.Fprintf(tw, "\t%s", repoLabel(n))
		}
		fmt.Fprintln(tw)
		for _, from := range names {
			fmt.Fprint(tw, repoLabel(from))
			for _, to := range names {
				fmt.Fprintf(tw, "\t%d", sw.Transitions[from][to])
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// repoLabel shortens a repository path to its last element for tables.
func repoLabel(repo string) string {
	if repo == "" {
		return "(none)"
	}
	return filepath.Base(repo)
}
