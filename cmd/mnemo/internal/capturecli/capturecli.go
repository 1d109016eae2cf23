// Package capturecli is `mnemo capture`, the Claude Code UserPromptSubmit
// hook, run before the rest of the mnemo binary initialises.
//
// The hook runs on every prompt an operator sends, and its whole cost is
// the start of a process: a Go program runs the initialisation of every
// package it links before main, and mnemo links the MCP SDK, two SQL
// drivers, a tokenizer and their dependencies, whose initialisation and
// first page faults cost more than the capture itself. Go initialises
// packages in dependency order and, among those whose imports are ready,
// in lexical order of their import paths. This package imports only the
// standard library and package capture, which imports only the standard
// library too (and, on Unix, path rather than path/filepath, which is
// ready late: see capture/paths_unix.go); so it is initialised while most
// of the binary is not, and its init runs the command there and exits. A
// test (TestCaptureRunsBeforeHeavyPackages) runs the binary with
// GODEBUG=inittrace=1 and fails when one of the heavy packages has been
// initialised by the time the command ends.
//
// Anything the early path does not take (a help flag first, a CPU profile
// asked for with MNEMO_CPUPROFILE) is left to main, which runs the same Run.
package capturecli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/capture"
)

// Usage is the help of `mnemo capture`.
const Usage = `usage: mnemo capture [--repo PATH] < hook.json

Claude Code UserPromptSubmit hook: stores the prompt on stdin as an orphan
commit in a bare git repository (created on first use). It never fails its
caller: errors are one line on stderr and exit status 0; stdout stays empty.

  --repo PATH   prompt repository (env MNEMO_PROMPTS_REPO;
                default ~/.local/share/mnemo/prompts.git)

~/.claude/settings.json:
  {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "mnemo capture"}]}]}}
`

func init() {
	if len(os.Args) < 2 || os.Args[1] != "capture" || os.Getenv("MNEMO_CPUPROFILE") != "" {
		return
	}
	if len(os.Args) > 2 && isHelpFlag(os.Args[2]) {
		return // main prints the help on stdout, as for every command
	}
	os.Exit(Run(context.Background(), os.Args[2:], os.Stdin, os.Stderr))
}

// isHelpFlag is what main takes for a help flag right after a command.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

// Run implements `mnemo capture --repo PATH`. It always returns 0: a hook
// must not fail its caller, so an error is one line on stderr.
func Run(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) int {
	now := time.Now()
	fs := flag.NewFlagSet("capture", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	repo := fs.String("repo", DefaultRepo(), "prompt repository")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, Usage)
			return 0
		}
		fmt.Fprintf(stderr, "mnemo capture: %s\n", oneLine(err.Error()))
		return 0
	}
	if err := runRepo(ctx, *repo, stdin, now); err != nil {
		fmt.Fprintf(stderr, "mnemo capture: %s\n", oneLine(err.Error()))
	}
	return 0
}

func runRepo(ctx context.Context, repo string, stdin io.Reader, now time.Time) error {
	if repo == "" {
		return errors.New("no prompt repository: set --repo or MNEMO_PROMPTS_REPO")
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
	return capture.UserRepo(home)
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
