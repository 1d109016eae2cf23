package engine

import (
	"context"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// Decision links. A decision names the decisions it depends on
// (depends_on) and those it constrains (constrains). Its digest entry
// shows both lists, and a digest that places a decision also offers the
// decisions it links to, right after it, when they fit what is left of the
// budget once every ranked candidate has had its place: links never push
// a ranked entry out and never change the ranking.

// linkedPrefix marks a digest entry placed because a decision above it
// links to it (it has no score of its own).
const linkedPrefix = "- (linked)"

// maxLinkedPerDigest bounds the linked decisions one digest fetches.
const maxLinkedPerDigest = 50

// placed is one entry of a digest under construction.
type placed struct {
	hit    mnemo.ScoredRecord
	prefix string
	body   string
	tokens int
}

// hasLinks reports whether r is a decision that links to others (or
// cites principles): lines whose rendering changed after such records
// were written.
func hasLinks(r *mnemo.Record) bool {
	return r.Decision != nil && (len(r.Decision.DependsOn) > 0 || len(r.Decision.Constrains) > 0 || len(r.Decision.Principles) > 0)
}

// entryTokens is the exact token count of r's entry body, counted once
// per version of the record and kept (bodyTokens).
func (s *Service) entryTokens(r *mnemo.Record) int {
	k := termKey{r.Namespace, r.ID, r.UpdatedAt.UnixNano()}
	if n, ok := s.bodyTokens.get(k); ok {
		return n
	}
	n := s.count(entryBody(r))
	s.bodyTokens.mu.Lock()
	if s.bodyTokens.m == nil || len(s.bodyTokens.m) >= termCacheSize {
		s.bodyTokens.m = make(map[termKey]int, 1024)
	}
	s.bodyTokens.m[k] = n
	s.bodyTokens.mu.Unlock()
	return n
}

// entryTokensBound is a cheap bound on entryTokens for a candidate that
// may not be placed: the exact count when it is kept, else the count
// stored with the record at write time — exact for records written by
// this version, and a few tokens more for records written before digests
// printed short references — else the exact count (no stored count, or
// link lines rendered since). A digest checks candidates against the
// bound and counts exactly only those it places.
func (s *Service) entryTokensBound(r *mnemo.Record) int {
	if n, ok := s.bodyTokens.get(termKey{r.Namespace, r.ID, r.UpdatedAt.UnixNano()}); ok {
		return n
	}
	if r.Tokens > 0 && !hasLinks(r) {
		return r.Tokens
	}
	return s.entryTokens(r)
}

// partialBound is entryTokensBound of a record that holds its ranking
// fields only (mnemo.RankFields): the kept count of its body, else its
// text's token count, which its body holds (0 when unknown).
func (s *Service) partialBound(r *mnemo.Record) int {
	if n, ok := s.bodyTokens.get(termKey{r.Namespace, r.ID, r.UpdatedAt.UnixNano()}); ok {
		return n
	}
	return r.Tokens
}

// fillWindow is how many hits a digest reads at once.
const fillWindow = 16

// countCache keeps the token counts of entry bodies (entryTokens).
type countCache struct {
	mu sync.RWMutex
	m  map[termKey]int
}

// get returns the kept count of k.
func (c *countCache) get(k termKey) (int, bool) {
	c.mu.RLock()
	n, ok := c.m[k]
	c.mu.RUnlock()
	return n, ok
}

// addLinked places, after each placed decision, the live decisions it
// links to (depends_on first, then constrains, in the order named) and
// the principles it applies (Decision.Principles) that
// are not placed yet, that the caller may see and that the digest's layer
// filter admits, while they fit in left tokens (their section's header
// included when it opens). It returns the tokens it used. A store error
// places nothing more: links are an offer, never a failure of the digest.
func (s *Service) addLinked(ctx context.Context, sc mnemo.Scope, f mnemo.Filter, left int, sections map[string][]placed, opened map[string]bool) int {
	have := map[string]bool{}
	var want []string
	for _, ps := range sections {
		for _, p := range ps {
			have[p.hit.Record.ID] = true
		}
	}
	for _, sec := range sectionOrder() {
		for _, p := range sections[sec] {
			if d := p.hit.Record.Decision; d != nil {
				for _, id := range linkIDs(d) {
					if !have[id] && len(want) < maxLinkedPerDigest {
						have[id] = true
						want = append(want, id)
					}
				}
			}
		}
	}
	if len(want) == 0 {
		return 0
	}
	recs, err := s.store.GetMany(ctx, sc, want)
	if err != nil {
		s.log.Warn("digest: linked decisions not read", "namespace", sc.Namespace, "err", err)
		return 0
	}
	byID := make(map[string]*mnemo.Record, len(recs))
	for _, r := range recs {
		if (r.Kind == mnemo.KindDecision || r.Kind == mnemo.KindPrinciple) && r.DeletedAt == nil && r.SupersededBy == "" && r.ValidTo == nil &&
			(len(f.Layers) == 0 || containsLayer(f.Layers, r.Layer)) {
			byID[r.ID] = r
		}
	}
	used := 0
	prefixTok := s.countCached(linkedPrefix)
	for _, sec := range sectionOrder() {
		var out []placed
		for _, p := range sections[sec] {
			out = append(out, p)
			d := p.hit.Record.Decision
			if d == nil {
				continue
			}
			for _, id := range linkIDs(d) {
				r := byID[id]
				if r == nil {
					continue
				}
				lsec := sectionTitle[r.Layer]
				body := entryBody(r)
				tok := s.count(body)
				cost := prefixTok + tok
				if !opened[lsec] && lsec != sec {
					cost += s.countCached(lsec)
				}
				if cost > left-used {
					continue
				}
				used += cost
				delete(byID, id) // placed once
				e := placed{hit: mnemo.ScoredRecord{Record: r, ID: r.ID}, prefix: linkedPrefix, body: body, tokens: tok}
				if lsec == sec {
					out = append(out, e)
				} else {
					opened[lsec] = true
					sections[lsec] = append(sections[lsec], e)
				}
			}
		}
		sections[sec] = out
	}
	return used
}

// linkIDs are the records a decision links to, in the order a digest
// offers them: the decisions it depends on, those it constrains, the
// principles it applies.
func linkIDs(d *mnemo.Decision) []string {
	ids := make([]string, 0, len(d.DependsOn)+len(d.Constrains)+len(d.Principles))
	ids = append(ids, d.DependsOn...)
	ids = append(ids, d.Constrains...)
	return append(ids, d.Principles...)
}

// sectionOrder is the digest's sections in the order they are written.
func sectionOrder() []string {
	return []string{coreTitle, sectionTitle[mnemo.LayerDomain], sectionTitle[mnemo.LayerWorkflow], sectionTitle[mnemo.LayerPractitioner]}
}
