package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

func cmdEpisode(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("episode", flag.ContinueOnError)
	budget := fs.Int("budget", mnemo.DefaultEpisodeBudget, "token budget of the summary")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("episode takes one thread name")
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Summarize(ctx, pos[0], *budget)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	verb := "updated"
	if res.Created {
		verb = "wrote"
	}
	fmt.Fprintf(a.stdout, "%s episode %s (%d sentences of %d records, %d tokens)\n%s\n", verb, res.Record.ID, res.Chosen, res.Records,
		res.Record.Tokens, a.shown(res.Record.Text))
	return nil
}
