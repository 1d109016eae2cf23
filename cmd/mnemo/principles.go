package main

import (
	"context"
	"flag"
	"fmt"
)

func cmdPrinciples(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("principles", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("principles takes no arguments")
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	ps, err := b.Principles(ctx)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(ps)
	}
	for _, p := range ps {
		fmt.Fprintf(a.stdout, "%s  %s  (%d decisions)\n", p.ID, a.shown(oneLine(p.Text, 100)), len(p.Decisions))
		for _, d := range p.Decisions {
			title := d.Title
			if title == "" {
				title = d.Text
			}
			status := ""
			if d.Status != "" {
				status = " [" + d.Status + "]"
			}
			fmt.Fprintf(a.stdout, "    %s  %s%s  (cites by %s)\n", d.ID, a.shown(oneLine(title, 90)), a.shown(status), d.Cites)
		}
	}
	if len(ps) == 0 {
		fmt.Fprintln(a.stdout, "no principles: remember one with --kind principle, and cite its id in a decision's principles")
	}
	return nil
}
