package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/transcript"
)

// runAnalyze implements `mnemo analyze sessions [DIR] [--json] [--growth FILE]`:
// per-session cost metrics of Claude Code transcripts under DIR (default
// ~/.claude/projects) and, with --growth, the growth of FILE across git
// history. The JSON shape is documented on transcript.Report.
func runAnalyze(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	const use = "usage: mnemo analyze sessions [DIR] [--json] [--growth FILE]"
	if len(args) == 0 || args[0] != "sessions" {
		fmt.Fprintln(stderr, use)
		if len(args) == 0 {
			return mnemo.Errorf(mnemo.EINVALID, "analyze: missing subcommand (sessions)")
		}
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			return nil
		}
		return mnemo.Errorf(mnemo.EINVALID, "analyze: unknown subcommand %q (want sessions)", args[0])
	}
	fs := flag.NewFlagSet("analyze sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	growth := fs.String("growth", "", "also report the growth of `FILE` across git history (e.g. CLAUDE.md)")
	pos, err := analyzeParse(fs, args[1:])
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
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(stdout)
}

// analyzeParse parses flags and positional arguments in any order.
func analyzeParse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// analyzeRaw adapts runAnalyze to the raw form of a command.
func analyzeRaw(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitCode(stderr, "analyze", runAnalyze(ctx, args, stdin, stdout, stderr))
}
