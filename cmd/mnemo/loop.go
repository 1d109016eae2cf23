package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/llm"
)

// cmdLoop: `loop warm|cold [--once | --every D]`, `loop status`, `loop
// approve ID`, `loop reject ID`, `loop revert`. The loops that keep the
// namespace's memory good, run by hand or from cron.
func cmdLoop(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		return usagef("loop warm|cold|status|approve ID|reject ID|revert")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("loop "+sub, flag.ContinueOnError)
	once := fs.Bool("once", false, "run one cycle and exit")
	every := fs.Duration("every", 0, "time between cycles (default: warm 24h, cold 1h)")
	clearance := fs.Int("clearance", mnemo.MaxAccessLevel, "probe only the records this access level may see")
	approval := fs.String("approval", "auto", "cold: auto applies an accepted patch; manual queues it for `loop approve`")
	threshold := fs.Float64("threshold", loops.DefaultThreshold, "cold: the validation score below which the loop repairs")
	noAdjust := fs.Bool("no-adjust", false, "warm: measure only, adjust no importance")
	records := fs.Int("records", 40, "records probed per run")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if a.server != "" {
		return usagef("loop opens the database itself: drop --server")
	}
	switch sub {
	case "status":
		a.readOnly = true
	case "warm", "cold", "approve", "reject", "revert":
	default:
		return usagef("unknown loop command %q (want warm, cold, status, approve, reject or revert)", sub)
	}
	if *clearance < 0 || *clearance > mnemo.MaxAccessLevel {
		return usagef("--clearance must be within 0..%d", mnemo.MaxAccessLevel)
	}
	if *approval != "auto" && *approval != "manual" {
		return usagef("--approval must be auto or manual")
	}
	if !(*threshold > 0 && *threshold <= 1) || *records <= 0 {
		return usagef("--threshold must be within (0, 1], --records positive")
	}
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	c, ns := a.caller(), a.ns()
	c.Clearance = *clearance
	l := loops.New(svc)
	l.Manual, l.Threshold, l.NoAdjust = *approval == "manual", *threshold, *noAdjust
	l.Intern.MaxRecords = *records
	if l.Intern.Model, err = llm.FromEnv(a.env); err != nil {
		return err
	}
	switch sub {
	case "warm", "cold":
		if len(pos) != 0 {
			return usagef("loop %s takes no arguments", sub)
		}
		wait := *every
		if wait == 0 {
			wait = 24 * time.Hour
			if sub == "cold" {
				wait = time.Hour
			}
		}
		if wait < time.Minute {
			return usagef("--every must be at least a minute")
		}
		for {
			if err := loopOnce(ctx, a, l, c, ns, sub); err != nil {
				return err
			}
			if *once {
				return nil
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
	case "status":
		st, err := l.Status(ctx, c, ns)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(st)
		}
		fmt.Fprintf(a.stdout, "%s: configuration version %d, threshold %.2f\n", ns, st.Version, st.Threshold)
		for _, p := range st.Trend {
			fmt.Fprintf(a.stdout, "  %s  validation %.3f on %d probes (v%d)\n", p.At.Format("2006-01-02 15:04"), p.Validation, p.Probes, p.Version)
		}
		if r := st.LastTrigger; r != nil {
			fmt.Fprintf(a.stdout, "last trigger %s: %s\n", r.At.Format("2006-01-02 15:04"), r.Reason)
		}
		if r := st.LastPatch; r != nil {
			fmt.Fprintf(a.stdout, "last patch %s: version %d, validation %.3f -> %.3f\n", r.At.Format("2006-01-02 15:04"), r.Version, r.ValidationBefore, r.ValidationAfter)
		}
		for _, p := range st.Pending {
			fmt.Fprintf(a.stdout, "pending %s: %d changes, search half %.3f -> %.3f (loop approve %s)\n", p.ID, len(p.Patch), p.Evaluation.SearchBefore, p.Evaluation.SearchAfter, p.ID)
		}
		fmt.Fprintf(a.stdout, "%d records with importance adjusted by the loops\n", st.Adjusted)
		return nil
	case "approve", "reject":
		if len(pos) != 1 {
			return usagef("loop %s takes one pending patch id", sub)
		}
		if sub == "reject" {
			if err := l.Reject(ctx, ns, pos[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "patch %s rejected\n", pos[0])
			return nil
		}
		cv, err := l.Approve(ctx, c, ns, pos[0])
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(cv)
		}
		fmt.Fprintf(a.stdout, "patch %s applied: configuration version %d is active\n", pos[0], cv.Version)
		return nil
	case "revert":
		ev, err := l.Revert(ctx, c, ns)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(ev)
		}
		fmt.Fprintf(a.stdout, "%d importance adjustments reverted\n", len(ev))
	}
	return nil
}

// loopOnce runs one warm or cold cycle and prints its result.
func loopOnce(ctx context.Context, a *app, l *loops.Loops, c mnemo.Caller, ns, which string) error {
	if which == "warm" {
		run, err := l.Warm(ctx, c, ns)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(run)
		}
		fmt.Fprintf(a.stdout, "warm %s: validation %.3f on %d probes (%d generated), %d importance adjustments, %d ms\n",
			ns, run.Validation, run.Probes, run.Generated, len(run.Adjusted), run.Millis)
		return nil
	}
	run, err := l.Cold(ctx, c, ns)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(run)
	}
	switch {
	case !run.Triggered:
		fmt.Fprintf(a.stdout, "cold %s: not triggered (%s)\n", ns, run.Reason)
	case run.Pending != "":
		fmt.Fprintf(a.stdout, "cold %s: %s; patch %s awaits approval (%s)\n", ns, run.Reason, run.Pending, run.Detail)
	case run.Accepted:
		fmt.Fprintf(a.stdout, "cold %s: %s; version %d accepted, validation %.3f -> %.3f\n", ns, run.Reason, run.Version, run.ValidationBefore, run.ValidationAfter)
	default:
		fmt.Fprintf(a.stdout, "cold %s: %s; patch rejected by rule %s: %s\n", ns, run.Reason, run.Rule, run.Detail)
	}
	for _, ch := range run.Patch {
		fmt.Fprintf(a.stdout, "  %s: %s -> %s\n", ch.Field, orNone(ch.From), orNone(ch.To))
	}
	return nil
}
