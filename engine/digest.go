package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// MaxTokenBudget bounds a digest's token budget.
const MaxTokenBudget = 1_000_000

// section titles, in digest order after the core block.
var sectionTitle = map[mnemo.Layer]string{
	mnemo.LayerDomain:       "## Domain\n",
	mnemo.LayerWorkflow:     "## Workflow: decisions and provenance\n",
	mnemo.LayerPractitioner: "## Practitioner: how this operator works\n",
}

const coreTitle = "## Core\n"

// DefaultScoreRatio is the share of the best entry's score another entry
// must reach to be placed in a digest once ratioAfter entries are placed,
// unless the request or the namespace's configuration says otherwise
// (mnemo.DigestRequest.MinScoreRatio). The relevance floor keeps out what
// shows no evidence of relevance; this keeps out what is relevant but far
// weaker than the best answer, which an agent reads at full price, while
// a digest's first few leads are never cut (a small digest is cheap and
// its weaker entries, such as a standing rule beside the decision that
// answers, are often what the agent lacked). On the LoCoMo conversations
// the settings are chosen on it spends a quarter fewer tokens per
// evidence turn found for under 0.01 of recall within the budget.
const DefaultScoreRatio = 0.3

// ratioAfter is how many non-core entries a digest places before
// min_score_ratio applies.
const ratioAfter = 8

// nothingRelevant ends a digest in which no record but the core ones shows
// evidence of relevance to the task.
const nothingRelevant = "_Nothing in memory is relevant to this task._\n"

// Digest answers workflow_memory_query: the context an agent should start
// with for a task, within a token budget. Core records come first, then a
// section per layer; entries are placed greedily by rank and the rendered
// Markdown never exceeds the budget, headers included (token counts are
// exact for the configured tokenizer). Errors: EINVALID for an empty task, a
// bad scope, budget or filter.
func (s *Service) Digest(ctx context.Context, req mnemo.DigestRequest) (*mnemo.Digest, error) {
	// One read: its store calls, the linked decisions' included, see one
	// state of the store, checked once.
	ctx = mnemo.WithReadSession(ctx)
	c, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	if !filterOnly(req.Task, req.Filter) && !(strings.TrimSpace(req.Task) == "" && req.Scope != "" && req.Scope != mnemo.ScopeAll) {
		if err := checkQuery(req.Task, "task description"); err != nil {
			return nil, err
		}
	}
	if req.Filter.AsKnownAt != nil {
		return s.digestKnownAt(ctx, sc, req) // transaction time: asknown.go
	}
	if req.Budget == 0 {
		req.Budget = mnemo.DefaultTokenBudget
	}
	if req.Budget < 0 || req.Budget > MaxTokenBudget {
		return nil, mnemo.Errorf(mnemo.EINVALID, "token budget %d is outside 1..%d", req.Budget, MaxTokenBudget)
	}
	if req.Scope == "" {
		req.Scope = mnemo.ScopeAll
	}
	if r := req.MinScoreRatio; r != nil && !(*r >= 0 && *r <= 1) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "min_score_ratio %v is outside 0..1", *r)
	}
	f := req.Filter
	switch req.Scope {
	case mnemo.ScopeAll:
	case mnemo.ScopeDomain, mnemo.ScopeWorkflow, mnemo.ScopePractitioner:
		l := mnemo.Layer(req.Scope)
		if len(f.Layers) > 0 && !containsLayer(f.Layers, l) {
			return nil, mnemo.Errorf(mnemo.EINVALID, "scope %q excludes every layer of the filter", req.Scope)
		}
		f.Layers = []mnemo.Layer{l}
	default:
		return nil, mnemo.Errorf(mnemo.EINVALID, "unknown scope %q (want all, domain, workflow or practitioner)", req.Scope)
	}
	rk, err := s.rank(ctx, sc, req.Task, f, req.Preset, req.Intent, true, req.MinRelevance)
	if err != nil {
		return nil, err
	}
	d := &mnemo.Digest{Task: req.Task, Scope: req.Scope, Intent: string(rk.intent), IntentBy: rk.by, Preset: rk.preset.Name,
		Weights: rk.weights, Triage: rk.triage, Budget: req.Budget, Tokenizer: s.tok.Name(),
		Candidates: len(rk.hits), Entries: []mnemo.DigestEntry{}}

	about := truncate(oneLine(req.Task), 200)
	if about == "" {
		about = filterTitle(f)
	}
	title := "# Context for: " + about + "\n" + triageNote(rk.triage)
	titleTok := s.count(title)
	omitLine := func(n int) string {
		return "_" + strconv.Itoa(n) + " more candidates left out to fit " + strconv.Itoa(req.Budget) + " tokens._\n"
	}
	// Reserve the longest possible "left out" line up front.
	reserve := s.countCached(omitLine(len(rk.hits)))
	left := req.Budget - titleTok - reserve
	if left <= 0 {
		d.Omitted = len(rk.hits)
		return d, nil
	}

	// Greedy fill by rank, core first.
	sections := map[string][]placed{}
	opened := map[string]bool{}
	used := 0
	var order []mnemo.ScoredRecord
	for _, h := range rk.hits {
		if h.Record.Kind == mnemo.KindCore {
			order = append(order, h)
		}
	}
	for _, h := range rk.hits {
		if h.Record.Kind != mnemo.KindCore {
			order = append(order, h)
		}
	}
	// The floor of the weaker entries: a share of the best non-core score.
	ratio := rk.ratio
	if req.MinScoreRatio != nil && !filterOnly(req.Task, f) {
		ratio = *req.MinScoreRatio
	}
	weakBelow := 0.0
	for _, h := range order {
		if h.Record.Kind != mnemo.KindCore {
			weakBelow = ratio * h.Score
			break
		}
	}
	omitted, weaker, placedN := 0, 0, 0
	dd := dedup{threshold: rk.dedup}
	fold := newDigestFold(rk.hits) // extracted memories take their messages' place: digest_merge.go
	for i := 0; i < len(order); i++ {
		h := order[i]
		if fold.covered(h) {
			continue
		}
		if h.Record.Kind != mnemo.KindCore && h.Score < weakBelow && placedN >= ratioAfter {
			weaker++
			continue
		}
		if rk.partial[h.ID] {
			// Ranked from its fields: an entry that cannot fit by the
			// lower bound of its size is left out unread (as it would be
			// read), the others are read with the next few.
			cost := s.countCached(scorePrefix(h.Score)) + s.partialBound(h.Record)
			if sec := sectionTitle[h.Record.Layer]; !opened[sec] {
				cost += s.countCached(sec)
			}
			if cost > left-used {
				omitted++
				continue
			}
			if err := s.fill(ctx, rk, order, i, fillWindow); err != nil {
				return nil, err
			}
			if h = order[i]; h.Record == nil {
				continue // gone since it was ranked
			}
		}
		if dd.dup(h) && !fold.replaces(h) {
			omitted++
			continue
		}
		r := h.Record
		sec := coreTitle
		if r.Kind != mnemo.KindCore {
			sec = sectionTitle[r.Layer]
		}
		body, bodyTok, refund := s.foldEntry(fold, h, sec, sections)
		prefix := scorePrefix(h.Score)
		cost := s.countCached(prefix) + bodyTok - refund
		if !opened[sec] {
			cost += s.countCached(sec)
		}
		if cost > left-used {
			omitted++
			continue
		}
		if body == "" {
			// Fits by its bound: render it and count it exactly.
			body = entryBody(r)
			if exact := s.entryTokens(r); exact != bodyTok {
				cost += exact - bodyTok
				bodyTok = exact
				if cost > left-used {
					omitted++
					continue
				}
			}
		}
		used += cost
		if r.Kind != mnemo.KindCore {
			placedN++
		}
		dd.add(h)
		fold.place(h, sections, opened)
		opened[sec] = true
		sections[sec] = append(sections[sec], placed{hit: h, prefix: prefix, body: body, tokens: bodyTok})
	}
	// The decisions the placed ones link to, in what is left.
	used += s.addLinked(ctx, sc, f, left-used, sections, opened)

	// One builder, sized once: concatenating the entries one by one copied
	// the growing Markdown for each (quadratic in the digest's size).
	size := len(title) + 64
	for _, ps := range sections {
		for _, p := range ps {
			size += len(p.prefix) + len(p.body)
		}
		size += 64
	}
	var md strings.Builder
	md.Grow(size)
	md.WriteString(title)
	for _, sec := range []string{coreTitle, sectionTitle[mnemo.LayerDomain], sectionTitle[mnemo.LayerWorkflow], sectionTitle[mnemo.LayerPractitioner]} {
		ps := sections[sec]
		if len(ps) == 0 {
			continue
		}
		md.WriteString(sec)
		name := sectionName(sec)
		for _, p := range ps {
			md.WriteString(p.prefix)
			md.WriteString(p.body)
			r := p.hit.Record
			d.Entries = append(d.Entries, mnemo.DigestEntry{ID: r.ID, Layer: r.Layer, Kind: r.Kind, Scope: r.Scope,
				Score: p.hit.Score, Factors: p.hit.Factors, Text: r.Text, Provenance: nonNil(r.Provenance),
				Tokens: p.tokens, Section: name, Why: p.hit.Why})
		}
	}
	fold.annotate(d.Entries)
	d.UsedTokens = titleTok + used
	relevant := 0
	for _, h := range rk.hits {
		if h.Record.Kind != mnemo.KindCore {
			relevant++
		}
	}
	tail := ""
	if omitted > 0 {
		tail = omitLine(omitted)
		d.UsedTokens += s.countCached(tail)
	}
	if relevant == 0 {
		// A budget is a ceiling, not a target: say so and stay tiny.
		if t := s.count(md.String() + nothingRelevant + tail); t <= req.Budget {
			tail = nothingRelevant + tail
			d.UsedTokens = t
		}
	}
	md.WriteString(tail)
	d.Omitted, d.Weaker = omitted, weaker
	d.Markdown = md.String()

	logged := make([]mnemo.ScoredRecord, len(d.Entries))
	for i, e := range d.Entries {
		logged[i] = mnemo.ScoredRecord{ID: e.ID, Score: e.Score}
	}
	d.RetrievalID = s.logRetrieval(c, sc.Namespace, "digest", req.Task, logged)
	return d, nil
}

func sectionName(title string) string {
	switch title {
	case coreTitle:
		return "core"
	case sectionTitle[mnemo.LayerDomain]:
		return "domain"
	case sectionTitle[mnemo.LayerWorkflow]:
		return "workflow"
	}
	return "practitioner"
}

func containsLayer(ls []mnemo.Layer, l mnemo.Layer) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
