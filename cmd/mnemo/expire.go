package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

// cmdExpire archives the namespace's records of low importance that nobody
// read or changed for a long time.
func cmdExpire(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("expire", flag.ContinueOnError)
	importance := fs.Float64("importance", mnemo.DefaultExpireImportance, "archive records of importance below this")
	idle := fs.String("idle", "120d", "that were neither read nor changed for this long (days, or a duration)")
	dry := fs.Bool("dry-run", false, "list what would be archived, change nothing")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("expire takes no arguments")
	}
	d, err := parseDays(*idle)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Expire(ctx, mnemo.ExpireOptions{MaxImportance: *importance, Idle: d, DryRun: *dry})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	verb := "archived"
	if res.DryRun {
		verb = "would archive"
	}
	fmt.Fprintf(a.stdout, "%s %d of %d records in %s (restore brings one back)\n", verb, len(res.Archived), res.Checked, a.ns())
	for _, id := range res.Archived {
		fmt.Fprintln(a.stdout, id)
	}
	return nil
}
