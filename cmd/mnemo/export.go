package main

import (
	"context"
	"flag"
	"fmt"
	"os"
)

func cmdExport(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("want at most one FILE argument")
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	w := a.stdout
	var f *os.File
	if len(pos) == 1 && pos[0] != "-" {
		tmp := pos[0] + ".tmp"
		if f, err = os.Create(tmp); err != nil {
			return err
		}
		defer os.Remove(tmp)
		w = f
	}
	n, err := b.Export(ctx, w)
	if err != nil {
		if f != nil {
			f.Close()
		}
		return err
	}
	if f != nil {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Rename(pos[0]+".tmp", pos[0]); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stderr, "exported %d records from namespace %s\n", n, a.ns())
	return nil
}
