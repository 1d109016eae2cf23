package main

import (
	"context"
	"flag"
	"fmt"
	"reflect"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/adr"
	"github.com/mnemo-dev/mnemo/internal/safefile"
)

// adrResult is what `mnemo adr` did.
type adrResult struct {
	Added     []string      `json:"added"`
	Updated   []string      `json:"updated"`
	Unchanged []string      `json:"unchanged"`
	Forgotten []string      `json:"forgotten"` // forgotten in mnemo: left alone
	Skipped   []adr.Skipped `json:"skipped"`
	DryRun    bool          `json:"dry_run,omitempty"`
}

// cmdADR imports or syncs an ADR folder: each ADR is one decision record
// with a stable id; a changed file updates its record (the old version
// stays in its history), an unchanged one is left alone.
func cmdADR(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("adr", flag.ContinueOnError)
	scope := fs.String("scope", "/adr", "scope of the decision records")
	dry := fs.Bool("dry-run", false, "report what would change, change nothing")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("adr takes one folder of ADR Markdown files")
	}
	if err := mnemo.ValidateScope(*scope); err != nil {
		return err
	}
	dir, err := safefile.Dir(pos[0], safefile.DefaultMax)
	if err != nil {
		return err
	}
	defer dir.Close()
	adrs, skipped, err := adr.ReadDir(dir)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res := adrResult{Added: []string{}, Updated: []string{}, Unchanged: []string{}, Forgotten: []string{},
		Skipped: append([]adr.Skipped{}, skipped...), DryRun: *dry}
	for _, d := range adrs {
		rec := d.Record(a.ns(), *scope)
		old, err := b.Get(ctx, rec.ID)
		switch {
		case mnemo.ErrorCode(err) == mnemo.ENOTFOUND:
			if !*dry {
				if _, err := b.Remember(ctx, []mnemo.NewRecord{rec}, mnemo.WriteOptions{}); err != nil {
					return fmt.Errorf("%s: %w", d.Path, err)
				}
			}
			res.Added = append(res.Added, d.Path)
		case err != nil:
			return err
		case old.DeletedAt != nil:
			res.Forgotten = append(res.Forgotten, d.Path)
		case old.Text == rec.Text && old.Scope == rec.Scope && reflect.DeepEqual(old.Decision, rec.Decision):
			res.Unchanged = append(res.Unchanged, d.Path)
		default:
			if !*dry {
				p := mnemo.RecordPatch{Text: &rec.Text, Scope: &rec.Scope, Decision: rec.Decision}
				if _, err := b.Update(ctx, rec.ID, p); err != nil {
					return fmt.Errorf("%s: %w", d.Path, err)
				}
			}
			res.Updated = append(res.Updated, d.Path)
		}
	}
	if a.json {
		return a.printJSON(res)
	}
	verb := ""
	if *dry {
		verb = " (dry run)"
	}
	fmt.Fprintf(a.stdout, "ADRs into %s%s: %d added, %d updated, %d unchanged, %d forgotten here, %d files skipped\n",
		a.ns(), verb, len(res.Added), len(res.Updated), len(res.Unchanged), len(res.Forgotten), len(res.Skipped))
	for _, s := range res.Skipped {
		fmt.Fprintf(a.stdout, "skipped %s\n", s.Reason)
	}
	return nil
}
