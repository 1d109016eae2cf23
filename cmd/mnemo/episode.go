package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

func init() {
	extraCommands["episode"] = command{summary: "summarise a thread (conversation) into its episode record; again to refresh it", run: cmdEpisode}
	extraCommands["threads"] = command{summary: "list the namespace's threads (conversations), most recently active first", run: cmdThreads}
}

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
