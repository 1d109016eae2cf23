// Package handoff writes the brief for an incoming operator: the period's
// typical corrections, areas of heightened attention, decisions, open
// questions and the escalation timeline, within a token budget. The engine
// answers mnemo.Briefer's Handoff with it.
package handoff

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/corrections"
	"github.com/mnemo-dev/mnemo/internal/access"
	"github.com/mnemo-dev/mnemo/internal/render"
)

// Source is what a brief is built from: the store it reads, the tokenizer
// that counts its budget, the clock and the largest budget a request may
// ask for.
type Source struct {
	Store     mnemo.Store
	Tokenizer mnemo.Tokenizer
	Now       func() time.Time
	MaxBudget int
}

// handoffCritical is the criticality from which an event joins the
// escalation timeline.
const handoffCritical = 0.7

// linkWindow is how close two critical events of one component must be
// for the later to be linked to the earlier.
const linkWindow = 6 * time.Hour

// causalLinks links each event (oldest first) to the latest earlier event
// it names in its provenance, else to the latest earlier one of the same
// component within linkWindow.
func causalLinks(events []*mnemo.Record) []mnemo.HandoffLink {
	links := []mnemo.HandoffLink{}
	for i, b := range events {
		var found *mnemo.HandoffLink
		for j := i - 1; j >= 0 && found == nil; j-- {
			a := events[j]
			for _, p := range b.Provenance {
				if p == mnemo.MissedRef+a.ID || p == "caused-by:"+a.ID {
					found = &mnemo.HandoffLink{From: a.ID, To: b.ID, Why: "named"}
					break
				}
			}
		}
		for j := i - 1; j >= 0 && found == nil; j-- {
			a := events[j]
			if d := b.CreatedAt.Sub(a.CreatedAt); a.Component != "" && a.Component == b.Component && d <= linkWindow {
				found = &mnemo.HandoffLink{From: a.ID, To: b.ID, Why: fmt.Sprintf("same component %s, %s later", a.Component, d.Round(time.Minute))}
			}
		}
		if found != nil {
			links = append(links, *found)
		}
	}
	return links
}

// operatorRef is the provenance reference naming the operator a record
// comes from.
func operatorRef(name string) string { return "operator:" + name }

// Build builds the brief for an incoming operator of a namespace.
// Sections, in order of priority when the budget is short: typical
// corrections (grouped by category, with missing-context counts and the
// latest summaries), areas of heightened attention (components ranked by
// missing-context corrections, corrections and critical events), the
// period's decisions with rationale and rejected alternatives, open
// questions (live records tagged "question", any age) and the timeline of
// events of criticality ≥ 0.7. The Markdown never exceeds the budget and
// its token count is exact. Errors: EINVALID for a bad budget or period.
func Build(ctx context.Context, s Source, req mnemo.HandoffRequest) (*mnemo.Handoff, error) {
	_, sc, err := access.Reader(ctx)
	if err != nil {
		return nil, err
	}
	if req.Budget == 0 {
		req.Budget = mnemo.DefaultHandoffBudget
	}
	if req.Budget < 0 || req.Budget > s.MaxBudget {
		return nil, mnemo.Errorf(mnemo.EINVALID, "token budget %d is outside 1..%d", req.Budget, s.MaxBudget)
	}
	if strings.ContainsAny(req.From, "\n\r") || len(req.From) > 256 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "operator name must be one line of at most 256 bytes")
	}
	now := s.Now().UTC()
	until := now.Add(time.Nanosecond)
	if req.Since.IsZero() {
		req.Since = now.Add(-mnemo.DefaultHandoffSpan)
	}
	req.Since = req.Since.UTC()
	if !req.Since.Before(until) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "since %s is in the future", req.Since.Format(time.RFC3339))
	}
	h := &mnemo.Handoff{Namespace: sc.Namespace, From: req.From, Since: req.Since, Until: now, Budget: req.Budget,
		Tokenizer: s.Tokenizer.Name(), Patterns: []mnemo.HandoffPattern{}, Attention: []mnemo.HandoffArea{},
		Decisions: []string{}, Questions: []string{}, Timeline: []string{}, Links: []mnemo.HandoffLink{}}

	// Corrections of the period, the outgoing operator's when named.
	all, err := corrections.List(ctx, s.Store, sc, req.Since, until)
	if err != nil {
		return nil, err
	}
	var cors []*mnemo.Record
	for _, r := range all {
		if req.From == "" || slices.Contains(r.Provenance, operatorRef(req.From)) {
			cors = append(cors, r)
		}
	}
	slices.SortFunc(cors, newestFirst)
	patterns := map[string]*mnemo.HandoffPattern{}
	areas := map[string]*mnemo.HandoffArea{}
	area := func(name string) *mnemo.HandoffArea {
		if areas[name] == nil {
			areas[name] = &mnemo.HandoffArea{Component: name}
		}
		return areas[name]
	}
	for _, r := range cors {
		cor := r.Correction
		if cor == nil {
			cor = &mnemo.Correction{}
		}
		p := patterns[cor.Category]
		if p == nil {
			p = &mnemo.HandoffPattern{Category: cor.Category, Summaries: []string{}}
			patterns[cor.Category] = p
		}
		p.Corrections++
		summary := cor.Summary
		if summary == "" {
			summary = r.Text
		}
		if len(p.Summaries) < 3 {
			p.Summaries = append(p.Summaries, render.OneLine(summary))
		}
		comp := cmp.Or(cor.Component, r.Component)
		if comp != "" {
			a := area(comp)
			a.Corrections++
			if cor.MissingContext {
				a.MissingContext++
			}
		}
		if cor.MissingContext {
			p.MissingContext++
		}
	}

	// Critical events of the period: the timeline, and attention.
	events, err := access.ListAll(ctx, s.Store, sc, mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindEvent},
		Since: &req.Since, Until: &until, MinCriticality: handoffCritical}})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(events, func(a, b *mnemo.Record) int { return -newestFirst(a, b) })
	for _, r := range events {
		if r.Component != "" {
			area(r.Component).CriticalEvents++
		}
	}
	decisions, err := access.ListAll(ctx, s.Store, sc, mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindDecision},
		Since: &req.Since, Until: &until}})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(decisions, newestFirst)
	questions, err := access.ListAll(ctx, s.Store, sc, mnemo.ListOptions{Filter: mnemo.Filter{Tags: []string{mnemo.QuestionTag}}})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(questions, newestFirst)

	for _, p := range patterns {
		h.Patterns = append(h.Patterns, *p)
	}
	slices.SortFunc(h.Patterns, func(a, b mnemo.HandoffPattern) int {
		return cmp.Or(cmp.Compare(b.Corrections, a.Corrections), cmp.Compare(b.MissingContext, a.MissingContext),
			strings.Compare(a.Category, b.Category))
	})
	for _, a := range areas {
		h.Attention = append(h.Attention, *a)
	}
	slices.SortFunc(h.Attention, func(a, b mnemo.HandoffArea) int {
		return cmp.Or(cmp.Compare(b.MissingContext, a.MissingContext), cmp.Compare(b.Corrections, a.Corrections),
			cmp.Compare(b.CriticalEvents, a.CriticalEvents), strings.Compare(a.Component, b.Component))
	})

	// Markdown, greedy in section order by each piece's own count (pieces
	// end lines; joined, blank lines may merge into fewer tokens), then
	// counted exactly as a whole.
	var pieces []string
	used := 0
	put := func(piece string) bool {
		n := s.Tokenizer.Count(piece)
		if used+n > req.Budget {
			h.Omitted++
			return false
		}
		pieces = append(pieces, piece)
		used += n
		return true
	}
	who := "everyone"
	if req.From != "" {
		who = render.OneLine(req.From)
	}
	title := fmt.Sprintf("# Handoff: %s, %s to %s (corrections of %s)\n", sc.Namespace,
		req.Since.Format("2006-01-02 15:04"), now.Format("2006-01-02 15:04 UTC"), who)
	if !put(title) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "token budget %d is too small for the handoff's title", req.Budget)
	}
	section := func(head string, lines []string, onLine func(i int)) {
		if len(lines) == 0 {
			return
		}
		if !put("\n## " + head + "\n") {
			h.Omitted += len(lines)
			return
		}
		for i, l := range lines {
			if put(l) && onLine != nil {
				onLine(i)
			}
		}
	}
	var lines []string
	for _, p := range h.Patterns {
		cat := cmp.Or(p.Category, "(no category)")
		l := fmt.Sprintf("- %s: %d correction%s, %d from missing context", render.OneLine(cat), p.Corrections, plural(p.Corrections), p.MissingContext)
		if len(p.Summaries) > 0 {
			l += " — latest: " + strings.Join(p.Summaries, "; ")
		}
		lines = append(lines, l+"\n")
	}
	section("Typical corrections", lines, nil)
	lines = lines[:0]
	for _, a := range h.Attention {
		lines = append(lines, fmt.Sprintf("- %s: %d correction%s (%d missing context), %d critical event%s\n",
			render.OneLine(a.Component), a.Corrections, plural(a.Corrections), a.MissingContext, a.CriticalEvents, plural(a.CriticalEvents)))
	}
	section("Areas of heightened attention", lines, nil)
	lines = lines[:0]
	for _, r := range decisions {
		lines = append(lines, "-"+render.Entry(r))
	}
	section("Decisions", lines, func(i int) { h.Decisions = append(h.Decisions, decisions[i].ID) })
	lines = lines[:0]
	for _, r := range questions {
		lines = append(lines, "-"+render.Entry(r))
	}
	section("Open questions", lines, func(i int) { h.Questions = append(h.Questions, questions[i].ID) })
	lines = lines[:0]
	links := causalLinks(events)
	cause := map[string]mnemo.HandoffLink{}
	for _, l := range links {
		cause[l.To] = l
	}
	shown := map[string]bool{}
	for _, r := range events {
		l := fmt.Sprintf("- %s (criticality %.2f) %s [%s]", r.CreatedAt.UTC().Format("2006-01-02 15:04"),
			r.Criticality, render.OneLine(r.Text), r.ID)
		if c, ok := cause[r.ID]; ok {
			l += fmt.Sprintf(" ← follows %s (%s)", c.From, c.Why)
		}
		lines = append(lines, l+"\n")
	}
	section("Escalation timeline", lines, func(i int) {
		h.Timeline = append(h.Timeline, events[i].ID)
		shown[events[i].ID] = true
	})
	for _, l := range links {
		if shown[l.From] && shown[l.To] {
			h.Links = append(h.Links, l)
		}
	}
	if len(pieces) == 1 {
		put("\nNothing recorded in this period.\n")
	}
	h.Markdown = strings.Join(pieces, "")
	h.UsedTokens = s.Tokenizer.Count(h.Markdown)
	// A safeguard: joining pieces at line ends has only ever lowered the
	// count, but the budget is a promise.
	for h.UsedTokens > req.Budget && len(pieces) > 1 {
		pieces = pieces[:len(pieces)-1]
		h.Omitted++
		h.Markdown = strings.Join(pieces, "")
		h.UsedTokens = s.Tokenizer.Count(h.Markdown)
	}
	return h, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func newestFirst(a, b *mnemo.Record) int {
	return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(b.ID, a.ID))
}
