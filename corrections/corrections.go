// Package corrections reports the correction signal of a namespace — per
// period, category and component: the retrievals logged, the corrections
// recorded, how many missing context caused and how many name a logged
// retrieval — exports the (query, retrieved, missed) triples tuning learns
// from, and distils an operator's recurring corrections into practitioner
// patterns. The engine answers mnemo.Tuner's Corrections and
// CorrectionTriples with it.
package corrections

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/access"
)

// Source is what a report reads: the store (records and the retrieval
// log) and the clock that ends a period left open.
type Source struct {
	Store mnemo.Store
	Now   func() time.Time
}

// Lookback is how long before a report's start the retrieval log
// is read to find the retrievals that corrections in the report followed.
const Lookback = 7 * 24 * time.Hour

// defaultCorrectionSpan is a report's period when Since is not given.
const defaultCorrectionSpan = 90 * 24 * time.Hour

// maxCorrectionPeriods bounds the number of buckets of one report.
const maxCorrectionPeriods = 1000

// Window validates a request and fills its defaults: a week's buckets, a
// period ending now (included) and starting 90 days before its end.
func Window(req mnemo.CorrectionRequest, now time.Time) (mnemo.CorrectionRequest, error) {
	switch req.Bucket {
	case "":
		req.Bucket = mnemo.BucketWeek
	case mnemo.BucketDay, mnemo.BucketWeek, mnemo.BucketMonth:
	default:
		return req, mnemo.Errorf(mnemo.EINVALID, "unknown bucket %q (want day, week or month)", req.Bucket)
	}
	if req.Until.IsZero() {
		req.Until = now.Add(time.Nanosecond) // up to and including now
	}
	if req.Since.IsZero() {
		req.Since = req.Until.Add(-defaultCorrectionSpan)
	}
	req.Since, req.Until = req.Since.UTC(), req.Until.UTC()
	if !req.Since.Before(req.Until) {
		return req, mnemo.Errorf(mnemo.EINVALID, "since %s is not before until %s",
			req.Since.Format(time.RFC3339), req.Until.Format(time.RFC3339))
	}
	n := 0
	for b := mnemo.BucketStart(req.Since, req.Bucket); b.Before(req.Until); b = mnemo.NextBucket(b, req.Bucket) {
		if n++; n > maxCorrectionPeriods {
			return req, mnemo.Errorf(mnemo.EINVALID, "more than %d %ss between since and until: choose a larger bucket or a shorter period",
				maxCorrectionPeriods, req.Bucket)
		}
	}
	return req, nil
}

// List returns the correction records visible to sc created in
// [since, until), forgotten ones excluded, superseded ones included.
func List(ctx context.Context, st mnemo.Store, sc mnemo.Scope, since, until time.Time) ([]*mnemo.Record, error) {
	return access.ListAll(ctx, st, sc, mnemo.ListOptions{IncludeHistory: true,
		Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindCorrection}, Since: &since, Until: &until}})
}

// Report reports the correction signal of a namespace: per period,
// the retrievals logged, the corrections recorded, how many missing context
// caused and how many name a retrieval found in the log, with the share of
// missing-context corrections and their rate per 100 retrievals; and the
// same counts by correction category and component. Errors: EINVALID for a
// bad bucket or period.
func Report(ctx context.Context, s Source, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error) {
	_, sc, err := access.Reader(ctx)
	if err != nil {
		return nil, err
	}
	req, err = Window(req, s.Now())
	if err != nil {
		return nil, err
	}
	recs, err := List(ctx, s.Store, sc, req.Since, req.Until)
	if err != nil {
		return nil, err
	}
	rep := &mnemo.CorrectionReport{Namespace: sc.Namespace, Since: req.Since, Until: req.Until, Bucket: req.Bucket,
		ByCategory: map[string]mnemo.CorrectionCounts{}, ByComponent: map[string]mnemo.CorrectionCounts{}}
	index := map[time.Time]int{}
	for b := mnemo.BucketStart(req.Since, req.Bucket); b.Before(req.Until); b = mnemo.NextBucket(b, req.Bucket) {
		index[b] = len(rep.Periods)
		rep.Periods = append(rep.Periods, mnemo.CorrectionPeriod{Start: b})
	}
	period := func(t time.Time) *mnemo.CorrectionCounts {
		return &rep.Periods[index[mnemo.BucketStart(t, req.Bucket)]].CorrectionCounts
	}
	wanted := map[string]bool{}
	for _, r := range recs {
		if r.Correction != nil && r.Correction.RetrievalID != "" {
			wanted[r.Correction.RetrievalID] = false
		}
	}
	err = s.Store.EachRetrieval(ctx, sc.Namespace, req.Since.Add(-Lookback), req.Until, func(l mnemo.RetrievalLog) error {
		if _, ok := wanted[l.ID]; ok {
			wanted[l.ID] = true
		}
		if !l.At.Before(req.Since) {
			period(l.At).Retrievals++
			rep.Totals.Retrievals++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		cor := r.Correction
		if cor == nil {
			cor = &mnemo.Correction{}
		}
		component := cor.Component
		if component == "" {
			component = r.Component
		}
		cat, comp := rep.ByCategory[cor.Category], rep.ByComponent[component]
		for _, cc := range []*mnemo.CorrectionCounts{period(r.CreatedAt), &rep.Totals, &cat, &comp} {
			cc.Corrections++
			if cor.MissingContext {
				cc.MissingContext++
			}
			if wanted[cor.RetrievalID] {
				cc.Linked++
			}
		}
		rep.ByCategory[cor.Category], rep.ByComponent[component] = cat, comp
	}
	rep.Totals.Finish()
	for i := range rep.Periods {
		rep.Periods[i].Finish()
	}
	for k, v := range rep.ByCategory {
		v.Finish()
		rep.ByCategory[k] = v
	}
	for k, v := range rep.ByComponent {
		v.Finish()
		rep.ByComponent[k] = v
	}
	return rep, nil
}

// Triples calls fn, oldest first, with a (query, retrieved,
// missed) triple for every missing-context correction created in the
// request's period that names a retrieval found in the log (up to
// Lookback before the period). Retrieved ids are limited to the
// records the caller may see. It returns the number of triples.
func Triples(ctx context.Context, s Source, req mnemo.CorrectionRequest, fn func(mnemo.CorrectionTriple) error) (int, error) {
	_, sc, err := access.Admin(ctx, "exporting correction triples")
	if err != nil {
		return 0, err
	}
	req, err = Window(req, s.Now())
	if err != nil {
		return 0, err
	}
	recs, err := List(ctx, s.Store, sc, req.Since, req.Until)
	if err != nil {
		return 0, err
	}
	wanted := map[string]*mnemo.RetrievalLog{}
	for _, r := range recs {
		if r.Correction != nil && r.Correction.MissingContext && r.Correction.RetrievalID != "" {
			wanted[r.Correction.RetrievalID] = nil
		}
	}
	if len(wanted) == 0 {
		return 0, nil
	}
	err = s.Store.EachRetrieval(ctx, sc.Namespace, req.Since.Add(-Lookback), req.Until, func(l mnemo.RetrievalLog) error {
		if _, ok := wanted[l.ID]; ok {
			wanted[l.ID] = &l
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	slices.SortFunc(recs, func(a, b *mnemo.Record) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	n := 0
	for _, r := range recs {
		cor := r.Correction
		if cor == nil || !cor.MissingContext {
			continue
		}
		l := wanted[cor.RetrievalID]
		if l == nil {
			continue
		}
		visible, err := s.Store.GetMany(ctx, sc, l.IDs)
		if err != nil {
			return n, err
		}
		seen := make(map[string]bool, len(visible))
		for _, v := range visible {
			seen[v.ID] = true
		}
		retrieved := []string{}
		for _, id := range l.IDs {
			if seen[id] {
				retrieved = append(retrieved, id)
			}
		}
		t := mnemo.CorrectionTriple{CorrectionID: r.ID, At: r.CreatedAt, RetrievalID: l.ID, Operation: l.Operation,
			Query: l.Query, Retrieved: retrieved, Missed: mnemo.MissedIDs(r.Provenance),
			Category: cor.Category, Component: cor.Component, Summary: cor.Summary}
		if err := fn(t); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
