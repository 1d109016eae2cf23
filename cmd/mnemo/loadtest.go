package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/client"
	"github.com/mnemo-dev/mnemo/internal/stats"
	"github.com/mnemo-dev/mnemo/internal/synth"
	"github.com/mnemo-dev/mnemo/server"
)

// ltTasks frame the digest tasks the load test cycles through, each
// around one of the workload's queries: the frames' words bring the
// intents (why, how-to, recent, general) an agent's tasks carry.
var ltTasks = []string{"plan the %s migration", "handle a %s breach", "prepare the Friday deploy of %s",
	"why did we choose %s", "how do I roll back %s", "what did we decide about %s yesterday",
	"review %s before the quarterly audit", "inspect %s", "fix the %s outage", "rotate on-call for %s"}

// ltWorkload is the load test's synthetic workload, the benchmarks' own
// (internal/synth): its stream have+1 the records loaded into a store of
// have, stream 0 the digest tasks, stream 1,000,000+row the records row
// writes, so all share one vocabulary and none repeats another's text.
func ltWorkload() *synth.Workload { return synth.NewWorkload(1, time.Now()) }

func cmdLoadtest(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	records := fs.Int("records", 10000, "records in the store (loaded when the store has fewer)")
	clientsFlag := fs.String("clients", "1,8,32", "comma-separated concurrent client counts")
	requests := fs.Int("requests", 1000, "digest requests per client count")
	budget := fs.Int("budget", mnemo.DefaultTokenBudget, "token budget of each digest")
	target := fs.String("target", "", "URL of a running server to load instead of an in-process one over --db")
	mixFlag := fs.String("mix", "100:0", "share of digests to single writes (POST /v1/records), read:write, e.g. 90:10")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("loadtest takes no arguments")
	}
	reads, writes, err := parseMix(*mixFlag)
	if err != nil {
		return err
	}
	var counts []int
	for _, s := range strings.Split(*clientsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return usagef("--clients %q is not a list of positive integers", *clientsFlag)
		}
		counts = append(counts, n)
	}
	base := *target
	if base == "" {
		if a.db == "" && a.env("MNEMO_DB") == "" {
			dir, err := os.MkdirTemp("", "mnemo-loadtest-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			a.db = filepath.Join(dir, "load.db")
		}
		svc, err := a.service(ctx)
		if err != nil {
			return err
		}
		have, err := a.store.Count(ctx, a.ns())
		if err != nil {
			return err
		}
		if have < *records {
			start := time.Now()
			recs := ltWorkload().Stream(uint64(have) + 1).Records(*records - have)
			bar := progress(a.stderr, "loaded")
			for i := 0; i < len(recs); i += 1000 {
				part := recs[i:min(i+1000, len(recs))]
				if _, err := svc.Remember(mnemo.WithCallerIn(ctx, a.caller(), a.ns()), part, mnemo.WriteOptions{}); err != nil {
					return err
				}
				bar(i+len(part), len(recs))
			}
			fmt.Fprintf(a.stderr, "loaded %d records in %s\n", len(recs), time.Since(start).Round(time.Millisecond))
		}
		srv, err := server.New(server.Config{Service: svc, Keys: a.store})
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		sctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- srv.Run(sctx, ln) }()
		defer func() { stop(); <-done }()
		base = "http://" + ln.Addr().String()
	}
	maxC := slices.Max(counts)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: maxC, MaxConnsPerHost: maxC}, Timeout: time.Minute}
	c, err := client.New(base, client.Options{APIKey: a.apiKey(), Namespace: a.namespace, HTTP: hc})
	if err != nil {
		return err
	}
	tasks := make([]string, len(ltTasks))
	work := ltWorkload()
	qs := work.Stream(0)
	for i, f := range ltTasks {
		tasks[i] = fmt.Sprintf(f, qs.Query())
	}
	// Warm up: caches, connections, the in-memory vector index.
	for i := range 20 {
		if _, err := c.Digest(ctx, mnemo.DigestRequest{Task: tasks[i%len(tasks)], Budget: *budget}); err != nil {
			return err
		}
	}
	// The timed requests are plain POSTs whose answer is read to the end but
	// not decoded: on a shared 2-core machine, decoding 50 KB of JSON per
	// request in the load generator would take CPU from the server measured.
	bodies := make([][]byte, len(tasks))
	for i, task := range tasks {
		bodies[i], _ = json.Marshal(mnemo.DigestRequest{Task: task, Budget: *budget})
	}
	if writes == 0 {
		fmt.Fprintf(a.stdout, "digest over HTTP, %d records, budget %d, %d requests per row (%s)\n", *records, *budget, *requests, base)
		fmt.Fprintf(a.stdout, "%8s %10s %10s %10s %10s %10s\n", "clients", "p50_ms", "p95_ms", "p99_ms", "max_ms", "req/s")
	} else {
		fmt.Fprintf(a.stdout, "%d%% digests (budget %d) and %d%% single writes over HTTP, %d records to start with, %d requests per row (%s)\n",
			reads*100/(reads+writes), *budget, writes*100/(reads+writes), *records, *requests, base)
		fmt.Fprintf(a.stdout, "%8s %7s %6s %10s %10s %10s %10s %10s\n", "clients", "op", "count", "p50_ms", "p95_ms", "p99_ms", "max_ms", "req/s")
	}
	// Request i is a write when the running share of writes passes a whole
	// number there, which spreads the writes evenly over the requests.
	isWrite := func(i int) bool { return (i+1)*writes/(reads+writes) > i*writes/(reads+writes) }
	for row, n := range counts {
		// Records written by this row: new texts (a seed of its own), so
		// few are merged as near-duplicates.
		var recs [][]byte
		if writes > 0 {
			for _, r := range work.Stream(uint64(1_000_000 + row)).Records(*requests*writes/(reads+writes) + 1) {
				b, _ := json.Marshal(r)
				recs = append(recs, b)
			}
		}
		lat := [2][]time.Duration{}
		var mu sync.Mutex
		var firstErr error
		next := make(chan int)
		var wg sync.WaitGroup
		start := time.Now()
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					op, t0 := 0, time.Now()
					var err error
					if isWrite(i) {
						op = 1
						err = rawPost(ctx, hc, base+"/v1/records", a.apiKey(), a.namespace, recs[(i*writes/(reads+writes))%len(recs)])
					} else {
						err = rawPost(ctx, hc, base+"/v1/digest", a.apiKey(), a.namespace, bodies[i%len(bodies)])
					}
					d := time.Since(t0)
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = err
					}
					lat[op] = append(lat[op], d)
					mu.Unlock()
				}
			}()
		}
		for i := range *requests {
			next <- i
		}
		close(next)
		wg.Wait()
		wall := time.Since(start)
		if firstErr != nil {
			return firstErr
		}
		ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
		for op, l := range lat {
			if len(l) == 0 {
				continue
			}
			slices.Sort(l)
			if writes == 0 {
				fmt.Fprintf(a.stdout, "%8d %10s %10s %10s %10s %10.0f\n", n, ms(stats.Percentile(l, 0.50)), ms(stats.Percentile(l, 0.95)),
					ms(stats.Percentile(l, 0.99)), ms(l[len(l)-1]), float64(len(l))/wall.Seconds())
				continue
			}
			fmt.Fprintf(a.stdout, "%8d %7s %6d %10s %10s %10s %10s %10.0f\n", n, [2]string{"digest", "write"}[op], len(l),
				ms(stats.Percentile(l, 0.50)), ms(stats.Percentile(l, 0.95)), ms(stats.Percentile(l, 0.99)), ms(l[len(l)-1]), float64(len(l))/wall.Seconds())
		}
	}
	return nil
}

// parseMix parses --mix "read:write" into its two shares.
func parseMix(s string) (reads, writes int, err error) {
	r, w, ok := strings.Cut(s, ":")
	if ok {
		reads, err = strconv.Atoi(strings.TrimSpace(r))
		if err == nil {
			writes, err = strconv.Atoi(strings.TrimSpace(w))
		}
	}
	if !ok || err != nil || reads < 0 || writes < 0 || reads+writes == 0 {
		return 0, 0, usagef("--mix %q is not read:write, two shares such as 90:10", s)
	}
	return reads, writes, nil
}

// rawPost posts one request (a digest or a record) and reads the whole
// answer; any status but 200 or 201 is an error.
func rawPost(ctx context.Context, hc *http.Client, url, key, ns string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if ns != "" {
		req.Header.Set("Mnemo-Namespace", ns)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST %s: HTTP %d", url, resp.StatusCode)
	}
	return nil
}
