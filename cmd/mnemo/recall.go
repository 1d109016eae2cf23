package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

func cmdRecall(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	k := fs.Int("k", 10, "number of hits")
	var ff filterFlags
	ff.register(fs)
	preset := fs.String("preset", "", "scoring preset: default, aura or alma")
	intent := fs.String("intent", "", "override the intent: general, recent, rules, howto, why")
	minRel := minRelevanceFlag(fs)
	ctx, b, f, pos, err := a.filtered(ctx, fs, &ff, args, 1, "want exactly one QUERY argument")
	if err != nil {
		return err
	}
	res, err := b.Recall(ctx, mnemo.RecallRequest{Query: pos[0], K: *k, Filter: f, Preset: *preset, Intent: *intent, MinRelevance: *minRel})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.stdout, "intent %s, preset %s, weights %s\n", res.Intent, res.Preset, formatFactors(res.Weights))
	if res.Triage != nil {
		fmt.Fprintf(a.stdout, "triage: alpha %.3f (%.0f events/min over capacity %.0f)\n", res.Triage.Alpha, res.Triage.Rate, res.Triage.Limit)
	}
	for i, h := range res.Hits {
		fmt.Fprintf(a.stdout, "%2d. %.4f  %s  %s/%s  %s\n      %s\n", i+1, h.Score, h.ID, h.Layer, h.Kind, a.shown(oneLine(h.Text, 100)), formatFactors(h.Factors))
		if w := h.Why; w != nil {
			fmt.Fprintf(a.stdout, "      why: %s\n", a.shown(formatWhy(w)))
		}
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(a.stdout, "nothing in memory is relevant to this query")
	}
	return nil
}

// formatWhy says in one line why a hit passed the relevance floor.
func formatWhy(w *mnemo.Why) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %.2f (floor %.2f)", w.Evidence, w.Relevance, w.Floor)
	if len(w.Matched) > 0 {
		fmt.Fprintf(&b, "; matched %s", strings.Join(w.Matched, ", "))
	}
	if len(w.Expanded) > 0 {
		fmt.Fprintf(&b, "; related %s", strings.Join(w.Expanded, ", "))
	}
	if w.SemanticStrength > 0 {
		fmt.Fprintf(&b, "; semantic %.2f over null %.2f", w.Semantic, w.SemanticNull)
	}
	if w.Learned > 0 {
		fmt.Fprintf(&b, "; learned %.2f over null %.2f", w.Learned, w.LearnedNull)
	}
	if w.Interval != "" {
		fmt.Fprintf(&b, "; time %s", w.Interval)
	}
	return b.String()
}
