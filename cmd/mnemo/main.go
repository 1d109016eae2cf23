// Command mnemo is persistent memory for long-horizon AI agents and the
// operators who supervise them. See `mnemo help`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/mnemo-dev/mnemo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if path := os.Getenv("MNEMO_CPUPROFILE"); path != "" {
		// Profiling a whole command, e.g. a hook's start-up cost.
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	stop()
	os.Exit(code)
}

// command is one subcommand. Commands that need the store receive an *app.
type command struct {
	summary string
	run     func(ctx context.Context, a *app, args []string) error
	// raw commands manage their own flags, I/O and exit code (hooks must
	// never fail their caller).
	raw func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"remember": {summary: "store a memory", run: cmdRemember},
		"recall":   {summary: "rank memories for a query, with factor breakdowns", run: cmdRecall},
		"digest":   {summary: "token-budgeted context for a task (workflow_memory_query)", run: cmdDigest},
		"show":     {summary: "show one record", run: cmdShow},
		"edit":     {summary: "change fields of a record", run: cmdEdit},
		"forget":   {summary: "forget a record (restorable)", run: cmdForget},
		"restore":  {summary: "restore a forgotten record", run: cmdRestore},
		"history":  {summary: "a record's audit history", run: cmdHistory},
		"list":     {summary: "list records", run: cmdList},
		"export":   {summary: "export the namespace as JSONL", run: cmdExport},
		"import":   {summary: "import JSONL records", run: cmdImport},
		"reembed":  {summary: "rebuild every vector with the configured embedder", run: cmdReembed},
		"score":    {summary: "compute reference scores from JSONL on stdin", run: cmdScore},
		"halflife": {summary: "print the resolved half-life of a scope", run: cmdHalflife},
		"demo":     {summary: "load an example mission into a temporary store and print a digest", run: cmdDemo},
		"version":  {summary: "print the version", run: cmdVersion},
		"capture":  {summary: "Claude Code UserPromptSubmit hook: capture the prompt into a bare git repository", raw: runCapture},
		"prompts":  {summary: "prompt corpus analytics (prompts stats --repo PATH)", raw: promptsRaw},
		"analyze":  {summary: "coding-agent session cost analysis (analyze sessions [DIR])", raw: analyzeRaw},
		"config":   {summary: "the namespace's scoring configuration, versioned (config show|history|diff A B|rollback N|apply FILE)", run: cmdConfig},
		"loop":     {summary: "the loops that keep memory good (loop warm|cold [--once] | status | approve ID | reject ID | revert)", run: cmdLoop},

		"consolidate": {summary: "merge near-duplicates written by an import or --no-dedup, as on write (restorable)", run: cmdConsolidate},
	}
	for name, c := range extraCommands {
		commands[name] = c
	}
}

// promptsRaw and analyzeRaw adapt commands that return errors to the raw form.
func promptsRaw(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitCode(stderr, "prompts", runPrompts(ctx, args, stdin, stdout, stderr))
}

func analyzeRaw(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitCode(stderr, "analyze", runAnalyze(ctx, args, stdin, stdout, stderr))
}

func exitCode(stderr io.Writer, name string, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "mnemo %s: %s\n", name, errText(err))
	return 1
}

// extraCommands are registered by other files of this package.
var extraCommands = map[string]command{}

var mergeExtra sync.Once

func usage(w io.Writer) {
	fmt.Fprintln(w, `mnemo — persistent memory for long-horizon agents and their operators

usage: mnemo [--db PATH | --server URL] [--namespace NS] [--json] <command> [flags] [args]

commands:`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, `
global flags (also accepted after the command):
  --db PATH|URL      database file, or a postgres:// URL (env MNEMO_DB; default ~/.local/share/mnemo/mnemo.db)
  --namespace NS     namespace (env MNEMO_NAMESPACE; default "default")
  --json             machine-readable output
  --server URL       use a mnemo server instead of the database file (env MNEMO_SERVER)
  --api-key KEY      API key for --server (env MNEMO_API_KEY)

environment: MNEMO_EMBEDDER (hash|openai|static:DIR), MNEMO_EMBED_DIM, MNEMO_EMBED_URL, MNEMO_EMBED_MODEL,
MNEMO_EMBED_KEY (or OPENAI_API_KEY), MNEMO_PRESET, MNEMO_TOKENIZER, MNEMO_MAX_TEXT_BYTES,
MNEMO_TRIAGE_CAPACITY, MNEMO_EXTRACT_EVERY (extract memories from threads every N messages;
0 = off), MNEMO_OPERATOR and MNEMO_SESSION (who asks, for the retrieval log).
Run 'mnemo help <command>' or 'mnemo <command> --help' for a command's flags; 'mnemo --version' for the version.`)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	mergeExtra.Do(func() {
		// Files named after main.go run their init() after main.go's: merge late.
		for name, c := range extraCommands {
			if _, ok := commands[name]; !ok {
				commands[name] = c
			}
		}
	})
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, env: os.Getenv, helpOut: stdout}
	gfs := flag.NewFlagSet("mnemo", flag.ContinueOnError)
	gfs.SetOutput(stderr)
	a.globalFlags(gfs)
	showVersion := gfs.Bool("version", false, "print the version")
	var gusage bytes.Buffer
	gfs.Usage = func() { usage(&gusage) }
	if err := gfs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) { // asked for: the answer goes to stdout
			_, _ = gusage.WriteTo(stdout)
			return 0
		}
		_, _ = gusage.WriteTo(stderr)
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "mnemo", version)
		return 0
	}
	rest := gfs.Args()
	if len(rest) > 1 && rest[0] == "help" {
		rest = []string{rest[1], "--help"}
	}
	if len(rest) == 0 || rest[0] == "help" {
		usage(stdout)
		if len(rest) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[rest[0]]
	if !ok {
		fmt.Fprintf(stderr, "mnemo: unknown command %q (run 'mnemo help')\n", rest[0])
		return 2
	}
	if len(rest) > 1 && isHelpFlag(rest[1]) {
		return a.commandHelp(ctx, rest[0], cmd)
	}
	if cmd.raw != nil {
		args := rest[1:]
		if a.json && rest[0] != "capture" { // hooks print nothing but what their caller reads
			args = append(args, "--json")
		}
		return cmd.raw(ctx, args, stdin, stdout, stderr)
	}
	a.readOnly = readCommands[rest[0]]
	a.name = rest[0]
	switch a.name {
	case "serve", "mcp", "loadtest":
		// Long-running servers trade memory for CPU: collecting half as
		// often gives about 15% more digests per second on two cores.
		// GOGC, when set, wins.
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(200)
		}
	}
	err := cmd.run(ctx, a, rest[1:])
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "mnemo %s: %s\n", a.name, ue.msg)
			return 2
		}
		fmt.Fprintf(stderr, "mnemo %s: %s\n", a.name, errText(err))
		return 1
	}
	return 0
}

// errText is the message of err for a CLI user: coded messages as they are,
// other errors in full (the local user owns the machine).
func errText(err error) string {
	var e *mnemo.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// readCommands only read the store: on a database file that does not
// exist they say so instead of creating it.
var readCommands = map[string]bool{"recall": true, "digest": true, "list": true, "show": true, "history": true,
	"export": true, "corrections": true, "threads": true, "handoff": true}

// parseFlags parses flags and positional arguments in any order. -h or
// --help prints the command's usage and flags on stdout and returns
// flag.ErrHelp (exit status 0).
func (a *app) parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(a.stderr)
	a.globalFlags(fs)
	if a.helpOnly {
		return nil, a.showFlagsHelp(fs)
	}
	if a.helpOut == nil {
		a.helpOut = a.stdout
	}
	var help bytes.Buffer // the usage: on stdout when asked for, on stderr after a parse error
	fs.Usage = func() { help.Reset(); writeUsage(&help, fs.Name(), fs) }
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				_, _ = help.WriteTo(a.helpOut)
				a.helpShown = true
			} else {
				_, _ = help.WriteTo(a.stderr)
			}
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

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	if !isTerminal(a.stdout) {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	// On a terminal, also escape what encoding/json passes through and a
	// terminal may act on: C1 controls and bidirectional overrides.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	var out strings.Builder
	for _, r := range b.String() {
		if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f {
			fmt.Fprintf(&out, "\\u%04x", r)
			continue
		}
		out.WriteRune(r)
	}
	_, err := io.WriteString(a.stdout, out.String())
	return err
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}
