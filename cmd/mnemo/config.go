package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/internal/safefile"
	"github.com/mnemo-dev/mnemo/tuning"
)

// cmdConfig: `config show [--version N]`, `config history`, `config diff A
// B`, `config rollback N`, `config apply FILE [--force] [--reason TEXT]`.
// The scoring configuration of the namespace, versioned.
func cmdConfig(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		return usagef("config show|history|diff A B|rollback N|apply FILE")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("config "+sub, flag.ContinueOnError)
	version := fs.Int("version", -1, "show this version (default: the active one; 0: the default preset's)")
	force := fs.Bool("force", false, "apply: skip the Mentor's rules (the version is recorded all the same)")
	reason := fs.String("reason", "", "apply: why (recorded with the version)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if a.server != "" {
		return usagef("config opens the database itself: drop --server")
	}
	switch sub {
	case "show", "history", "diff":
		a.readOnly = true
	case "rollback", "apply":
	default:
		return usagef("unknown config command %q (want show, history, diff, rollback or apply)", sub)
	}
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	c, ns := a.caller(), a.ns()
	versionArg := func(s string) (int, error) {
		v, err := strconv.Atoi(strings.TrimPrefix(s, "v"))
		if err != nil || v < 0 {
			return 0, usagef("version %q is not a number >= 0", s)
		}
		return v, nil
	}
	switch sub {
	case "show":
		if len(pos) != 0 {
			return usagef("config show takes no arguments (--version N)")
		}
		cv, err := svc.Config(mnemo.WithCallerIn(ctx, c, ns), *version)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(cv)
		}
		return a.printJSON(cv.Config) // the document itself: edit it and `config apply` it
	case "history":
		if len(pos) != 0 {
			return usagef("config history takes no arguments")
		}
		t, err := svc.Tuning(mnemo.WithCallerIn(ctx, c, ns))
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(t)
		}
		mark := func(v int) string {
			if v == t.Active {
				return "*"
			}
			return " "
		}
		fmt.Fprintf(a.stdout, "%s v0  the default preset's configuration\n", mark(0))
		for _, v := range t.Versions {
			cv, err := svc.Config(mnemo.WithCallerIn(ctx, c, ns), v.Version)
			if err != nil {
				return err
			}
			action := v.Action
			if action == "" {
				action = "tune"
			}
			fmt.Fprintf(a.stdout, "%s v%d  %s  %s by %s: %s%s\n", mark(v.Version), v.Version, v.At.Format("2006-01-02 15:04"),
				action, cv.Author, oneLineText(cv.Reason), formatEvaluation(cv.Evaluation))
		}
		for _, e := range t.Events {
			if e.Action == "rollback" {
				fmt.Fprintf(a.stdout, "  %s  rollback to v%d by %s\n", e.At.Format("2006-01-02 15:04"), e.Active, e.Actor)
			}
		}
		return nil
	case "diff":
		if len(pos) != 2 {
			return usagef("config diff takes two versions")
		}
		va, err := versionArg(pos[0])
		if err != nil {
			return err
		}
		vb, err := versionArg(pos[1])
		if err != nil {
			return err
		}
		ca, err := svc.Config(mnemo.WithCallerIn(ctx, c, ns), va)
		if err != nil {
			return err
		}
		cb, err := svc.Config(mnemo.WithCallerIn(ctx, c, ns), vb)
		if err != nil {
			return err
		}
		d := loops.Diff(ca.Config, cb.Config)
		if a.json {
			if d == nil {
				d = []loops.Change{}
			}
			return a.printJSON(d)
		}
		if len(d) == 0 {
			fmt.Fprintf(a.stdout, "v%d and v%d are the same configuration\n", va, vb)
		}
		for _, ch := range d {
			fmt.Fprintf(a.stdout, "%s: %s -> %s\n", ch.Field, orNone(ch.From), orNone(ch.To))
		}
		return nil
	case "rollback":
		if len(pos) != 1 {
			return usagef("config rollback takes one version (0: the default preset's configuration)")
		}
		v, err := versionArg(pos[0])
		if err != nil {
			return err
		}
		t, err := svc.Rollback(mnemo.WithCallerIn(ctx, c, ns), v)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(t)
		}
		fmt.Fprintf(a.stdout, "configuration of %s: version %d is active\n", ns, t.Active)
		return nil
	case "apply":
		if len(pos) != 1 {
			return usagef("config apply takes one FILE (- for stdin)")
		}
		var b []byte
		if pos[0] == "-" {
			b, err = io.ReadAll(io.LimitReader(a.stdin, 1<<20))
		} else {
			b, err = safefile.ReadFile(pos[0], 1<<20)
		}
		if err != nil {
			return err
		}
		cfg, err := tuning.ParseConfig(b)
		if err != nil {
			return err
		}
		cv, err := loops.New(svc).Apply(ctx, c, ns, cfg, loops.ApplyOptions{Force: *force, Reason: *reason})
		if err != nil {
			if mnemo.ErrorCode(err) == mnemo.EINVALID && strings.HasPrefix(mnemo.ErrorMessage(err), "refused by rule") {
				return fmt.Errorf("%s (--force applies it anyway)", mnemo.ErrorMessage(err))
			}
			return err
		}
		if a.json {
			return a.printJSON(cv)
		}
		fmt.Fprintf(a.stdout, "configuration of %s: version %d is active (validation %.3f -> %.3f on %.0f probes)\n", ns, cv.Version,
			cv.Evaluation["validation_before"], cv.Evaluation["validation_after"], cv.Evaluation["probes"])
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// formatEvaluation renders an evaluation as " [k=v …]", keys sorted.
func formatEvaluation(ev map[string]float64) string {
	if len(ev) == 0 {
		return ""
	}
	keys := make([]string, 0, len(ev))
	for k := range ev {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+strconv.FormatFloat(ev[k], 'f', 3, 64))
	}
	return " [" + strings.Join(parts, " ") + "]"
}
