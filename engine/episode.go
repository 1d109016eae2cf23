package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/extract"
)

// Episodes summarise conversations. Summarize builds one, deterministically
// and offline, from a thread's records: an extractive summary that picks
// the sentences most central to the thread (closest to the mean of all its
// sentence vectors) while avoiding repeats (maximal marginal relevance),
// within a token budget, in the order they were said.

// Episode defaults.
const (
	DefaultEpisodeBudget = 200
	maxEpisodeBudget     = 4000
	episodeLambda        = 0.7 // centrality against redundancy in the selection
	maxEpisodeRecords    = 10_000
	maxEpisodeCandidates = 2_000
	minSentenceTokens    = 4
)

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// EpisodeResult is what Summarize wrote.
type EpisodeResult struct {
	Record  *mnemo.Record `json:"record"`
	Created bool          `json:"created"` // false: the thread's episode was updated
	Records int           `json:"records"` // records of the thread summarised
	Chosen  int           `json:"sentences"`
}

// EpisodeID is the id of a thread's episode in namespace ns: one per
// thread, so summarising again updates it.
func EpisodeID(ns, thread string) string {
	return mnemo.DerivedID(time.Time{}, "episode", ns, thread)
}

type sentence struct {
	text string
	rec  int // index of its record
	pos  int // order in the thread
}

// SplitSentences splits a record's text into sentences, keeping a leading
// "Speaker:" with each.
func SplitSentences(text string) []string {
	speaker, text := extract.Speaker(text)
	if speaker != "" {
		speaker += ": "
	}
	var out []string
	for _, s := range extract.Sentences(text) {
		if len([]rune(s)) >= 12 && strings.IndexFunc(s, unicode.IsLetter) >= 0 {
			out = append(out, speaker+s)
		}
	}
	return out
}

// Summarize writes (or rewrites) the episode of a thread: kind episode,
// "Episode of <thread> (<from> – <to>, N messages): <sentences>", the
// chosen sentences' records and the thread as provenance, the time of the
// thread's last record. Errors: EINVALID for an empty thread name or a bad
// budget, ENOTFOUND when the thread has fewer than two records the caller
// may see.
func (s *Service) Summarize(ctx context.Context, c mnemo.Caller, ns, thread string, budget int) (*EpisodeResult, error) {
	if strings.TrimSpace(thread) == "" || len(thread) > mnemo.MaxThreadBytes {
		return nil, mnemo.Errorf(mnemo.EINVALID, "thread must be named, in at most %d bytes", mnemo.MaxThreadBytes)
	}
	if budget == 0 {
		budget = DefaultEpisodeBudget
	}
	if budget < 20 || budget > maxEpisodeBudget {
		return nil, mnemo.Errorf(mnemo.EINVALID, "episode budget %d is outside 20..%d", budget, maxEpisodeBudget)
	}
	sc := scopeOf(c, ns)
	recs, err := s.store.List(ctx, sc, mnemo.ListOptions{Filter: mnemo.Filter{Thread: thread}, ByTime: true, Limit: maxEpisodeRecords})
	if err != nil {
		return nil, err
	}
	slices.Reverse(recs) // oldest first
	if len(recs) < 2 {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "thread %q has %d records in %s: an episode needs at least two", thread, len(recs), sc.Namespace)
	}
	var sents []sentence
	for i, r := range recs {
		for _, t := range SplitSentences(r.Text) {
			sents = append(sents, sentence{text: t, rec: i, pos: len(sents)})
		}
	}
	if len(sents) == 0 {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "thread %q has no sentences to summarise", thread)
	}
	texts := make([]string, len(sents))
	for i, x := range sents {
		texts[i] = x.text
	}
	vecs, err := s.embedAll(ctx, texts)
	if err != nil {
		return nil, err
	}
	centroid := make([]float64, len(vecs[0]))
	for _, v := range vecs {
		for i, x := range v {
			centroid[i] += float64(x)
		}
	}
	norm := 0.0
	for _, x := range centroid {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	central := make([]float64, len(vecs))
	for i, v := range vecs {
		for j, x := range v {
			central[i] += float64(x) * centroid[j]
		}
		if norm > 0 {
			central[i] /= norm
		}
	}

	first, last := recs[0].CreatedAt, recs[len(recs)-1].CreatedAt
	head := fmt.Sprintf("Episode of %s (%s – %s, %d messages):", oneLine(thread), first.UTC().Format("2006-01-02 15:04"),
		last.UTC().Format("2006-01-02 15:04"), len(recs))
	used := s.count(head)
	// Long threads: only the most central sentences compete.
	cands := make([]int, len(sents))
	for i := range cands {
		cands[i] = i
	}
	if len(cands) > maxEpisodeCandidates {
		slices.SortStableFunc(cands, func(a, b int) int { return -cmpFloat(central[a], central[b]) })
		cands = cands[:maxEpisodeCandidates]
	}
	var chosen []int
	taken := make(map[int]bool, len(cands))
	for len(taken) < len(cands) && budget-used >= minSentenceTokens {
		best, bestScore := -1, math.Inf(-1)
		for _, i := range cands {
			if taken[i] {
				continue
			}
			red := 0.0
			for _, j := range chosen {
				red = math.Max(red, float64(dot(vecs[i], vecs[j])))
			}
			if v := episodeLambda*central[i] - (1-episodeLambda)*red; v > bestScore {
				best, bestScore = i, v
			}
		}
		taken[best] = true
		n := s.count(" " + sents[best].text)
		if used+n > budget {
			continue // too long for what is left: try the next best
		}
		used += n
		chosen = append(chosen, best)
	}
	if len(chosen) == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "episode budget %d is too small for any sentence of thread %q", budget, thread)
	}
	slices.Sort(chosen) // in the order they were said
	var b strings.Builder
	b.WriteString(head)
	prov := []string{"thread:" + thread}
	seen := map[int]bool{}
	level := 0
	for _, i := range chosen {
		b.WriteString(" " + sents[i].text)
		if r := sents[i].rec; !seen[r] {
			seen[r] = true
			prov = append(prov, mnemo.MissedRef+recs[r].ID)
		}
	}
	for _, r := range recs {
		level = max(level, r.AccessLevel) // the episode is as restricted as what it summarises
	}

	id := EpisodeID(sc.Namespace, thread)
	text := b.String()
	res := &EpisodeResult{Records: len(recs), Chosen: len(chosen)}
	old, err := s.store.Get(ctx, mnemo.Scope{Namespace: sc.Namespace, Clearance: mnemo.MaxAccessLevel}, id)
	switch {
	case mnemo.ErrorCode(err) == mnemo.ENOTFOUND:
		at := last
		w, err := s.Remember(ctx, c, sc.Namespace, []mnemo.NewRecord{{ID: id, Kind: mnemo.KindEpisode, Text: text,
			Source: "episode", Provenance: prov, At: &at, AccessLevel: level}}, WriteOptions{})
		if err != nil {
			return nil, err
		}
		res.Record, res.Created = w[0].Record, true
	case err != nil:
		return nil, err
	default:
		if old.DeletedAt != nil {
			if _, err := s.Restore(ctx, c, sc.Namespace, id); err != nil {
				return nil, err
			}
		}
		r, err := s.Update(ctx, c, sc.Namespace, id, mnemo.RecordPatch{Text: &text, Provenance: &prov, AccessLevel: &level})
		if err != nil {
			return nil, err
		}
		res.Record = r
	}
	return res, nil
}

// Threads lists the namespace's threads visible to the caller, most
// recently active first.
func (s *Service) Threads(ctx context.Context, c mnemo.Caller, ns string) ([]mnemo.ThreadInfo, error) {
	return s.store.Threads(ctx, scopeOf(c, ns))
}

// SummarizeIdle writes or refreshes the episode of every thread, in every
// namespace, that has at least minRecords live records, has been quiet for
// idle, and has no episode yet or one older than its last record. It
// returns the episodes written per namespace. A thread or namespace that
// fails does not stop the others: the errors, each naming its namespace and
// thread, are joined.
func (s *Service) SummarizeIdle(ctx context.Context, idle time.Duration, minRecords int) (map[string]int, error) {
	nss, err := s.store.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	c := mnemo.Caller{Name: "episodes", Clearance: mnemo.MaxAccessLevel}
	now := s.now()
	out := map[string]int{}
	var errs []error
	for _, ns := range nss {
		sc := mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}
		threads, err := s.store.Threads(ctx, sc)
		if err != nil {
			errs = append(errs, fmt.Errorf("episodes of %s: %w", ns, err))
			continue
		}
		for _, t := range threads {
			if ctx.Err() != nil {
				return out, errors.Join(append(errs, ctx.Err())...)
			}
			if t.Records < minRecords || now.Sub(t.Last) < idle {
				continue
			}
			if ep, err := s.store.Get(ctx, sc, EpisodeID(ns, t.Name)); err == nil && ep.DeletedAt == nil && !ep.CreatedAt.Before(t.Last) {
				continue // up to date
			} else if err != nil && mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
				errs = append(errs, fmt.Errorf("episode of %s/%s: %w", ns, t.Name, err))
				continue
			}
			if _, err := s.Summarize(ctx, c, ns, t.Name, 0); err != nil {
				if mnemo.ErrorCode(err) == mnemo.ENOTFOUND { // nothing to summarise
					continue
				}
				errs = append(errs, fmt.Errorf("episode of %s/%s: %w", ns, t.Name, err))
				continue
			}
			out[ns]++
		}
	}
	return out, errors.Join(errs...)
}
