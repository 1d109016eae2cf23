package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mnemo-dev/mnemo/internal/safefile"
)

func cmdImport(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one FILE argument (- for stdin)")
	}
	var r io.Reader = a.stdin
	if pos[0] != "-" {
		f, err := safefile.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Import(ctx, r, progress(a.stderr, "written"))
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.stdout, "imported %d records into %s (%d already present)\n", res.Imported, a.ns(), res.Skipped)
	return nil
}
