package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func init() {
	extraCommands["expire"] = command{summary: "archive unimportant, unused records (restorable)", run: cmdExpire}
	extraCommands["purge"] = command{summary: "delete for good the records forgotten or archived longer ago than --older-than", run: cmdPurge}
}

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

// parseDays reads a period as days ("120", "120d") or a Go duration ("36h").
func parseDays(s string) (time.Duration, error) {
	if d, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64); err == nil {
		return time.Duration(d * float64(24*time.Hour)), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	return 0, mnemo.Errorf(mnemo.EINVALID, "%q is not a number of days (120, 120d) or a duration (36h)", s)
}

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
