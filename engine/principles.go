package engine

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// The principle registry: records of kind principle, which decisions cite
// by id (Decision.Principles). A citation must name a live principle of
// the namespace that the writer may see and that is no more restricted
// than the decision (so that whoever reads the decision may read what it
// cites); an unknown id and one above the writer's clearance get the same
// answer, which reveals nothing.

// checkPrinciples checks the cited principles of the decisions among recs
// (a batch being written: a principle written in the same batch may be
// cited).
func (s *Service) checkPrinciples(ctx context.Context, sc mnemo.Scope, recs []*mnemo.Record) error {
	batch := map[string]*mnemo.Record{}
	for _, r := range recs {
		if r.Kind == mnemo.KindPrinciple {
			batch[r.ID] = r
		}
	}
	for i, r := range recs {
		if r.Decision == nil || len(r.Decision.Principles) == 0 {
			continue
		}
		var missing []string
		for _, id := range r.Decision.Principles {
			if batch[id] == nil {
				missing = append(missing, id)
			}
		}
		found := map[string]*mnemo.Record{}
		if len(missing) > 0 {
			got, err := s.store.GetMany(ctx, sc, missing)
			if err != nil {
				return err
			}
			for _, p := range got {
				found[p.ID] = p
			}
		}
		for _, id := range r.Decision.Principles {
			p := batch[id]
			if p == nil {
				p = found[id]
			}
			prefix := ""
			if len(recs) > 1 {
				prefix = "record " + strconv.Itoa(i+1) + ": "
			}
			if p == nil || p.Kind != mnemo.KindPrinciple || p.DeletedAt != nil {
				return mnemo.Errorf(mnemo.EINVALID, "%sdecision cites principle %s, which is not a principle of this namespace (write it first, kind principle)", prefix, id)
			}
			if p.AccessLevel > r.AccessLevel {
				return mnemo.Errorf(mnemo.EINVALID, "%sdecision cites principle %s, which is more restricted (access level %d) than the decision (%d)",
					prefix, id, p.AccessLevel, r.AccessLevel)
			}
		}
		r.Decision.Principles = dedupIDs(r.Decision.Principles)
	}
	return nil
}

func dedupIDs(ids []string) []string {
	out := ids[:0:0]
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Principles lists the live principles of the namespace the caller may
// see, each with the live decisions the caller may see that apply it —
// citing its id, or naming it in words (a free-text principle equal to
// the principle's text, case and a final period aside) — oldest first;
// the principles most applied first, then oldest first.
func (s *Service) Principles(ctx context.Context) ([]mnemo.Principle, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := s.listAll(ctx, sc, mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindPrinciple}}})
	if err != nil {
		return nil, err
	}
	ds, err := s.listAll(ctx, sc, mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindDecision}}})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(ps, byCreated)
	slices.SortStableFunc(ds, byCreated)
	out := make([]mnemo.Principle, len(ps))
	byID := make(map[string]int, len(ps))
	byText := map[string]int{}
	for i, p := range ps {
		out[i] = mnemo.Principle{ID: p.ID, Text: p.Text, Scope: p.Scope, Component: p.Component, AccessLevel: p.AccessLevel,
			Decisions: []mnemo.PrincipleDecision{}}
		byID[p.ID] = i
		if k := principleKey(p.Text); k != "" {
			if _, ok := byText[k]; !ok {
				byText[k] = i
			}
		}
	}
	for _, d := range ds {
		if d.Decision == nil {
			continue
		}
		applied := map[int]bool{}
		add := func(i int, cites string) {
			if applied[i] {
				return
			}
			applied[i] = true
			out[i].Decisions = append(out[i].Decisions, mnemo.PrincipleDecision{ID: d.ID, Title: d.Decision.Title, Text: d.Text,
				Status: d.Decision.Status, Cites: cites})
		}
		for _, id := range d.Decision.Principles {
			if i, ok := byID[id]; ok {
				add(i, "id")
			}
		}
		if i, ok := byText[principleKey(d.Decision.Principle)]; ok && d.Decision.Principle != "" {
			add(i, "text")
		}
	}
	slices.SortStableFunc(out, func(a, b mnemo.Principle) int { return cmp.Compare(len(b.Decisions), len(a.Decisions)) })
	return out, nil
}

func byCreated(a, b *mnemo.Record) int {
	if d := a.CreatedAt.Compare(b.CreatedAt); d != 0 {
		return d
	}
	return cmp.Compare(a.ID, b.ID)
}

// principleKey is the form under which a free-text principle names a
// registered one.
func principleKey(s string) string {
	return strings.ToLower(strings.TrimRight(strings.Join(strings.Fields(s), " "), "."))
}
