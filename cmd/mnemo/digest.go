package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

func cmdDigest(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("digest", flag.ContinueOnError)
	scope := fs.String("scope", "all", "all, domain, workflow or practitioner")
	budget := fs.Int("budget", mnemo.DefaultTokenBudget, "token budget (exact tokens, headers included)")
	var filters stringList
	fs.Var(&filters, "filter", filterUsage)
	var kf knownFlags
	kf.register(fs)
	preset := fs.String("preset", "", "scoring preset: default, aura or alma")
	intent := fs.String("intent", "", "override the intent: general, recent, rules, howto, why")
	minRel := minRelevanceFlag(fs)
	minRatio := unitFlag(fs, "min-score-ratio", "once 8 entries are placed, the share of the best entry's score another must reach, 0..1 (default: the namespace's, 0.3; 0 fills the budget)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one TASK argument")
	}
	f, err := parseFilters(filters)
	if err != nil {
		return err
	}
	if err := kf.apply(&f); err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	a.th.Prefetch(pos[0]) // while the index loads (local only)
	d, err := b.Digest(ctx, mnemo.DigestRequest{Task: pos[0], Scope: *scope, Budget: *budget, Filter: f, Preset: *preset, Intent: *intent,
		MinRelevance: *minRel, MinScoreRatio: *minRatio})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(d)
	}
	fmt.Fprint(a.stdout, a.shown(d.Markdown))
	fmt.Fprintf(a.stderr, "digest: %d entries, %d/%d tokens, %d left out, intent %s\n", len(d.Entries), d.UsedTokens, d.Budget, d.Omitted, d.Intent)
	return nil
}
