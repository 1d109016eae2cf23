package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo/internal/push"
	"github.com/mnemo-dev/mnemo/llm"
)

// cmdOrchestrate runs refresh cycles: once with --once, else every --every
// until interrupted. It opens the database itself, never through the
// server, so its failures cannot touch pull mode.
func cmdOrchestrate(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("orchestrate", flag.ContinueOnError)
	trackerKind := fs.String("tracker", "", "where the tasks are: file, github or plane (default: file with --tasks)")
	tasks := fs.String("tasks", "", `tracker file: {"tasks":[{"id","title","labels":["LONG-TERM"],"query","paths","comments","tools","criticality"}]}`)
	ghRepo := fs.String("github-repo", "", "GitHub repository OWNER/NAME (token: MNEMO_GITHUB_TOKEN; API: MNEMO_GITHUB_URL)")
	planeWS := fs.String("plane-workspace", "", "Plane workspace slug (token: MNEMO_PLANE_TOKEN; instance: MNEMO_PLANE_URL)")
	planeProj := fs.String("plane-project", "", "Plane project id")
	label := fs.String("label", push.LongTerm, "the tracker label that marks a task for refresh (github, plane)")
	repo := fs.String("repo", "", "repository whose commits touch the tasks' paths (default: none)")
	access := fs.Int("access-level", 0, "access level of the records written (and clearance of the orchestrator's own recalls)")
	budget := fs.Int("budget", 50, "most tasks refreshed per cycle, the most pressing first (0: no limit)")
	timeout := fs.Duration("timeout", push.DefaultTrackerTimeout, "time limit of each tracker request")
	rateWait := fs.Duration("rate-wait", push.DefaultRateWait, "longest wait for a tracker's rate limit within a cycle; longer skips to the next cycle")
	once := fs.Bool("once", false, "run one cycle and exit (for cron)")
	every := fs.Duration("every", time.Hour, "time between cycles")
	dry := fs.Bool("dry-run", false, "report priorities and what is due, write nothing")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("orchestrate takes no arguments")
	}
	if a.server != "" {
		return usagef("orchestrate opens the database itself: drop --server")
	}
	if *every < time.Minute {
		return usagef("--every must be at least a minute")
	}
	if *access < 0 || *budget < 0 || *timeout <= 0 {
		return usagef("--access-level and --budget must not be negative, --timeout must be positive")
	}
	kind := *trackerKind
	if kind == "" {
		kind = "file"
	}
	hopt := push.HTTPOptions{Timeout: *timeout, RateWait: *rateWait}
	if *rateWait == 0 {
		hopt.RateWait = -1
	}
	var tr push.Tracker
	switch kind {
	case "file":
		if *tasks == "" {
			return usagef("orchestrate needs --tasks FILE, or --tracker github|plane")
		}
		tr = &push.FileTracker{Path: *tasks}
	case "github":
		if *ghRepo == "" {
			return usagef("--tracker github needs --github-repo OWNER/NAME")
		}
		if tr, err = push.NewGitHub(push.GitHubConfig{URL: a.env("MNEMO_GITHUB_URL"), Token: a.env("MNEMO_GITHUB_TOKEN"),
			Repo: *ghRepo, Label: *label, HTTPOptions: hopt}); err != nil {
			return err
		}
	case "plane":
		if *planeWS == "" || *planeProj == "" {
			return usagef("--tracker plane needs --plane-workspace SLUG and --plane-project ID")
		}
		if tr, err = push.NewPlane(push.PlaneConfig{URL: a.env("MNEMO_PLANE_URL"), Token: a.env("MNEMO_PLANE_TOKEN"),
			Workspace: *planeWS, Project: *planeProj, Label: *label, HTTPOptions: hopt}); err != nil {
			return err
		}
	default:
		return usagef("--tracker is file, github or plane, not %q", kind)
	}
	if kind != "file" && *tasks != "" {
		return usagef("--tasks is for --tracker file")
	}
	// The optional chat model (MNEMO_CHAT_URL, MNEMO_CHAT_MODEL,
	// MNEMO_CHAT_KEY) writes the summaries; without one, the rules do.
	chat, err := llm.FromEnv(a.env)
	if err != nil {
		return err
	}
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	o := &push.Orchestrator{Svc: svc, Namespace: a.ns(), Repo: *repo, AccessLevel: *access, Budget: *budget, Chat: chat}
	cycle := func() error {
		reps, err := o.Cycle(ctx, tr, *dry)
		if a.json {
			if perr := a.printJSON(reps); perr != nil {
				return perr
			}
		} else {
			refreshed := 0
			for _, r := range reps {
				state := "not due"
				switch {
				case r.Error != "":
					state = "skipped until the next cycle (" + r.Error + ")"
				case r.Deferred:
					state = "due, deferred"
				case r.Due && *dry:
					state = "due"
				case r.Due:
					state = fmt.Sprintf("refreshed (%d records)", len(r.Written))
					refreshed++
				}
				by := ""
				if chat != nil && r.SummaryBy != "" {
					by = "; summary by " + r.SummaryBy
					if r.ModelError != "" {
						by += " (model: " + r.ModelError + ")"
					}
				}
				fmt.Fprintf(a.stdout, "%s  priority %.2f  %d commits, %d comments, %s since pulled  %s: %s%s\n", r.ID, r.Priority,
					r.Commits, r.Comments, r.SincePull.Round(time.Minute), state, r.Reason, by)
			}
			if !*once {
				fmt.Fprintf(a.stdout, "%s  %s: %d tasks, %d refreshed\n", time.Now().UTC().Format(time.RFC3339), tr.Name(), len(reps), refreshed)
			}
		}
		if err != nil {
			// The whole chain: which tracker, which task, what failed.
			return errors.New(err.Error())
		}
		return nil
	}
	if *once {
		return cycle()
	}
	for {
		if err := cycle(); err != nil {
			fmt.Fprintf(a.stderr, "mnemo orchestrate: %s (retrying next cycle)\n", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*every):
		}
	}
}
