package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// consolidateGroup is what two records must share to be merged, as on
// write (mergeDuplicate): layer, kind, access level and thread.
type consolidateGroup struct {
	layer  mnemo.Layer
	kind   mnemo.Kind
	level  int
	thread string
}

// Consolidate merges the near-duplicates of a namespace that came in
// without the write path's deduplication (an import, --no-dedup) by the
// write path's rules: same layer, kind, access level and thread, and
// IsDuplicate on their keywords. Of two duplicates the older is kept; it
// takes the highest confidence, importance and criticality, the text of the
// more confident one, the freshest source and the union of provenance and
// tags (mergeDuplicate). The other is forgotten with the audit action
// "consolidate" and can be restored. Core records are never touched; the
// caller sees, and merges, only what its clearance allows. A second run
// changes nothing. dryRun lists the pairs without changing anything.
func (s *Service) Consolidate(ctx context.Context, dryRun bool) (mnemo.ConsolidateResult, error) {
	res := mnemo.ConsolidateResult{Pairs: []mnemo.ConsolidatePair{}, DryRun: dryRun}
	c, sc, err := admin(ctx, "consolidation")
	if err != nil {
		return res, err
	}
	live, err := s.listAll(ctx, sc, mnemo.ListOptions{})
	if err != nil {
		return res, err
	}
	groups := map[consolidateGroup][]*mnemo.Record{}
	var order []consolidateGroup
	for _, r := range live {
		res.Checked++
		if r.DeletedAt != nil || r.Kind == mnemo.KindCore {
			continue
		}
		g := consolidateGroup{r.Layer, r.Kind, r.AccessLevel, r.Thread}
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	var plans []*mergeNode
	for _, g := range order {
		plans = append(plans, planMerges(groups[g])...)
	}
	for _, root := range plans {
		for _, l := range root.losers() {
			res.Pairs = append(res.Pairs, mnemo.ConsolidatePair{Kept: root.rec.ID, Merged: l.rec.ID})
		}
	}
	if dryRun || len(plans) == 0 {
		return res, nil
	}
	res.Pairs = res.Pairs[:0]
	for _, root := range plans {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		done, err := s.applyMerge(ctx, c, sc, root)
		for _, id := range done {
			res.Pairs = append(res.Pairs, mnemo.ConsolidatePair{Kept: root.rec.ID, Merged: id})
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// mergeNode is a record of a consolidation plan and the records merged
// into it, in the order they were merged.
type mergeNode struct {
	rec    *mnemo.Record // as listed
	view   *mnemo.Record // with its merged records folded in (planning only)
	kw     map[string]struct{}
	merged []*mergeNode
}

// losers lists the records merged, directly or not, into n.
func (n *mergeNode) losers() []*mergeNode {
	var out []*mergeNode
	for _, m := range n.merged {
		out = append(out, m)
		out = append(out, m.losers()...)
	}
	return out
}

// planMerges finds the duplicates among the records of one group. Records
// are placed oldest first; one that duplicates a placed record is merged
// with it (the older kept). A kept record whose text changed with the merge
// is placed again, so that at the end no two kept records are duplicates:
// a second pass finds nothing. It returns the kept records that absorbed
// others.
func planMerges(recs []*mnemo.Record) []*mergeNode {
	slices.SortStableFunc(recs, func(a, b *mnemo.Record) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	queue := make([]*mergeNode, len(recs))
	for i, r := range recs {
		v := *r
		queue[i] = &mergeNode{rec: r, view: &v, kw: keywords(r.Text)}
	}
	placed := map[*mergeNode]bool{} // pairwise not duplicates
	nodes := slices.Clone(queue)
	// Candidates are found by prefix filtering: two keyword sets with
	// Jaccard >= dupJaccard share a word among the rarest
	// len - ceil(dupJaccard*len) + 1 words of each, so a record is indexed,
	// and looks others up, by those words only.
	freq := map[string]int{}
	for _, n := range queue {
		for w := range n.kw {
			freq[w]++
		}
	}
	prefix := func(kw map[string]struct{}) []string {
		if len(kw) == 0 {
			return nil
		}
		ws := make([]string, 0, len(kw))
		for w := range kw {
			ws = append(ws, w)
		}
		slices.SortFunc(ws, func(a, b string) int {
			if freq[a] != freq[b] {
				return freq[a] - freq[b]
			}
			return strings.Compare(a, b)
		})
		return ws[:len(ws)-int(math.Ceil(dupJaccard*float64(len(ws))-1e-9))+1]
	}
	index := map[string][]*mergeNode{}
	older := func(a, b *mergeNode) bool {
		if c := a.rec.CreatedAt.Compare(b.rec.CreatedAt); c != 0 {
			return c < 0
		}
		return a.rec.ID < b.rec.ID
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		var match *mergeNode
		seen := map[*mergeNode]bool{}
		xp := prefix(x.kw)
		for _, w := range xp {
			for _, p := range index[w] {
				if seen[p] || !placed[p] {
					continue
				}
				seen[p] = true
				if IsDuplicate(x.kw, p.kw) && (match == nil || older(p, match)) {
					match = p
				}
			}
		}
		if match == nil {
			placed[x] = true
			for _, w := range xp {
				index[w] = append(index[w], x)
			}
			continue
		}
		keep, lose := match, x
		if older(x, match) {
			keep, lose = x, match
		}
		delete(placed, match)
		before := keep.view.Text
		foldRecord(keep.view, lose.view)
		keep.merged = append(keep.merged, lose)
		if keep.view.Text != before {
			keep.kw = keywords(keep.view.Text)
		}
		// Placed again: its words may now match another kept record.
		queue = append([]*mergeNode{keep}, queue...)
	}
	var out []*mergeNode
	for _, p := range nodes {
		if placed[p] && len(p.merged) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// foldRecord merges the newer duplicate r into old by the write path's
// rules (mergeDuplicate): the text of the more confident one (of r on a
// tie), the highest confidence, importance and criticality, r's (the
// freshest) source, and the union of provenance and tags.
func foldRecord(old, r *mnemo.Record) {
	if r.Confidence > old.Confidence || (r.Confidence == old.Confidence && r.Text != old.Text) {
		old.Text = r.Text
		old.Decision, old.Correction = r.Decision, r.Correction
	}
	old.Confidence = max(old.Confidence, r.Confidence)
	old.Importance = max(old.Importance, r.Importance)
	old.Criticality = max(old.Criticality, r.Criticality)
	old.Source = r.Source
	old.Provenance = union(old.Provenance, r.Provenance)
	old.Tags = union(old.Tags, r.Tags)
}

// applyMerge carries out the plan of one kept record: every merged record
// still as it was listed is forgotten (audit action "consolidate"), then
// the kept record, read again under its thread lock, takes their fields.
// A record changed since the scan is left for the next pass, with the
// records merged into it. It returns the ids forgotten.
func (s *Service) applyMerge(ctx context.Context, c mnemo.Caller, sc mnemo.Scope, root *mergeNode) ([]string, error) {
	keep, err := s.store.Get(ctx, sc, root.rec.ID)
	if err != nil {
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
			return nil, nil
		}
		return nil, err
	}
	if keep.DeletedAt != nil || !keep.UpdatedAt.Equal(root.rec.UpdatedAt) {
		return nil, nil
	}
	var done []string
	// forget forgets the records merged into n and hands each, with its
	// own merged records folded in, to into.
	var forget func(n *mergeNode, into func(*mnemo.Record)) error
	forget = func(n *mergeNode, into func(*mnemo.Record)) error {
		for _, m := range n.merged {
			got, err := s.softDelete(ctx, sc, m.rec.ID, "consolidate", c.Name, func(cur *mnemo.Record) bool {
				return cur.DeletedAt != nil || !cur.UpdatedAt.Equal(m.rec.UpdatedAt)
			})
			if mnemo.ErrorCode(err) == mnemo.ENOTFOUND || err == nil && got == nil {
				continue
			}
			if err != nil {
				return err
			}
			done = append(done, m.rec.ID)
			v := *m.rec
			if err := forget(m, func(r *mnemo.Record) { foldRecord(&v, r) }); err != nil {
				return err
			}
			into(&v)
		}
		return nil
	}
	var views []*mnemo.Record
	err = forget(root, func(r *mnemo.Record) { views = append(views, r) })
	if len(views) > 0 {
		if serr := s.storeMerged(ctx, c, sc, root.rec.ID, views); err == nil {
			err = serr
		}
	}
	return done, err
}

// storeMerged folds the forgotten records views into the kept record id and
// writes it (audit action "consolidate"), re-counting and re-embedding it
// when its text changed.
func (s *Service) storeMerged(ctx context.Context, c mnemo.Caller, sc mnemo.Scope, id string, views []*mnemo.Record) error {
	r, unlock, err := s.getLocked(ctx, sc, id, "")
	if err != nil {
		return err
	}
	defer unlock()
	before := embedText(r)
	for _, v := range views {
		foldRecord(r, v)
	}
	r.UpdatedAt = s.now().UTC()
	r.Tokens = s.count(entryBody(r))
	var restamped []*mnemo.Record
	if embedText(r) != before {
		vecs, err := s.emb.Embed(ctx, []string{embedText(r)})
		if err != nil {
			return err
		}
		r.Embedding = vecs[0]
		if restamped, err = s.threadContext(ctx, []*mnemo.Record{r}); err != nil {
			return err
		}
	}
	if err := s.store.Update(ctx, r, "consolidate", c.Name); err != nil {
		return err
	}
	return s.storeVectors(ctx, restamped)
}

// ConsolidateAll runs Consolidate on every namespace of the store with
// full clearance, as the server's background consolidation does, and
// returns the number of records merged away per namespace (namespaces with
// none left out). A namespace that fails does not stop the others: the
// errors, each naming its namespace, are joined.
func (s *Service) ConsolidateAll(ctx context.Context, actor string) (map[string]int, error) {
	return s.eachNamespace(ctx, actor, "consolidation", func(ctx context.Context) (int, error) {
		res, err := s.Consolidate(ctx, false)
		return len(res.Pairs), err
	})
}

// eachNamespace runs job on every namespace of the store with full
// clearance as actor (the context carries the caller and the namespace)
// and returns, per namespace, the count job returns when it is not zero.
// A namespace that fails does not stop the others: the errors, each naming
// what and its namespace, are joined; a cancelled context stops the run.
func (s *Service) eachNamespace(ctx context.Context, actor, what string, job func(context.Context) (int, error)) (map[string]int, error) {
	nss, err := s.store.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var errs []error
	c := system(actor)
	for _, ns := range nss {
		if ctx.Err() != nil {
			return out, errors.Join(append(errs, ctx.Err())...)
		}
		n, err := job(mnemo.WithCallerIn(ctx, c, ns))
		if n > 0 {
			out[ns] = n
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s of %s: %w", what, ns, err))
		}
	}
	return out, errors.Join(errs...)
}
