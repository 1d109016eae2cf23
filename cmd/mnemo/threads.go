package main

import (
	"context"
	"flag"
	"fmt"
)

func cmdThreads(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("threads", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("threads takes no arguments")
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	ts, err := b.Threads(ctx)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(ts)
	}
	for _, t := range ts {
		fmt.Fprintf(a.stdout, "%s  %4d records  %s – %s\n", a.shown(t.Name), t.Records, t.First.Format("2006-01-02 15:04"), t.Last.Format("2006-01-02 15:04"))
	}
	return nil
}
