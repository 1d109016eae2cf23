package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/capture"
	"github.com/mnemo-dev/mnemo/cmd/mnemo/internal/capturecli"
	"github.com/mnemo-dev/mnemo/internal/prompts"
)

// runPrompts implements `mnemo prompts stats [--repo PATH] [--json] [--top N]`:
// intent labels, topic terms per repository and week, and project switching
// over the captured prompts. The JSON shape is documented on prompts.Stats.
func runPrompts(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("prompts stats", flag.ContinueOnError)
	repo := fs.String("repo", capturecli.DefaultRepo(), "prompt repository (env MNEMO_PROMPTS_REPO)")
	asJSON := fs.Bool("json", false, "print JSON")
	top := fs.Int("top", 10, "terms per repository and week")
	if ok, err := rawSubcommand(fs, stdout, stderr, "prompts", "stats", args); !ok {
		return err
	}
	if err := rawFlags(fs, stdout, stderr, func() error { return fs.Parse(args[1:]) }); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return mnemo.Errorf(mnemo.EINVALID, "prompts stats: %v", err)
	}
	if fs.NArg() > 0 {
		return mnemo.Errorf(mnemo.EINVALID, "prompts stats: unexpected argument %q", fs.Arg(0))
	}
	if *top <= 0 {
		return mnemo.Errorf(mnemo.EINVALID, "prompts stats: --top must be positive")
	}
	if *repo == "" {
		return mnemo.Errorf(mnemo.EINVALID, "prompts stats: no prompt repository: set --repo or MNEMO_PROMPTS_REPO")
	}
	r, err := capture.Open(ctx, *repo)
	if err != nil {
		return captureCoded(err)
	}
	list, err := r.List(ctx)
	if err != nil {
		return err
	}
	in := make([]prompts.Prompt, len(list))
	for i, c := range list {
		p := c.Prompt
		in[i] = prompts.Prompt{Text: p.Prompt, Time: p.Timestamp, Session: p.SessionID, Repository: p.Repository, Branch: p.Branch}
	}
	st := prompts.Analyze(in, prompts.Options{TopTerms: *top})
	if *asJSON {
		return writeJSON(stdout, st)
	}
	return st.WriteText(stdout)
}

// promptsRaw adapts runPrompts to the raw form of a command.
func promptsRaw(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitCode(stderr, "prompts", runPrompts(ctx, args, stdin, stdout, stderr))
}
