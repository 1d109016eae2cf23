package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

func cmdHalflife(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("halflife", flag.ContinueOnError)
	presetName := fs.String("preset", "", "preset whose half-life table applies (default: the default preset)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one SCOPE argument")
	}
	if err := mnemo.ValidateScope(pos[0]); err != nil {
		return err
	}
	p, err := score.Lookup(*presetName)
	if err != nil {
		return err
	}
	hl := p.HalfLife(pos[0])
	if a.json {
		return a.printJSON(map[string]any{"scope": pos[0], "preset": p.Name, "half_life": hl})
	}
	fmt.Fprintln(a.stdout, strconv.FormatFloat(hl, 'f', -1, 64))
	return nil
}
