package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/mnemo-dev/mnemo/internal/gitlog"
)

// cmdGit imports commits as records through the idempotent import path, so
// running it again adds only the commits that are new.
func cmdGit(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("git", flag.ContinueOnError)
	repo := fs.String("repo", ".", "the repository")
	rev := fs.String("rev", "HEAD", "revision or range to read, e.g. main or v1.2..HEAD")
	since := fs.String("since", "", "only commits authored at or after this time (RFC 3339 or YYYY-MM-DD)")
	max := fs.Int("max", 1000, "at most this many commits, newest first")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("git takes no arguments (use --repo)")
	}
	if *max <= 0 || *max > 1_000_000 {
		return usagef("--max must be in 1..1000000")
	}
	opt := gitlog.Options{Rev: *rev, Max: *max}
	if *since != "" {
		if opt.Since, err = parseTime(*since); err != nil {
			return err
		}
	}
	commits, err := gitlog.Read(ctx, *repo, opt)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(*repo)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, c := range commits {
		if err := enc.Encode(c.Record(a.ns(), abs)); err != nil {
			return err
		}
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Import(ctx, &buf, nil)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]int{"commits": len(commits), "imported": res.Imported, "present": res.Skipped})
	}
	fmt.Fprintf(a.stdout, "read %d commits of %s: %d imported into %s, %d already present\n", len(commits), abs, res.Imported, a.ns(), res.Skipped)
	return nil
}
