package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/capture"
)

// hookInput is the JSON a Claude Code hook receives; unknown fields are ignored.
type hookInput struct {
	SessionID      string `json:"session_id"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"` // SessionStart: startup, resume, clear, compact
	Prompt         string `json:"prompt"` // UserPromptSubmit
	PermissionMode string `json:"permission_mode"`
}

// hookOutput is the hook's JSON answer: the digest goes in additionalContext.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// cmdHook implements `mnemo hook session-start` and `mnemo hook prompt`. A
// hook never blocks or fails its session: on any error it prints one line to
// stderr, nothing to stdout, and exits 0.
func cmdHook(ctx context.Context, a *app, args []string) error {
	stdout := a.stdout
	a.stdout = io.Discard
	if err := hook(ctx, a, args, stdout); err != nil && err != flag.ErrHelp {
		a.close()
		fmt.Fprintf(a.stderr, "mnemo hook: %s\n", strings.ReplaceAll(errText(err), "\n", " "))
	}
	return nil
}

func hook(ctx context.Context, a *app, args []string, stdout io.Writer) error {
	if len(args) == 0 || (args[0] != "session-start" && args[0] != "prompt") {
		return usagef("want `mnemo hook session-start` or `mnemo hook prompt`")
	}
	event := args[0]
	stdin, stderr := a.stdin, a.stderr
	fs := flag.NewFlagSet("hook "+event, flag.ContinueOnError)
	defCap := 10000
	if event == "prompt" {
		defCap = 4000
	}
	maxChars := fs.Int("max-chars", defCap, "cap on the context's length in characters (clients cut longer context)")
	captureRepo := fs.String("capture", "", "with `hook prompt`: also capture the prompt into this bare git repository")
	var filters stringList
	fs.Var(&filters, "filter", "KEY=VALUE digest filter (repeatable): layers, kinds, scope_prefix, component, mission, thread, tags, min_criticality, since, until, as_of, as_known_at, outcome, operator")
	if _, err := a.parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *maxChars < 200 {
		return usagef("--max-chars %d is too small (at least 200)", *maxChars)
	}
	f, err := parseFilters(filters)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 8<<20))
	if err != nil {
		return err
	}
	var in hookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return mnemo.Errorf(mnemo.EINVALID, "hook input is not a JSON object: %v", err)
	}
	if event == "prompt" && *captureRepo != "" {
		if err := capturePrompt(ctx, *captureRepo, data); err != nil {
			fmt.Fprintf(stderr, "mnemo hook: capture: %s\n", errText(err))
		}
	}
	repo, branch := capture.Locate(in.Cwd)
	var task, name string
	switch event {
	case "session-start":
		name = "SessionStart"
		task = "Starting a work session"
		if repo != "" {
			task += " in repository " + filepath.Base(repo)
		}
		if branch != "" {
			task += " on branch " + branch
		}
		task += ": current decisions, rules, open questions and how this operator works"
	case "prompt":
		name = "UserPromptSubmit"
		task = strings.TrimSpace(in.Prompt)
		if task == "" {
			return mnemo.Errorf(mnemo.EINVALID, "hook input has no prompt")
		}
	}
	md, err := a.cappedDigest(ctx, mnemo.Caller{Name: "hook", Session: in.SessionID, Role: mnemo.RoleRead, Clearance: mnemo.MaxAccessLevel}, task, f, *maxChars)
	if err != nil {
		return err
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = name
	out.HookSpecificOutput.AdditionalContext = md
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = stdout.Write(append(b, '\n'))
	return err
}

// cappedDigest returns a digest for task whose Markdown fits maxChars
// characters: the token budget starts at a quarter of the cap and shrinks
// until the rendering fits.
func (a *app) cappedDigest(ctx context.Context, c mnemo.Caller, task string, f mnemo.Filter, maxChars int) (string, error) {
	svc, err := a.service(ctx)
	if err != nil {
		return "", err
	}
	a.th.Prefetch(task) // while the index loads
	budget := maxChars / 3
	for try := 0; try < 6; try++ {
		d, err := svc.Digest(mnemo.WithCallerIn(ctx, c, a.ns()), mnemo.DigestRequest{Task: task, Budget: budget, Filter: f})
		if err != nil {
			return "", err
		}
		n := len([]rune(d.Markdown))
		if n <= maxChars {
			return d.Markdown, nil
		}
		budget = budget * maxChars / n * 9 / 10
		if budget < 10 {
			break
		}
	}
	return "", nil
}

// capturePrompt writes the hook input into the capture repository.
func capturePrompt(ctx context.Context, repo string, data []byte) error {
	h, err := capture.ReadHook(strings.NewReader(string(data)))
	if err != nil {
		return captureCoded(err)
	}
	r, err := capture.OpenOrInit(ctx, repo)
	if err != nil {
		return captureCoded(err)
	}
	_, err = r.Capture(ctx, capture.FromHook(h, time.Now()))
	return captureCoded(err)
}
