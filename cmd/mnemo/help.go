package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// synopses are the usage lines of the commands and subcommands, by the
// name of their flag set ("digest", "keys create"). A command without one
// is shown as "mnemo NAME [flags]".
var synopses = map[string]string{
	"remember": "mnemo remember [--layer L] [--kind K] [--scope S] [--importance X] [--confidence X] [--criticality X]\n" +
		"                [--source S] [--ref R]... [--component C] [--tag T]... [--mission M] [--thread T] [--at TIME]\n" +
		"                [--access-level N] [--supersedes ID] [--body JSON] [--no-dedup] TEXT|-",
	"recall": "mnemo recall QUERY [--k N] [--layer L]... [--kind K]... [--preset P] [--intent I] [--operator NAME]\n" +
		"                [--as-known-at TIME] [--filter KEY=VALUE]...",
	"digest": "mnemo digest TASK [--scope all|domain|workflow|practitioner] [--budget N] [--operator NAME]\n" +
		"                [--as-known-at TIME] [--filter KEY=VALUE]... [--min-relevance X] [--min-score-ratio X]",
	"show":               "mnemo show ID",
	"edit":               "mnemo edit ID [--text T] [--layer L] [--kind K] [--scope S] [--importance X] [...]",
	"forget":             "mnemo forget ID",
	"restore":            "mnemo restore ID",
	"history":            "mnemo history ID",
	"list":               "mnemo list [--layer L]... [--kind K]... [--operator NAME] [--as-known-at TIME] [--filter KEY=VALUE]... [--all]",
	"export":             "mnemo export [FILE]",
	"import":             "mnemo import FILE",
	"reembed":            "mnemo reembed",
	"score":              "mnemo score --preset P < rows.jsonl",
	"halflife":           "mnemo halflife [--preset P] SCOPE",
	"demo":               "mnemo demo",
	"version":            "mnemo version [--verbose]",
	"capture":            "mnemo capture [--repo PATH] < hook-event.json",
	"prompts":            "mnemo prompts stats [--repo PATH] [--json] [--top N]",
	"analyze":            "mnemo analyze sessions [DIR] [--json] [--growth FILE]",
	"analyze sessions":   "mnemo analyze sessions [DIR] [--json] [--growth FILE]",
	"config":             "mnemo config show [--version N] | history | diff A B | rollback N | apply FILE [--force]",
	"loop":               "mnemo loop warm|cold [--once] [--every D] | status | approve ID | reject ID | revert",
	"adr":                "mnemo adr [--scope /adr] [--dry-run] DIR",
	"bench":              "mnemo bench locomo --data PATH | perf [--quick] | writes | peer",
	"corrections":        "mnemo corrections [--since TIME] [--until TIME] [--by day|week|month] [--triples]",
	"episode":            "mnemo episode [--budget N] THREAD",
	"threads":            "mnemo threads",
	"principles":         "mnemo principles",
	"consolidate":        "mnemo consolidate [--dry-run]",
	"expire":             "mnemo expire [--importance 0.1] [--idle 120d] [--dry-run]",
	"purge":              "mnemo purge --older-than 365d",
	"git":                "mnemo git [--repo .] [--rev HEAD] [--since TIME] [--max 1000]",
	"handoff":            "mnemo handoff [--from OPERATOR] [--since TIME] [--budget 4000]",
	"hook":               "mnemo hook session-start | hook prompt [--capture REPO]",
	"keys":               "mnemo keys create --namespaces a,b --role read|write|admin [--clearance N] [--name LABEL] | keys list | keys revoke ID",
	"keys create":        "mnemo keys create --namespaces a,b --role read|write|admin|metrics [--clearance N] [--name LABEL]",
	"keys list":          "mnemo keys list",
	"keys revoke":        "mnemo keys revoke ID",
	"loadtest":           "mnemo loadtest [flags] URL",
	"orchestrate":        "mnemo orchestrate --tracker file|github|plane [--tasks FILE | --github-repo O/N | --plane-workspace S --plane-project ID] [--once | --every D] [--dry-run]",
	"serve":              "mnemo serve [--addr 127.0.0.1:7077] [flags]",
	"mcp":                "mnemo mcp",
	"tune":               "mnemo tune [--since TIME] [--until TIME] [--dry-run] | tune history | tune rollback N",
	"tune history":       "mnemo tune history",
	"tune rollback":      "mnemo tune rollback N",
	"bench locomo":       "mnemo bench locomo --data PATH [flags]",
	"bench perf":         "mnemo bench perf [--quick]",
	"prompts stats":      "mnemo prompts stats [--repo PATH] [--json] [--top N]",
	"hook prompt":        "mnemo hook prompt [--capture REPO] [flags] < hook-event.json",
	"hook session-start": "mnemo hook session-start [flags] < hook-event.json",
}

// globalFlagNames are the flags every command takes (see app.globalFlags).
var globalFlagNames = map[string]bool{"db": true, "namespace": true, "json": true, "server": true, "api-key": true}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

// writeUsage writes the help of the command or subcommand name: its usage
// line, what it does (the command's summary), and its own flags (fs may be
// nil).
func writeUsage(w io.Writer, name, summary string, fs *flag.FlagSet) {
	syn, ok := synopses[name]
	if !ok {
		syn = "mnemo " + name + " [flags]"
	}
	fmt.Fprintf(w, "usage: %s\n", syn)
	if summary != "" {
		fmt.Fprintf(w, "\n%s\n", summary)
	}
	if fs != nil {
		own := flag.NewFlagSet(name, flag.ContinueOnError)
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			if globalFlagNames[f.Name] {
				return
			}
			own.Var(f.Value, f.Name, f.Usage)
			own.Lookup(f.Name).DefValue = f.DefValue
			n++
		})
		if n > 0 {
			fmt.Fprintf(w, "\nflags:\n")
			own.SetOutput(w)
			own.PrintDefaults()
		}
	}
	fmt.Fprintln(w, "\nglobal flags: --db PATH|URL, --namespace NS, --json, --server URL, --api-key KEY (see 'mnemo help')")
}

// commandHelp prints the help of command name to a.stdout: a command
// that parses flags prints its own (see parseFlags); one with
// subcommands, or none, gets its usage line and summary.
func (a *app) commandHelp(ctx context.Context, name string, cmd command) int {
	out := a.stdout
	if cmd.raw != nil {
		// Raw commands print their usage on stderr: here it is the answer.
		return cmd.raw(ctx, []string{"--help"}, strings.NewReader(""), out, out)
	}
	a.name, a.summary, a.helpOnly, a.helpOut = name, cmd.summary, true, out
	a.stdout, a.stderr = io.Discard, io.Discard
	err := cmd.run(ctx, a, nil)
	_ = a.close()
	if !a.helpShown {
		writeUsage(out, name, cmd.summary, nil)
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) && a.helpShown {
		return 1
	}
	return 0
}

// showFlagsHelp prints fs's usage on stdout and returns flag.ErrHelp, so
// that the command does nothing else.
func (a *app) showFlagsHelp(fs *flag.FlagSet) error {
	writeUsage(a.helpOut, fs.Name(), a.summary, fs)
	a.helpShown = true
	return flag.ErrHelp
}

// usage writes the general help: every command with its summary, the
// global flags and the environment.
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
