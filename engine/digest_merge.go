package engine

import (
	"slices"

	"github.com/mnemo-dev/mnemo"
)

// Extracted memories merged with their messages. A memory extracted from
// a thread (source "extracted") names the messages it came from in its
// provenance (record:ID). When a digest places such a memory, the source
// messages among its candidates are folded under it instead of being
// placed beside it: the memory's entry ends with a line naming them by
// short reference ("  - from: 5WRPPEX1, C6VQGZMR"), its DigestEntry lists
// their ids in covers, and a source message already placed is taken out,
// the tokens it held going back to the entries below. A message placed
// while no memory that covers it is — the memory ranked below it and did
// not fit, or is not a candidate — stays as it is: nothing changes.
//
// Visibility needs nothing of its own here: only candidates are folded,
// and candidates are records the caller may see; an extracted memory is
// as restricted as its message (extract_all.go), so whoever may not see a
// message sees neither the memory nor its sources.

// fromLine introduces the short references of the folded messages.
const fromLine = "  - from: "

// digestFold is the folding state of one digest under construction.
type digestFold struct {
	sources map[string][]string // memory id -> its source messages among the candidates, as its provenance orders them
	placed  map[string]bool     // every record placed so far
	by      map[string]string   // folded message id -> the memory it is folded under
}

// newDigestFold finds, among a digest's candidates, the extracted
// memories whose source messages are candidates too. It returns nil (a
// fold that does nothing) when there are none.
func newDigestFold(hits []mnemo.ScoredRecord) *digestFold {
	var msgs map[string]bool
	for _, h := range hits {
		if r := h.Record; r.Thread != "" && r.Kind != mnemo.KindCore {
			if msgs == nil {
				msgs = map[string]bool{}
			}
			msgs[r.ID] = true
		}
	}
	if msgs == nil {
		return nil
	}
	var f *digestFold
	for _, h := range hits {
		r := h.Record
		if r.Source != mnemo.SourceExtracted || r.Thread != "" || r.Kind == mnemo.KindCore {
			continue
		}
		var src []string
		for _, id := range mnemo.MissedIDs(r.Provenance) {
			if msgs[id] && !slices.Contains(src, id) {
				src = append(src, id)
			}
		}
		if len(src) == 0 {
			continue
		}
		if f == nil {
			f = &digestFold{sources: map[string][]string{}, placed: map[string]bool{}, by: map[string]string{}}
		}
		f.sources[r.ID] = src
	}
	return f
}

// covered reports whether h is a message folded under a placed memory:
// it is not placed again (nor counted as left out).
func (f *digestFold) covered(h mnemo.ScoredRecord) bool {
	return f != nil && f.by[h.ID] != ""
}

// replaces reports whether h is a memory with a source message already
// placed: it takes that message's place, so it is no near-duplicate to
// be dropped for resembling it.
func (f *digestFold) replaces(h mnemo.ScoredRecord) bool {
	if f == nil {
		return false
	}
	for _, id := range f.sources[h.ID] {
		if f.placed[id] {
			return true
		}
	}
	return false
}

// foldEntry returns the body of h's digest entry and its tokens, and the
// tokens that placing h would give back: those of its source messages
// already placed (prefix and body), and the headers of the sections they
// would leave empty, but sec, h's own. The body of an entry that folds
// nothing is "" and its tokens a bound (entryTokensBound): the caller
// renders and counts it exactly only if it places it, since most
// candidates of a full digest are left out.
func (s *Service) foldEntry(f *digestFold, h mnemo.ScoredRecord, sec string, sections map[string][]placed) (string, int, int) {
	r := h.Record
	var src []string
	if f != nil {
		src = f.sources[r.ID]
	}
	if len(src) == 0 {
		return "", s.entryTokensBound(r), 0
	}
	body := entryBody(r) + fromLine + joinRefs(src) + "\n"
	refund := 0
	for title, ps := range sections {
		kept := 0
		for _, p := range ps {
			if slices.Contains(src, p.hit.ID) {
				refund += s.countCached(p.prefix) + p.tokens
			} else {
				kept++
			}
		}
		if kept == 0 && len(ps) > 0 && title != sec {
			refund += s.countCached(title)
		}
	}
	return body, s.count(body), refund
}

// place records h as placed; when h is a memory, its source messages are
// folded under it: taken out of the sections if placed (a section left
// empty is closed) and never placed later.
func (f *digestFold) place(h mnemo.ScoredRecord, sections map[string][]placed, opened map[string]bool) {
	if f == nil {
		return
	}
	f.placed[h.ID] = true
	src := f.sources[h.ID]
	if len(src) == 0 {
		return
	}
	for _, id := range src {
		if f.by[id] == "" {
			f.by[id] = h.ID
		}
	}
	for title, ps := range sections {
		out := ps[:0]
		for _, p := range ps {
			if !slices.Contains(src, p.hit.ID) {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			delete(sections, title)
			opened[title] = false
		} else {
			sections[title] = out
		}
	}
}

// annotate sets the covers list of each placed memory's entry: the ids of
// the messages folded under it.
func (f *digestFold) annotate(entries []mnemo.DigestEntry) {
	if f == nil {
		return
	}
	for i := range entries {
		if src := f.sources[entries[i].ID]; len(src) > 0 && f.placed[entries[i].ID] {
			entries[i].Covers = src
		}
	}
}
