package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/capture"
)

// captureUsage is the help of `mnemo capture`.
const captureUsage = `usage: mnemo capture [--repo PATH] < hook.json

Claude Code UserPromptSubmit hook: stores the prompt on stdin as an orphan
commit in a bare git repository (created on first use). It never fails its
caller: errors are one line on stderr and exit status 0; stdout stays empty.

  --repo PATH   prompt repository (env MNEMO_PROMPTS_REPO;
                default ~/.local/share/mnemo/prompts.git)

~/.claude/settings.json:
  {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "mnemo capture"}]}]}}
`

// runCapture implements `mnemo capture --repo PATH`. It always returns 0.
func runCapture(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	now := time.Now()
	fs := flag.NewFlagSet("capture", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	repo := fs.String("repo", capturePromptsRepo(), "prompt repository")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, captureUsage)
			return 0
		}
		fmt.Fprintf(stderr, "mnemo capture: %s\n", captureOneLine(err.Error()))
		return 0
	}
	if err := captureRun(ctx, *repo, stdin, now); err != nil {
		fmt.Fprintf(stderr, "mnemo capture: %s\n", captureOneLine(captureErrText(err)))
	}
	return 0
}

func captureRun(ctx context.Context, repo string, stdin io.Reader, now time.Time) error {
	if repo == "" {
		return mnemo.Errorf(mnemo.EINVALID, "no prompt repository: set --repo or MNEMO_PROMPTS_REPO")
	}
	h, err := capture.ReadHook(stdin)
	if err != nil {
		return err
	}
	r, err := capture.OpenOrInit(ctx, repo)
	if err != nil {
		return err
	}
	_, err = r.Capture(ctx, capture.FromHook(h, now))
	return err
}

// capturePromptsRepo is the default prompt repository: $MNEMO_PROMPTS_REPO,
// else ~/.local/share/mnemo/prompts.git ("" when there is no home).
func capturePromptsRepo() string {
	if p := os.Getenv("MNEMO_PROMPTS_REPO"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "share", "mnemo", "prompts.git")
}

// captureErrText is the message of err: a coded message as it is, any
// other error in full (the hook's user owns the machine).
func captureErrText(err error) string {
	var e *mnemo.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// captureOneLine folds a message onto one line.
func captureOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
