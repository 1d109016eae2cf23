package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
)

func cmdReembed(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("reembed", flag.ContinueOnError)
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	if a.serverURL() != "" {
		return usagef("reembed works on the database file: run it where the server runs, without --server")
	}
	svc, err := a.openService(ctx, true)
	if err != nil {
		return err
	}
	n, err := svc.Reembed(ctx, progress(a.stderr, "re-embedded"))
	if err != nil {
		return err
	}
	info := svc.Embedder().Info()
	fmt.Fprintf(a.stdout, "re-embedded %d records with %s (dim %d)\n", n, info.Name, info.Dim)
	learnt, err := svc.RefreshSemantic(ctx, true)
	if err != nil {
		return err
	}
	for _, ns := range slices.Sorted(maps.Keys(learnt)) {
		if learnt[ns] == 0 {
			fmt.Fprintf(a.stdout, "semantic model of %s: too few records to learn from\n", ns)
		} else {
			fmt.Fprintf(a.stdout, "semantic model of %s: learnt from %d records\n", ns, learnt[ns])
		}
	}
	return nil
}
