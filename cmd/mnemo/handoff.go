package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

func cmdHandoff(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("handoff", flag.ContinueOnError)
	from := fs.String("from", "", `the outgoing operator: only corrections with provenance "operator:NAME" (default everyone's)`)
	since := fs.String("since", "", "start of the shift or period (RFC 3339 or YYYY-MM-DD; default 7 days ago)")
	budget := fs.Int("budget", mnemo.DefaultHandoffBudget, "token budget of the Markdown")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("handoff takes no arguments")
	}
	req := mnemo.HandoffRequest{From: *from, Budget: *budget}
	if *since != "" {
		if req.Since, err = parseTime(*since); err != nil {
			return err
		}
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	h, err := b.Handoff(ctx, req)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(h)
	}
	fmt.Fprint(a.stdout, a.shown(h.Markdown))
	return nil
}
