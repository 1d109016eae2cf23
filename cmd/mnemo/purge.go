package main

import (
	"context"
	"flag"
	"fmt"
)

// cmdPurge hard-deletes the namespace's records forgotten or archived more
// than --older-than ago.
func cmdPurge(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("purge", flag.ContinueOnError)
	older := fs.String("older-than", "", "retention: purge records forgotten or archived longer ago than this (days, or a duration); required")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("purge takes no arguments")
	}
	if *older == "" {
		return usagef("purge needs --older-than (e.g. 365d): purged records cannot be restored")
	}
	d, err := parseDays(*older)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	n, err := b.Purge(ctx, d)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]int{"purged": n})
	}
	fmt.Fprintf(a.stdout, "purged %d records from %s\n", n, a.ns())
	return nil
}
