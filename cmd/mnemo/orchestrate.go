package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo/push"
	"github.com/mnemo-dev/mnemo/safefile"
)

func init() {
	extraCommands["orchestrate"] = command{summary: "push mode: refresh LONG-TERM tasks of a tracker file in the background (a process of its own)", run: cmdOrchestrate}
}

// cmdOrchestrate runs refresh cycles: once with --once, else every --every
// until interrupted. It opens the database itself, never through the
// server, so its failures cannot touch pull mode.
func cmdOrchestrate(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("orchestrate", flag.ContinueOnError)
	tasks := fs.String("tasks", "", `tracker file: {"tasks":[{"id","title","labels":["LONG-TERM"],"query","paths","comments","tools"}]} (required)`)
	repo := fs.String("repo", "", "repository whose commits touch the tasks' paths (default: none)")
	once := fs.Bool("once", false, "run one cycle and exit (for cron)")
	every := fs.Duration("every", time.Hour, "time between cycles")
	dry := fs.Bool("dry-run", false, "report priorities and what is due, write nothing")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *tasks == "" {
		return usagef("orchestrate needs --tasks FILE and takes no arguments")
	}
	if a.server != "" {
		return usagef("orchestrate opens the database itself: drop --server")
	}
	if *every < time.Minute {
		return usagef("--every must be at least a minute")
	}
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	o := &push.Orchestrator{Svc: svc, Namespace: a.ns(), Repo: *repo}
	cycle := func() error {
		b, err := safefile.ReadFile(*tasks, safefile.DefaultMax)
		if err != nil {
			return fmt.Errorf("tracker file: %w", err)
		}
		tr, err := push.ParseTracker(b)
		if err != nil {
			return err
		}
		reps, err := o.Cycle(ctx, tr, *dry)
		if a.json {
			if perr := a.printJSON(reps); perr != nil {
				return perr
			}
		} else {
			for _, r := range reps {
				state := "not due"
				if r.Due && *dry {
					state = "due"
				} else if r.Due {
					state = fmt.Sprintf("refreshed (%d records)", len(r.Written))
				}
				fmt.Fprintf(a.stdout, "%s  priority %.2f  %d commits, %d comments, %s since pulled  %s: %s\n", r.ID, r.Priority,
					r.Commits, r.Comments, r.SincePull.Round(time.Minute), state, r.Reason)
			}
		}
		return err
	}
	if *once {
		return cycle()
	}
	for {
		if err := cycle(); err != nil {
			fmt.Fprintf(a.stderr, "mnemo orchestrate: %s (retrying next cycle)\n", errText(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*every):
		}
	}
}
