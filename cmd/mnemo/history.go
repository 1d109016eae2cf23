package main

import (
	"context"
	"fmt"
)

func cmdHistory(ctx context.Context, a *app, args []string) error {
	id, err := a.oneID("history", args)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	revs, err := b.History(ctx, id)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(revs)
	}
	for _, r := range revs {
		actor := r.Actor
		if actor == "" {
			actor = "-"
		}
		text := "(redacted: above your clearance)"
		if r.Record != nil {
			text = a.shown(oneLine(r.Record.Text, 80))
		}
		fmt.Fprintf(a.stdout, "%s  %-9s %-6s %s\n", r.At.Format("2006-01-02T15:04:05Z"), r.Action, a.shown(actor), text)
	}
	return nil
}
