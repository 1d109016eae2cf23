package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// cmdCorrections prints the correction report of the namespace, or with
// --triples writes the (query, retrieved, missed) triples as JSONL.
func cmdCorrections(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("corrections", flag.ContinueOnError)
	since := fs.String("since", "", "start of the period (RFC 3339 or YYYY-MM-DD; default 90 days before --until)")
	until := fs.String("until", "", "end of the period, exclusive (default now)")
	by := fs.String("by", mnemo.BucketWeek, "period length: day, week or month")
	triples := fs.Bool("triples", false, "write the (query, retrieved, missed) triples of missing-context corrections as JSONL")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("corrections takes no arguments")
	}
	req, err := correctionWindow(*since, *until)
	if err != nil {
		return err
	}
	req.Bucket = *by
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	if *triples {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		_, err := b.CorrectionTriples(ctx, req, func(t mnemo.CorrectionTriple) error { return enc.Encode(t) })
		return err
	}
	rep, err := b.Corrections(ctx, req)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(rep)
	}
	t := rep.Totals
	fmt.Fprintf(a.stdout, "corrections in %s, %s to %s, by %s\n", rep.Namespace,
		rep.Since.Format(time.RFC3339), rep.Until.Format(time.RFC3339), rep.Bucket)
	fmt.Fprintf(a.stdout, "%d retrievals, %d corrections, %d caused by missing context (%.1f%% of corrections, %.2f per 100 retrievals), %d linked to their retrieval\n\n",
		t.Retrievals, t.Corrections, t.MissingContext, 100*t.MissingShare, t.MissingPer100, t.Linked)
	fmt.Fprintf(a.stdout, "%-10s %10s %11s %8s %7s %9s\n", "period", "retrievals", "corrections", "missing", "share", "per 100")
	for _, p := range rep.Periods {
		fmt.Fprintf(a.stdout, "%-10s %10d %11d %8d %6.1f%% %9.2f\n", p.Start.Format(time.DateOnly),
			p.Retrievals, p.Corrections, p.MissingContext, 100*p.MissingShare, p.MissingPer100)
	}
	for _, g := range []struct {
		name string
		m    map[string]mnemo.CorrectionCounts
	}{{"category", rep.ByCategory}, {"component", rep.ByComponent}} {
		if len(g.m) == 0 {
			continue
		}
		fmt.Fprintf(a.stdout, "\n%-20s %11s %8s %7s\n", g.name, "corrections", "missing", "share")
		for _, k := range slices.Sorted(maps.Keys(g.m)) {
			c, name := g.m[k], k
			if name == "" {
				name = "(none)"
			}
			fmt.Fprintf(a.stdout, "%-20s %11d %8d %6.1f%%\n", oneLine(name, 20), c.Corrections, c.MissingContext, 100*c.MissingShare)
		}
	}
	return nil
}

// correctionWindow reads --since and --until (either may be empty) into a
// request.
func correctionWindow(since, until string) (mnemo.CorrectionRequest, error) {
	var req mnemo.CorrectionRequest
	for _, v := range []struct {
		s   string
		dst *time.Time
	}{{since, &req.Since}, {until, &req.Until}} {
		if v.s == "" {
			continue
		}
		t, err := parseTime(v.s)
		if err != nil {
			return req, err
		}
		*v.dst = t
	}
	return req, nil
}
