package main

import (
	"context"
	"flag"
	"fmt"
)

// cmdConsolidate merges the namespace's near-duplicates (written by an
// import or with --no-dedup) by the write path's rules, reversibly.
func cmdConsolidate(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("consolidate", flag.ContinueOnError)
	dry := fs.Bool("dry-run", false, "list the pairs that would be merged, change nothing")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("consolidate takes no arguments")
	}
	if a.serverURL() != "" {
		return usagef("consolidate opens the database file: drop --server (a server consolidates in the background, serve --consolidate-every)")
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Consolidate(ctx, *dry)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	verb := "merged"
	if res.DryRun {
		verb = "would merge"
	}
	fmt.Fprintf(a.stdout, "%s %d of %d records in %s into a near-duplicate (restore brings one back)\n", verb, len(res.Pairs), res.Checked, a.ns())
	for _, p := range res.Pairs {
		fmt.Fprintf(a.stdout, "%s -> %s\n", p.Merged, p.Kept)
	}
	return nil
}
