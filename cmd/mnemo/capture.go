package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/capture"
	"github.com/mnemo-dev/mnemo/cmd/mnemo/internal/capturecli"
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

// runCapture implements `mnemo capture --repo PATH` when main runs it:
// with arguments capturecli's init does not take (a help flag, say), a CPU
// profile, or in a test. The binary's usual `mnemo capture` has run and
// exited before main, from that init. It always returns 0.
func runCapture(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("capture", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	repo := fs.String("repo", capturecli.DefaultRepo(), "prompt repository")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, captureUsage)
			return 0
		}
		fmt.Fprintf(stderr, "mnemo capture: %s\n", strings.Join(strings.Fields(err.Error()), " "))
		return 0
	}
	capturecli.Capture(ctx, *repo, stdin, stderr)
	return 0
}

// captureKinds are the codes of the capture package's kinds of error.
var captureKinds = []struct {
	kind error
	code string
}{
	{capture.ErrInvalid, mnemo.EINVALID},
	{capture.ErrNotFound, mnemo.ENOTFOUND},
	{capture.ErrTooLarge, mnemo.ETOOLARGE},
}

// captureCoded gives an error of the capture package the code of its
// kind; any other error is returned as it is.
func captureCoded(err error) error {
	for _, k := range captureKinds {
		if errors.Is(err, k.kind) {
			return &mnemo.Error{Code: k.code, Message: err.Error()}
		}
	}
	return err
}
