package main

import (
	"context"
	"io"
)

// command is one subcommand. Commands that need the store receive an *app.
type command struct {
	summary string
	run     func(ctx context.Context, a *app, args []string) error
	// raw commands manage their own flags, I/O and exit code (hooks must
	// never fail their caller).
	raw func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// read commands only read the store: on a database file that does not
	// exist they say so instead of creating it.
	read bool
	// longRunning commands (the servers, the load generator) run long and
	// busy: the garbage collector runs half as often.
	longRunning bool
	// noSignals commands keep the default disposition of SIGINT and
	// SIGTERM (the process ends) instead of cancelling their context: a
	// hook that finishes in milliseconds saves starting the signal
	// watcher's goroutine and thread.
	noSignals bool
	// short commands answer one question and exit: the garbage collector
	// waits (shortCollector).
	short bool
}

// commands are mnemo's subcommands, by name; each lives in the file of its
// name (keys create, list and revoke in keys.go, forget and restore in
// forget.go). The help lists them in the order of their names.
var commands = map[string]command{
	"adr":         {summary: "import a folder of architecture decision records (Nygard, MADR) as decisions; again to sync", run: cmdADR},
	"analyze":     {summary: "coding-agent session cost analysis (analyze sessions [DIR])", raw: analyzeRaw},
	"bench":       {summary: "evaluation: bench locomo | perf | writes | peer", run: cmdBench},
	"capture":     {summary: "Claude Code UserPromptSubmit hook: capture the prompt into a bare git repository", raw: runCapture, noSignals: true},
	"config":      {summary: "the namespace's scoring configuration, versioned (config show|history|diff A B|rollback N|apply FILE)", run: cmdConfig},
	"consolidate": {summary: "merge near-duplicates written by an import or --no-dedup, as on write (restorable)", run: cmdConsolidate},
	"corrections": {summary: "the correction signal: how often missing context caused an operator correction", run: cmdCorrections, read: true},
	"demo":        {summary: "load an example mission into a temporary store and print a digest", run: cmdDemo},
	"digest":      {summary: "token-budgeted context for a task (workflow_memory_query)", run: cmdDigest, read: true, short: true},
	"edit":        {summary: "change fields of a record", run: cmdEdit},
	"episode":     {summary: "summarise a thread (conversation) into its episode record; again to refresh it", run: cmdEpisode},
	"expire":      {summary: "archive unimportant, unused records (restorable)", run: cmdExpire},
	"export":      {summary: "export the namespace as JSONL", run: cmdExport, read: true},
	"forget":      {summary: "forget a record (restorable)", run: cmdForget},
	"git":         {summary: "import a repository's commit history as workflow events (again: only new commits)", run: cmdGit},
	"halflife":    {summary: "print the resolved half-life of a scope", run: cmdHalflife},
	"handoff":     {summary: "the brief for an incoming operator: typical corrections, attention areas, decisions, open questions, escalations", run: cmdHandoff, read: true, short: true},
	"history":     {summary: "a record's audit history", run: cmdHistory, read: true},
	"hook":        {summary: "Claude Code hooks: session-start and prompt digests", run: cmdHook, short: true},
	"import":      {summary: "import JSONL records", run: cmdImport},
	"keys":        {summary: "manage API keys of the server: create, list, revoke", run: cmdKeys},
	"list":        {summary: "list records", run: cmdList, read: true},
	"loadtest":    {summary: "HTTP load generator: digest (and write) latency at several client counts", run: cmdLoadtest, longRunning: true},
	"loop":        {summary: "the loops that keep memory good (loop warm|cold [--once] | status | approve ID | reject ID | revert)", run: cmdLoop},
	"mcp":         {summary: "serve MCP over stdio (for Claude Code and other MCP clients)", run: cmdMCP, longRunning: true},
	"orchestrate": {summary: "push mode: refresh LONG-TERM tasks of a task file, GitHub issues or Plane work items in the background (a process of its own)", run: cmdOrchestrate},
	"principles":  {summary: "list the principle registry: each principle with the decisions that apply it", run: cmdPrinciples, read: true},
	"prompts":     {summary: "prompt corpus analytics (prompts stats --repo PATH)", raw: promptsRaw},
	"purge":       {summary: "delete for good the records forgotten or archived longer ago than --older-than", run: cmdPurge},
	"recall":      {summary: "rank memories for a query, with factor breakdowns", run: cmdRecall, read: true, short: true},
	"reembed":     {summary: "rebuild every vector with the configured embedder", run: cmdReembed},
	"remember":    {summary: "store a memory", run: cmdRemember},
	"restore":     {summary: "restore a forgotten record", run: cmdRestore},
	"score":       {summary: "compute reference scores from JSONL on stdin", run: cmdScore},
	"serve":       {summary: "serve the REST API, MCP over HTTP (/mcp), /metrics and health checks", run: cmdServe, longRunning: true},
	"show":        {summary: "show one record", run: cmdShow, read: true, short: true},
	"threads":     {summary: "list the namespace's threads (conversations), most recently active first", run: cmdThreads, read: true},
	"tune":        {summary: "tune the scoring weights on the namespace's correction triples, with guardrails (tune history | tune rollback N)", run: cmdTune},
	"version":     {summary: "print the version", run: cmdVersion},
}
