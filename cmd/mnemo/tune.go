package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/mnemo-dev/mnemo"
)

func formatWeights(w mnemo.Weights) string {
	return fmt.Sprintf("semantic=%.2f keyword=%.2f recency=%.2f importance=%.2f confidence=%.2f frequency=%.2f",
		w.Semantic, w.Keyword, w.Recency, w.Importance, w.Confidence, w.Frequency)
}

// cmdTune: `tune [--dry-run] [--since T] [--until T]`, `tune history`,
// `tune rollback VERSION`.
func cmdTune(ctx context.Context, a *app, args []string) error {
	if len(args) > 0 && (args[0] == "history" || args[0] == "rollback") {
		return cmdTuneHistory(ctx, a, args[0], args[1:])
	}
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	since := fs.String("since", "", "use correction triples from this time (RFC 3339 or YYYY-MM-DD; default 90 days ago)")
	until := fs.String("until", "", "to this time (default now)")
	dry := fs.Bool("dry-run", false, "search and report, change nothing")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("tune takes no arguments (or: tune history, tune rollback VERSION)")
	}
	req, err := correctionWindow(*since, *until)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Tune(ctx, req, *dry)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	switch {
	case res.Accepted && res.DryRun:
		fmt.Fprintf(a.stdout, "would tune %s: %s\n", a.ns(), res.Reason)
	case res.Accepted:
		fmt.Fprintf(a.stdout, "tuned %s, version %d: %s\n", a.ns(), res.Version, res.Reason)
	default:
		fmt.Fprintf(a.stdout, "not tuned: %s\n", res.Reason)
	}
	fmt.Fprintf(a.stdout, "from %s\n", formatWeights(res.From))
	if res.To != res.From {
		fmt.Fprintf(a.stdout, "to   %s\n", formatWeights(res.To))
	}
	fmt.Fprintf(a.stdout, "%d correction triples\n", res.Triples)
	return nil
}

func cmdTuneHistory(ctx context.Context, a *app, sub string, args []string) error {
	fs := flag.NewFlagSet("tune "+sub, flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	a.readOnly = sub == "history"
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	if sub == "rollback" {
		if len(pos) != 1 {
			return usagef("tune rollback takes one version (0: the preset's own weights)")
		}
		v, err := strconv.Atoi(pos[0])
		if err != nil || v < 0 {
			return usagef("version %q is not a number >= 0", pos[0])
		}
		t, err := b.Rollback(ctx, v)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(t)
		}
		fmt.Fprintf(a.stdout, "tuning of %s: version %d is active\n", a.ns(), t.Active)
		return nil
	}
	if len(pos) != 0 {
		return usagef("tune history takes no arguments")
	}
	t, err := b.Tuning(ctx)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(t)
	}
	if len(t.Versions) == 0 {
		fmt.Fprintf(a.stdout, "%s has never been tuned: the preset's own weights are in force\n", a.ns())
		return nil
	}
	for _, v := range t.Versions {
		mark := " "
		if v.Version == t.Active {
			mark = "*"
		}
		fmt.Fprintf(a.stdout, "%s v%d  %s  recall %.3f -> %.3f (held out %.3f -> %.3f), %d triples\n     %s\n",
			mark, v.Version, v.At.Format("2006-01-02 15:04"), v.Before, v.After, v.HeldOut[0], v.HeldOut[1], v.Triples, formatWeights(v.Weights))
	}
	if t.Active == 0 {
		fmt.Fprintln(a.stdout, "* v0  the preset's own weights")
	}
	return nil
}
