package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

func cmdList(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	var ff filterFlags
	ff.register(fs)
	limit := fs.Int("limit", 100, "page size")
	after := fs.String("after", "", "continue after this id (the last of the previous page)")
	all := fs.Bool("all", false, "include forgotten and superseded records")
	ctx, b, f, _, err := a.filtered(ctx, fs, &ff, args, 0, "list takes no arguments")
	if err != nil {
		return err
	}
	recs, err := b.List(ctx, mnemo.ListOptions{Filter: f, Limit: *limit, After: *after, IncludeDeleted: *all, IncludeHistory: *all})
	if err != nil {
		return err
	}
	if a.json {
		if recs == nil {
			recs = []*mnemo.Record{}
		}
		return a.printJSON(recs)
	}
	for _, r := range recs {
		mark := ""
		if r.DeletedAt != nil {
			mark = " (forgotten)"
		} else if r.SupersededBy != "" {
			mark = " (superseded)"
		}
		fmt.Fprintf(a.stdout, "%s  %-12s %-10s %s%s\n", r.ID, r.Layer, r.Kind, a.shown(oneLine(r.Text, 80)), mark)
	}
	return nil
}
