package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/server"
)

func cmdServe(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:7077", "listen address HOST:PORT (a non-loopback address needs API keys)")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	maxBody := fs.Int64("max-body", 4<<20, "largest JSON request body in bytes (larger: 413)")
	maxImport := fs.Int64("max-import", 256<<20, "largest JSONL import body in bytes")
	rate := fs.String("rate", "0", "requests per key (per client IP without keys), e.g. 50/s or 600/m; 0 = unlimited")
	burst := fs.Int("burst", 0, "rate-limit burst (default 2× the per-second rate)")
	expireEvery := fs.Duration("expire-every", 24*time.Hour, "archive unimportant, unused records (importance < 0.1, idle 120 days; restorable) this often; 0 = never")
	noConsole := fs.Bool("no-console", false, "do not serve the web console at /")
	semanticEvery := fs.Duration("semantic-every", 10*time.Minute, "retrain the semantic channel learned from the store for every namespace grown by a quarter since its model, this often; 0 = never")
	episodesEvery := fs.Duration("episodes-every", time.Hour, "write or refresh the episode of every thread quiet for an hour with at least 4 records, and distil recurring corrections into practitioner patterns, this often; 0 = never")
	extractEvery := fs.Duration("extract-every", 10*time.Minute, "extract decisions, rules, preferences, procedures, dated facts and open questions from the messages of every thread that extraction has not read yet (with the chat model when MNEMO_CHAT_URL is set, else the rules), this often; 0 = never")
	consolidateEvery := fs.Duration("consolidate-every", 6*time.Hour, "merge the near-duplicates of every namespace written by an import or --no-dedup, as on write (restorable), this often; 0 = never")
	retention := fs.String("retention", "0", "with expiry, also purge records forgotten or archived longer ago than this (days, e.g. 365d); 0 = keep them")
	allowedHosts := fs.String("allowed-hosts", "", "comma-separated Host names accepted besides localhost and the server's addresses (.example.com: any subdomain; *: any)")
	allowedOrigins := fs.String("allowed-origins", "", "comma-separated browser origins (scheme://host[:port]) allowed to call the server, with CORS")
	bodyTimeout := fs.Duration("body-timeout", 30*time.Second, "longest time to receive a JSON request body (imports: 5 minutes)")
	maxExports := fs.Int("max-exports", 2, "exports one key runs at once (more: 429)")
	runLoops := fs.Bool("loops", false, "run the loops in the background for every namespace: warm every --warm-every, cold when the validation score falls below --threshold (checked every --cold-every)")
	warmEvery := fs.Duration("warm-every", 24*time.Hour, "with --loops: time between warm runs of a namespace")
	coldEvery := fs.Duration("cold-every", time.Hour, "with --loops: how often the cold loop checks whether it is due")
	approval := fs.String("approval", "auto", "with --loops: auto applies a patch the Mentor accepts; manual queues it for `mnemo loop approve`")
	threshold := fs.Float64("threshold", loops.DefaultThreshold, "with --loops: the validation score below which the cold loop repairs")
	indexMemory := fs.String("index-memory", "", "bound the estimated memory of the in-memory search indexes, e.g. 256MiB or 1GiB: past it the least recently read namespaces are dropped, and loaded again on their next read (env MNEMO_INDEX_MEMORY; default no bound)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("serve takes no arguments")
	}
	if a.server != "" {
		return usagef("serve opens the database file: drop --server")
	}
	if a.indexMemory, err = indexMemoryBound(*indexMemory, a.env); err != nil {
		return err
	}
	log, err := newLogger(a.stderr, *logFormat, *logLevel)
	if err != nil {
		return err
	}
	perSec, err := parseRate(*rate)
	if err != nil {
		return err
	}
	if *maxBody <= 0 || *maxImport <= 0 {
		return usagef("--max-body and --max-import must be positive")
	}
	if *expireEvery < 0 || (*expireEvery > 0 && *expireEvery < time.Minute) {
		return usagef("--expire-every must be 0 (never) or at least a minute")
	}
	if *semanticEvery < 0 || (*semanticEvery > 0 && *semanticEvery < time.Minute) {
		return usagef("--semantic-every must be 0 (never) or at least a minute")
	}
	if *episodesEvery < 0 || (*episodesEvery > 0 && *episodesEvery < time.Minute) {
		return usagef("--episodes-every must be 0 (never) or at least a minute")
	}
	if *extractEvery < 0 || (*extractEvery > 0 && *extractEvery < time.Minute) {
		return usagef("--extract-every must be 0 (never) or at least a minute")
	}
	if *consolidateEvery < 0 || (*consolidateEvery > 0 && *consolidateEvery < time.Minute) {
		return usagef("--consolidate-every must be 0 (never) or at least a minute")
	}
	if *runLoops && (*warmEvery < time.Minute || *coldEvery < time.Minute || (*approval != "auto" && *approval != "manual") ||
		!(*threshold > 0 && *threshold <= 1)) {
		return usagef("--warm-every and --cold-every must be at least a minute, --approval auto or manual, --threshold within (0, 1]")
	}
	keep, err := parseDays(*retention)
	if err != nil {
		return err
	}
	if keep != 0 && (keep < 24*time.Hour || *expireEvery == 0) {
		return usagef("--retention must be 0 or at least a day, and needs --expire-every")
	}
	a.intentModel = true
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	if err := server.CheckBind(ctx, *addr, a.store); err != nil {
		return err
	}
	if *bodyTimeout <= 0 || *maxExports <= 0 {
		return usagef("--body-timeout and --max-exports must be positive")
	}
	jobs := &jobBoard{}
	var runner *loops.Runner
	var loopMetrics func() map[string]loops.NamespaceMetrics
	if *runLoops {
		l := loops.New(svc)
		l.Manual, l.Threshold = *approval == "manual", *threshold
		runner = &loops.Runner{Loops: l, Caller: loopCaller, WarmEvery: *warmEvery, ColdEvery: *coldEvery, Log: log}
		loopMetrics = runner.Metrics
	}
	// The optional chat model writes the loops' paraphrase probes.
	chat, err := llm.FromEnv(a.env)
	if err != nil {
		return err
	}
	if runner != nil {
		runner.Loops.Intern.Model = chat
	}
	srv, err := server.New(server.Config{Service: svc, Keys: a.store, Logger: log, MaxBody: *maxBody, Jobs: jobs.list,
		MaxImportBody: *maxImport, Rate: perSec, Burst: *burst, Version: version,
		AllowedHosts: splitList(*allowedHosts), AllowedOrigins: splitList(*allowedOrigins),
		BodyTimeout: *bodyTimeout, MaxExports: *maxExports, NoConsole: *noConsole, Chat: chat, LoopMetrics: loopMetrics})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", *addr, err)
	}
	log.Info("database", "path", a.dbLabel)
	if a.indexMemory > 0 {
		log.Info("index memory bounded", "bytes", a.indexMemory)
	}
	go func() {
		// Load the namespaces' in-memory indexes now rather than on their
		// first queries; the server answers meanwhile.
		start := time.Now()
		n, err := svc.Warm(ctx)
		if err != nil {
			log.Warn("index warm-up stopped", "namespaces", n, "err", err)
			return
		}
		log.Info("indexes loaded", "namespaces", n, "ms", time.Since(start).Milliseconds())
	}()
	for _, j := range serveJobs(svc, a.extractor, jobPace{expire: *expireEvery, retention: keep, semantic: *semanticEvery,
		episodes: *episodesEvery, consolidate: *consolidateEvery, extract: *extractEvery}) {
		go background(ctx, log, jobs, j.name, j.first, j.every, j.run)
	}
	if runner != nil {
		go runner.Run(ctx)
	}
	return srv.Run(ctx, ln)
}

// loopCaller is who the server's loops run as: the administrator of the
// database, seeing every record (each namespace's loops read and change
// that namespace only).
var loopCaller = mnemo.Caller{Name: "loop", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}

// parseRate reads "N", "N/s" or "N/m" as requests per second.
func parseRate(s string) (float64, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	num, unit, _ := strings.Cut(s, "/")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, usagef("--rate %q is not N/s or N/m", s)
	}
	switch unit {
	case "", "s":
		return f, nil
	case "m":
		return f / 60, nil
	}
	return 0, usagef("--rate %q is not N/s or N/m", s)
}
