package corrections

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/access"
	"github.com/mnemo-dev/mnemo/internal/render"
)

// The practitioner layer from corrections: an operator's corrections of
// the same category in the same component, recurring, become one
// structured practitioner record — the category, the component, the
// typical fix (the correction summary said most often), the count, the
// outcomes and the period, with the corrections as sources. The raw text
// of a correction never enters it: only its structured fields and its
// one-sentence summary. The record is tagged "operator:<name>", so the tag
// filter of every surface selects one operator's patterns.

// Distillation bounds.
const (
	// MinRecurring is how many corrections of one operator, category and
	// component make a pattern.
	MinRecurring       = 3
	maxPatternSources  = 64
	maxPatternFixRunes = 300
	patternSource      = "distilled"
	patternTag         = "pattern"
	operatorPrefix     = "operator:"
)

// PatternID is the id of the practitioner pattern of an operator's
// corrections of a category in a component, in namespace ns.
func PatternID(ns, operator, category, component string) string {
	return mnemo.DerivedID(time.Time{}, "practitioner-pattern", ns, operator, category, component)
}

// patternGroup is the corrections of one operator, category and component.
type patternGroup struct {
	operator, category, component string
	recs                          []*mnemo.Record
}

// Distill writes, for every operator, category and component
// with at least MinRecurring live corrections the caller may see (the operator named by an "operator:<name>" provenance reference,
// the category by the correction's category or else its class, the
// component by the correction's or else the record's), the practitioner
// pattern record: kind preference, layer practitioner, source
// "distilled", tags "operator:<name>" and "pattern", the component, as
// restricted as its most restricted correction. A pattern written before
// is kept up to date with its corrections as long as one is left (fewer
// than MinRecurring included); one that is up to date is left as it is,
// and one that was forgotten is not written again.
// It returns the number of patterns written or updated.
func Distill(ctx context.Context, svc mnemo.Recorder, st mnemo.Store) (int, error) {
	c, sc, err := access.Writer(ctx)
	if err != nil {
		return 0, err
	}
	recs, err := access.ListAll(ctx, st, sc, mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindCorrection}}})
	if err != nil {
		return 0, err
	}
	slices.SortStableFunc(recs, func(a, b *mnemo.Record) int { return a.CreatedAt.Compare(b.CreatedAt) })
	groups := map[[3]string]*patternGroup{}
	var order [][3]string
	for _, r := range recs {
		cr := r.Correction
		if cr == nil {
			continue
		}
		category := cr.Category
		if category == "" {
			category = cr.Class
		}
		component := cr.Component
		if component == "" {
			component = r.Component
		}
		if category == "" && component == "" {
			continue
		}
		for _, p := range r.Provenance {
			op, ok := strings.CutPrefix(p, operatorPrefix)
			if !ok || strings.TrimSpace(op) == "" {
				continue
			}
			k := [3]string{op, category, component}
			if groups[k] == nil {
				groups[k] = &patternGroup{operator: op, category: category, component: component}
				order = append(order, k)
			}
			groups[k].recs = append(groups[k].recs, r)
		}
	}
	n := 0
	for _, k := range order {
		g := groups[k]
		written, err := writePattern(ctx, svc, st, c, sc.Namespace, g, len(g.recs) >= MinRecurring)
		if err != nil {
			return n, err
		}
		if written {
			n++
		}
	}
	return n, nil
}

// writePattern updates the pattern of g, or writes it when create is set,
// and reports whether it wrote.
func writePattern(ctx context.Context, svc mnemo.Recorder, st mnemo.Store, c mnemo.Caller, ns string, g *patternGroup, create bool) (bool, error) {
	fixes := map[string]int{}
	outcomes := map[string]int{}
	level := 0
	prov := []string{operatorPrefix + g.operator}
	for _, r := range g.recs {
		level = max(level, r.AccessLevel)
		if f := render.OneLine(r.Correction.Summary); f != "" {
			fixes[render.ClipRunes(f, maxPatternFixRunes)]++
		}
		if o := r.Correction.Outcome; o != "" {
			outcomes[o]++
		}
		if len(prov) < maxPatternSources {
			prov = append(prov, mnemo.MissedRef+r.ID)
		}
	}
	// The typical fix: said most often; among equals, the latest.
	fix, best := "", 0
	for i := len(g.recs) - 1; i >= 0; i-- {
		f := render.ClipRunes(render.OneLine(g.recs[i].Correction.Summary), maxPatternFixRunes)
		if f != "" && fixes[f] > best {
			fix, best = f, fixes[f]
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Operator %s corrects", render.OneLine(g.operator))
	if g.category != "" {
		fmt.Fprintf(&b, " %s", render.OneLine(g.category))
	}
	if g.component != "" {
		fmt.Fprintf(&b, " in %s", render.OneLine(g.component))
	}
	first, last := g.recs[0].CreatedAt, g.recs[len(g.recs)-1].CreatedAt
	fmt.Fprintf(&b, ": %d times, %s – %s.", len(g.recs), first.UTC().Format("2006-01-02"), last.UTC().Format("2006-01-02"))
	if fix != "" {
		fmt.Fprintf(&b, " Typical fix: %s", strings.TrimRight(fix, "."))
		if best > 1 {
			fmt.Fprintf(&b, " (%d times)", best)
		}
		b.WriteString(".")
	}
	var outs []string
	for _, o := range []string{mnemo.OutcomeAccepted, mnemo.OutcomeModified, mnemo.OutcomeRejected} {
		if outcomes[o] > 0 {
			outs = append(outs, fmt.Sprintf("%d %s", outcomes[o], o))
		}
	}
	if len(outs) > 0 {
		b.WriteString(" Outcomes: " + strings.Join(outs, ", ") + ".")
	}
	text := b.String()
	tags := []string{operatorPrefix + g.operator, patternTag}
	id := PatternID(ns, g.operator, g.category, g.component)
	old, err := st.Get(ctx, mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}, id)
	switch {
	case mnemo.ErrorCode(err) == mnemo.ENOTFOUND && !create:
		return false, nil
	case mnemo.ErrorCode(err) == mnemo.ENOTFOUND:
		imp, conf := 0.6, 0.5
		_, err := svc.Remember(mnemo.WithCallerIn(ctx, c, ns), []mnemo.NewRecord{{ID: id, Layer: mnemo.LayerPractitioner, Kind: mnemo.KindPreference, Text: text,
			Component: g.component, Tags: tags, Source: patternSource, Provenance: prov, Importance: &imp, Confidence: &conf,
			AccessLevel: level, At: &last}}, mnemo.WriteOptions{})
		return err == nil, err
	case err != nil:
		return false, err
	case old.DeletedAt != nil:
		return false, nil // forgotten: not distilled again
	case old.Text == text && slices.Equal(old.Provenance, prov) && old.AccessLevel == level:
		return false, nil // up to date
	}
	_, err = svc.Update(mnemo.WithCallerIn(ctx, c, ns), id, mnemo.RecordPatch{Text: &text, Provenance: &prov, AccessLevel: &level})
	return err == nil, err
}

// DistillAll distils the corrections of every namespace, for serve's
// background jobs; a namespace that fails does not stop the others.
func DistillAll(ctx context.Context, svc mnemo.Recorder, st mnemo.Store) (map[string]int, error) {
	nss, err := st.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	c := access.System("practitioner")
	out := map[string]int{}
	var errs []error
	for _, ns := range nss {
		if ctx.Err() != nil {
			return out, errors.Join(append(errs, ctx.Err())...)
		}
		n, err := Distill(mnemo.WithCallerIn(ctx, c, ns), svc, st)
		if err != nil {
			errs = append(errs, fmt.Errorf("practitioner patterns of %s: %w", ns, err))
		}
		if n > 0 {
			out[ns] = n
		}
	}
	return out, errors.Join(errs...)
}
