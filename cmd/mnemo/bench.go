package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mnemo-dev/mnemo/internal/bench"
	"github.com/mnemo-dev/mnemo/thesaurus"
	"github.com/mnemo-dev/mnemo/tokenize"
)

const benchUsage = `usage:
  mnemo bench locomo --data PATH [--json] [--embedder hash|openai] [--preset P] [--k 5,10,20] [--budgets 500,1000,2000]
  mnemo bench perf [--quick] [--json] [--sizes 1000,10000,100000] [--queries N] [--check-sizes 1000,20000] [--check-writes N] [--cpuprofile FILE]
  mnemo bench writes [--json] [--records 100000] [--window 1000]
  mnemo bench peer [--json] [--n 500] [--m 200] [--data PATH] [--conversations N] [--peer-dir bench/peer]`

func cmdBench(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(a.stdout, benchUsage)
		if len(args) == 0 {
			return usagef("bench needs a subcommand: locomo, perf, writes or peer")
		}
		return nil
	}
	switch args[0] {
	case "locomo":
		return benchLoCoMo(ctx, a, args[1:])
	case "perf":
		return benchPerf(ctx, a, args[1:])
	case "writes":
		return benchWrites(ctx, a, args[1:])
	case "peer":
		return benchPeer(ctx, a, args[1:])
	}
	return usagef("unknown bench %q (want locomo, perf, writes or peer)", args[0])
}

// intList parses "5,10,20".
func intList(s, what string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, usagef("%s %q is not a list of positive integers", what, s)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, usagef("%s is empty", what)
	}
	return out, nil
}

// every passes on about steps calls of a progress callback (and the last),
// so that plain-line progress does not flood a log.
func every(cb func(done, total int), steps int) func(done, total int) {
	return func(done, total int) {
		if done == total || total < steps || done%(total/steps) == 0 {
			cb(done, total)
		}
	}
}

// locomoPath is --data, else $MNEMO_LOCOMO.
func (a *app) locomoPath(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return a.env("MNEMO_LOCOMO")
}

func benchLoCoMo(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("bench locomo", flag.ContinueOnError)
	data := fs.String("data", "", "path of locomo10.json (env MNEMO_LOCOMO)")
	embedder := fs.String("embedder", "", "hash, openai or static:DIR (default: $MNEMO_EMBEDDER, else hash); openai reads MNEMO_EMBED_URL, MNEMO_EMBED_MODEL, MNEMO_EMBED_KEY")
	preset := fs.String("preset", "", "scoring preset of the hybrid method: default, aura or alma (default $MNEMO_PRESET)")
	ks := fs.String("k", "5,10,20", "recall@k cut-offs")
	budgets := fs.String("budgets", "500,1000,2000", "token budgets of recall within budget")
	noLearned := fs.Bool("no-learned", false, "leave out the semantic channel learned from the store")
	noThesaurus := fs.Bool("no-thesaurus", false, "leave out query expansion from the installed thesauri")
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	path := a.locomoPath(*data)
	if path == "" {
		return usagef("bench locomo needs --data PATH (locomo10.json from github.com/snap-research/locomo, data/locomo10.json)")
	}
	kl, err := intList(*ks, "--k")
	if err != nil {
		return err
	}
	bl, err := intList(*budgets, "--budgets")
	if err != nil {
		return err
	}
	switch *embedder {
	case "", "hash", "openai":
	default:
		if !strings.HasPrefix(*embedder, "static:") {
			return usagef("--embedder %q is unknown (want hash, openai or static:DIR)", *embedder)
		}
	}
	if *embedder != "" {
		env := a.env
		a.env = func(k string) string {
			if k == "MNEMO_EMBEDDER" {
				return *embedder
			}
			return env(k)
		}
	}
	emb, err := a.embedder()
	if err != nil {
		return err
	}
	tok, err := tokenize.New(a.env("MNEMO_TOKENIZER"))
	if err != nil {
		return err
	}
	if *preset == "" {
		*preset = a.env("MNEMO_PRESET")
	}
	ds, err := bench.LoadLoCoMo(path)
	if err != nil {
		return err
	}
	opt := bench.LoCoMoOptions{Embedder: emb, Tokenizer: tok, Preset: *preset, Ks: kl, Budgets: bl,
		NoLearned: *noLearned, Progress: every(progress(a.stderr, "locomo questions"), 50)}
	if !*noThesaurus {
		th, err := thesaurus.Load(a.thesaurusConfig())
		if err != nil {
			fmt.Fprintln(a.stderr, "mnemo: warning:", err)
		}
		defer th.Close()
		opt.Thesaurus = th
	}
	rep, err := bench.RunLoCoMo(ctx, ds, opt)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(rep)
	}
	return rep.WriteMarkdown(a.stdout)
}

func benchPerf(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("bench perf", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "1k and 10k records only, 30 queries (for CI)")
	perfNoLearned := fs.Bool("no-learned", false, "leave out the semantic channel learned from the store")
	perfNoThesaurus := fs.Bool("no-thesaurus", false, "leave out query expansion from the installed thesauri")
	sizes := fs.String("sizes", "", "store sizes to measure, ascending (default 1000,10000,100000)")
	records := fs.Int("records", 0, "one store size to measure: `N` records (--sizes N)")
	queries := fs.Int("queries", 0, "queries per size (default 200, quick 30)")
	checkSizes := fs.String("check-sizes", "", "store sizes of the single-write check (default 1000,20000; quick 1000,5000)")
	checkWrites := fs.Int("check-writes", 0, "single writes timed at each size of the check, after as many untimed (default 250, quick 200)")
	inFlight := fs.Int("in-flight", 1, "batched writes of the load kept going at once (1: one after another)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the queries at the largest size to `FILE` (operations labelled op=digest, recall, floor)")
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	if *inFlight < 1 || *inFlight > 16 {
		return usagef("--in-flight wants 1 to 16 writes")
	}
	opt := bench.PerfOptions{Quick: *quick, Queries: *queries, InFlight: *inFlight}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		opt.CPUProfile = f
	}
	switch {
	case *records < 0:
		return usagef("--records wants a positive number")
	case *records > 0 && *sizes != "":
		return usagef("--records and --sizes both give the sizes: use one")
	case *records > 0:
		*sizes = strconv.Itoa(*records)
	}
	if *sizes != "" {
		sl, err := intList(*sizes, "--sizes")
		if err != nil {
			return err
		}
		opt.Sizes = sl
	}
	if *checkSizes != "" {
		sl, err := intList(*checkSizes, "--check-sizes")
		if err != nil {
			return err
		}
		if len(sl) != 2 {
			return usagef("--check-sizes wants two sizes, small and large")
		}
		opt.WriteCheck.Small, opt.WriteCheck.Large = sl[0], sl[1]
	}
	if *checkWrites < 0 {
		return usagef("--check-writes must be positive")
	}
	opt.WriteCheck.Writes = *checkWrites
	stage := ""
	var cb func(int, int)
	opt.Progress = func(s string, done, total int) {
		if s != stage {
			stage, cb = s, progress(a.stderr, s)
		}
		every(cb, 10)(done, total)
	}
	if !*perfNoThesaurus {
		th, err := thesaurus.Load(a.thesaurusConfig())
		if err != nil {
			fmt.Fprintln(a.stderr, "mnemo: warning:", err)
		}
		defer th.Close()
		opt.Thesaurus = th
	}
	opt.NoLearned = *perfNoLearned
	rep, err := bench.RunPerf(ctx, opt)
	if err != nil {
		return err
	}
	if a.json {
		err = a.printJSON(rep)
	} else {
		err = rep.WriteMarkdown(a.stdout)
	}
	if err == nil && rep.WriteCheck.Failed() {
		c := rep.WriteCheck
		err = fmt.Errorf("single writes at %d records are %.1f× (p50) and %.1f× (p95) as slow as at %d: over the limit of %.0f×",
			c.Large, c.P50Ratio, c.P95Ratio, c.Small, c.MaxRatio)
	}
	return err
}

func benchWrites(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("bench writes", flag.ContinueOnError)
	records := fs.Int("records", 100000, "records written one at a time into a new store")
	window := fs.Int("window", 1000, "records per reported window")
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	if *records <= 0 || *window <= 0 {
		return usagef("--records and --window must be positive")
	}
	cb := progress(a.stderr, "single writes")
	rep, err := bench.RunWrites(ctx, bench.WritesOptions{Records: *records, Window: *window,
		Progress: func(_ string, done, total int) { every(cb, 20)(done, total) }})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(rep)
	}
	return rep.WriteMarkdown(a.stdout)
}

func benchPeer(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("bench peer", flag.ContinueOnError)
	n := fs.Int("n", 500, "observations written to each server")
	m := fs.Int("m", 200, "search queries sent to each server")
	data := fs.String("data", "", "locomo10.json: also compare LoCoMo recall@10 (env MNEMO_LOCOMO)")
	convs := fs.Int("conversations", 0, "LoCoMo conversations to use (0 = all)")
	peerDir := fs.String("peer-dir", "bench/peer", "directory of the installed peer (scripts/bench-peer.sh)")
	node := fs.String("node", "node", "node executable")
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the mnemo executable to run `mnemo mcp`: %w", err)
	}
	opt := bench.PeerOptions{PeerDir: *peerDir, Node: *node, Mnemo: self, N: *n, M: *m, Conversations: *convs}
	if path := a.locomoPath(*data); path != "" {
		ds, err := bench.LoadLoCoMo(path)
		if err != nil {
			return err
		}
		opt.Data = ds
	}
	stage := ""
	var cb func(int, int)
	opt.Progress = func(s string, done, total int) {
		if s != stage {
			stage, cb = s, progress(a.stderr, "peer "+s)
		}
		every(cb, 10)(done, total)
	}
	rep, err := bench.RunPeer(ctx, opt)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(rep)
	}
	return rep.WriteMarkdown(a.stdout)
}
