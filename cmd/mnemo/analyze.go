package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/transcript"
)

// runAnalyze implements `mnemo analyze sessions [DIR] [--json] [--growth FILE]`:
// per-session cost metrics of Claude Code transcripts under DIR (default
// ~/.claude/projects) and, with --growth, the growth of FILE across git
// history. The JSON shape is documented on transcript.Report.
func runAnalyze(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze sessions", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	growth := fs.String("growth", "", "also report the growth of `FILE` across git history (e.g. CLAUDE.md)")
	if ok, err := rawSubcommand(fs, stdout, stderr, "analyze", "sessions", args); !ok {
		return err
	}
	var pos []string
	err := rawFlags(fs, stdout, stderr, func() (err error) {
		pos, err = parseInterleaved(fs, args[1:])
		return err
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return mnemo.Errorf(mnemo.EINVALID, "analyze sessions: %v", err)
	}
	if len(pos) > 1 {
		return mnemo.Errorf(mnemo.EINVALID, "analyze sessions: one directory at most, got %d", len(pos))
	}
	dir := ""
	if len(pos) == 1 {
		dir = pos[0]
	} else {
		home, err := os.UserHomeDir()
		if err != nil {
			return mnemo.Errorf(mnemo.EINVALID, "analyze sessions: no home directory; give DIR")
		}
		dir = filepath.Join(home, ".claude", "projects")
	}
	rep, err := transcript.Analyze(ctx, dir)
	if err != nil {
		return err
	}
	if *growth != "" {
		if rep.Growth, err = transcript.FileGrowth(ctx, *growth); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	return rep.WriteText(stdout)
}

// analyzeRaw adapts runAnalyze to the raw form of a command.
func analyzeRaw(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitCode(stderr, "analyze", runAnalyze(ctx, args, stdin, stdout, stderr))
}
