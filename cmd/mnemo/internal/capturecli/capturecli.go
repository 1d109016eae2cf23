// Package capturecli is `mnemo capture`, the Claude Code UserPromptSubmit
// hook, run before the rest of the mnemo binary initialises.
//
// The hook runs on every prompt an operator sends, and its whole cost is
// the start of a process: a Go program runs the initialisation of every
// package it links before main, and mnemo links the MCP SDK, two SQL
// drivers, a tokenizer and their dependencies, whose initialisation and
// first page faults cost more than the capture itself. Go initialises
// packages in dependency order and, among those whose imports are ready,
// in lexical order of their import paths. This package imports only
// internal/capturewrite and the standard library packages that are ready
// before reflect and strings (internal/capturewrite says why those), so it
// is initialised while nearly all of the binary is not, and its init runs
// the command there and exits. A test (TestCaptureRunsBeforeHeavyPackages
// in cmd/mnemo) runs the binary with GODEBUG=inittrace=1 and fails when one
// of the heavy packages has been initialised by the time the command ends.
//
// The init takes the command as the hook runs it: `mnemo capture`, with or
// without --repo PATH (in any of the flag package's spellings). Anything
// else (a help flag, another argument, a CPU profile asked for with
// MNEMO_CPUPROFILE) is left to main, which parses the arguments with the
// flag package and then calls the same Capture.
package capturecli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/mnemo-dev/mnemo/internal/capturewrite"
)

func init() {
	if len(os.Args) < 2 || os.Args[1] != "capture" || os.Getenv("MNEMO_CPUPROFILE") != "" {
		return
	}
	repo, ok := repoArg(os.Args[2:])
	if !ok {
		return
	}
	Capture(context.Background(), repo, os.Stdin, os.Stderr)
	os.Exit(0)
}

// repoArg returns the repository that args name, when they are the ones
// the early path takes: none, or --repo PATH as the flag package reads it
// (-repo or --repo, then the value as the next argument or after "=").
func repoArg(args []string) (string, bool) {
	switch len(args) {
	case 0:
		return DefaultRepo(), true
	case 1:
		for _, prefix := range []string{"--repo=", "-repo="} {
			if len(args[0]) >= len(prefix) && args[0][:len(prefix)] == prefix {
				return args[0][len(prefix):], true
			}
		}
	case 2:
		if args[0] == "--repo" || args[0] == "-repo" {
			return args[1], true
		}
	}
	return "", false
}

// Capture stores the hook input on stdin in the bare repository at repo
// (created on first use). An error is one line on stderr: a hook must not
// fail its caller.
func Capture(ctx context.Context, repo string, stdin io.Reader, stderr io.Writer) {
	if err := capture(ctx, repo, stdin, time.Now()); err != nil {
		io.WriteString(stderr, "mnemo capture: "+oneLine(err.Error())+"\n")
	}
}

var errNoRepo = errors.New("no prompt repository: set --repo or MNEMO_PROMPTS_REPO")

func capture(ctx context.Context, repo string, stdin io.Reader, now time.Time) error {
	if repo == "" {
		return errNoRepo
	}
	h, err := capturewrite.ReadHook(stdin)
	if err != nil {
		return err
	}
	r, err := capturewrite.OpenOrInit(ctx, repo)
	if err != nil {
		return err
	}
	_, err = r.Capture(ctx, capturewrite.FromHook(h, now))
	return err
}

// DefaultRepo is the default prompt repository: $MNEMO_PROMPTS_REPO, else
// ~/.local/share/mnemo/prompts.git ("" when there is no home).
func DefaultRepo() string {
	if p := os.Getenv("MNEMO_PROMPTS_REPO"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return capturewrite.UserRepo(home)
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
}
