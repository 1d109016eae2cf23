package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/stats"
	"github.com/mnemo-dev/mnemo/internal/synth"
	"github.com/mnemo-dev/mnemo/postgres/pgtest"
)

// BenchmarkTwoServersScale is the figure of two servers on one PostgreSQL
// database holding many namespaces, each server's indexes bounded: it
// loads scaleNamespaces namespaces of scaleRecords synthetic records each
// (synth.Workload, batched writes of 500 with the hash embedder, dedup off),
// starts two real `mnemo serve` processes with --index-memory 256MiB (the
// background jobs off), then
//
//   - runs digests (a budget of 2,000 tokens, the workload's queries) in
//     uniformly random namespaces through both servers in turn, and reports
//     their p50/p95/p99 and each server's RSS (VmRSS, peak VmHWM);
//   - writes visibilityWrites records, each through A to a random
//     namespace, and after each asks B to recall it until it does: the
//     cross-server visibility lag, p50/p99/max.
//
// Run it alone and once (it loads a million records):
//
//	go test ./cmd/mnemo -run '^$' -bench TwoServersScale -benchtime 1x -timeout 60m -v
//
// MNEMO_SCALE_NAMESPACES and MNEMO_SCALE_RECORDS change the size (a
// smaller variant for trying it out; its figures are not the figure's),
// MNEMO_SCALE_INDEX_MEMORY the bound, MNEMO_SCALE_DIGESTS the digests per
// server.
func BenchmarkTwoServersScale(b *testing.B) {
	nsCount := scaleEnv(b, "MNEMO_SCALE_NAMESPACES", 1000)
	perNS := scaleEnv(b, "MNEMO_SCALE_RECORDS", 1000)
	digests := scaleEnv(b, "MNEMO_SCALE_DIGESTS", 500)
	bound := os.Getenv("MNEMO_SCALE_INDEX_MEMORY")
	if bound == "" {
		bound = "256MiB"
	}
	const visibilityWrites = 200
	began := time.Now()
	// Progress and figures go to stderr as they come (a benchmark's log is
	// printed only at its end): the load takes a while.
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "[%6.1f s] "+format+"\n", append([]any{time.Since(began).Seconds()}, args...)...)
	}
	base, stop, err := pgtest.Start()
	pgtest.SkipIf(b, err)
	b.Cleanup(stop)
	db := pgtest.NewDatabase(b, base)
	nsName := func(i int) string { return fmt.Sprintf("scale%04d", i) }

	// Load, two writers at a time, in one process whose own indexes are
	// bounded too.
	start := time.Now()
	loaded := scaleLoad(b, db, nsCount, perNS, nsName, logf)
	loadTime := time.Since(start)
	logf("loaded %d namespaces x %d records (%d) in %.1f s: %.0f records/s",
		nsCount, perNS, loaded, loadTime.Seconds(), float64(loaded)/loadTime.Seconds())
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	if _, err := conn.Exec(context.Background(), `VACUUM ANALYZE records`); err != nil {
		b.Fatal(err)
	}
	var dbBytes int64
	if err := conn.QueryRow(context.Background(), `SELECT pg_database_size(current_database())`).Scan(&dbBytes); err != nil {
		b.Fatal(err)
	}
	conn.Close(context.Background())
	logf("VACUUM ANALYZE records: %.1f s; database %d MiB", time.Since(t0).Seconds(), dbBytes>>20)

	names := make([]string, nsCount)
	for i := range names {
		names[i] = nsName(i)
	}
	admin := strings.TrimSpace(runCLI(b, db, "keys", "create", "--namespaces", strings.Join(names, ","), "--role", "admin"))
	off := []string{"--index-memory", bound, "--expire-every", "0", "--semantic-every", "0", "--episodes-every", "0",
		"--extract-every", "0", "--consolidate-every", "0"}
	t0 = time.Now()
	urlA, cmdA := startServeProc(b, db, off...)
	urlB, cmdB := startServeProc(b, db, off...)
	logf("both servers answering after %.2f s", time.Since(t0).Seconds())
	// Let the warm-ups (which stop once the bound is full) end: until
	// neither server's RSS grew by 2 MiB in 3 s (at most 5 minutes).
	t0 = time.Now()
	for prev := [2]int64{}; time.Since(t0) < 5*time.Minute; {
		time.Sleep(3 * time.Second)
		cur := [2]int64{procKiB(cmdA.Process.Pid, "VmRSS:"), procKiB(cmdB.Process.Pid, "VmRSS:")}
		if cur[0]-prev[0] < 2048 && cur[1]-prev[1] < 2048 {
			break
		}
		prev = cur
	}
	logf("warm-ups settled after %.1f s", time.Since(t0).Seconds())
	c := &scaleClient{http: &http.Client{Timeout: 30 * time.Second}, key: admin}
	rss := func(stage string) {
		for _, s := range []struct {
			name string
			cmd  *exec.Cmd
		}{{"A", cmdA}, {"B", cmdB}} {
			cur, peak := procKiB(s.cmd.Process.Pid, "VmRSS:"), procKiB(s.cmd.Process.Pid, "VmHWM:")
			logf("%s: server %s RSS %.0f MiB (peak %.0f MiB)", stage, s.name, float64(cur)/1024, float64(peak)/1024)
		}
	}
	rss("after the warm-up")

	b.ResetTimer()
	syn := synth.NewWorkload(7, time.Now())
	rng := rand.New(rand.NewPCG(7, 8))
	var lat [2][]time.Duration
	for i := range 2 * digests {
		srv := i % 2
		url := []string{urlA, urlB}[srv]
		body, _ := json.Marshal(map[string]any{"task_description": syn.Query(), "token_budget": 2000})
		t0 := time.Now()
		c.post(b, url+"/v1/digest", nsName(rng.IntN(nsCount)), string(body))
		lat[srv] = append(lat[srv], time.Since(t0))
	}
	all := append(slices.Clone(lat[0]), lat[1]...)
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"A", lat[0]}, {"B", lat[1]}, {"both", all}} {
		logf("digests through %s (%d, random namespaces): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms",
			s.name, len(s.d), pctMS(s.d, 0.5), pctMS(s.d, 0.95), pctMS(s.d, 0.99))
	}
	rss("after the digests")

	var lags []time.Duration
	recalls := 0
	for i := range visibilityWrites {
		ns := nsName(rng.IntN(nsCount))
		word := fmt.Sprintf("okapi%dx", i)
		body, _ := json.Marshal(map[string]any{"text": "The " + word + " paddock gate is checked every evening", "no_dedup": true})
		var rec struct{ ID string }
		if err := json.Unmarshal([]byte(c.post(b, urlA+"/v1/records", ns, string(body))), &rec); err != nil || rec.ID == "" {
			b.Fatalf("write on A: %v", err)
		}
		q, _ := json.Marshal(map[string]any{"query": word + " paddock gate", "k": 10})
		start := time.Now()
		for {
			recalls++
			if strings.Contains(c.post(b, urlB+"/v1/recall", ns, string(q)), `"`+rec.ID+`"`) {
				break
			}
			if time.Since(start) > 5*time.Second {
				b.Fatalf("write %d not visible on B after 5 s", i)
			}
		}
		lags = append(lags, time.Since(start))
	}
	b.StopTimer()
	logf("visibility lag, a write through A recalled through B (%d writes, %.2f recalls a write): p50 %.1f ms, p99 %.1f ms, max %.1f ms",
		len(lags), float64(recalls)/float64(len(lags)), pctMS(lags, 0.5), pctMS(lags, 0.99), pctMS(lags, 1))
	rss("at the end")
	b.ReportMetric(float64(loaded)/loadTime.Seconds(), "load-records/s")
	b.ReportMetric(pctMS(all, 0.5), "digest-p50-ms")
	b.ReportMetric(pctMS(all, 0.95), "digest-p95-ms")
	b.ReportMetric(pctMS(all, 0.99), "digest-p99-ms")
	b.ReportMetric(pctMS(lags, 0.5), "lag-p50-ms")
	b.ReportMetric(pctMS(lags, 0.99), "lag-p99-ms")
	b.ReportMetric(float64(procKiB(cmdA.Process.Pid, "VmRSS:"))/1024, "A-RSS-MiB")
	b.ReportMetric(float64(procKiB(cmdB.Process.Pid, "VmRSS:"))/1024, "B-RSS-MiB")
}

// scaleLoad writes nsCount namespaces of perNS synthetic records into db
// through the engine (batched writes of 500), two namespaces at a time,
// and returns how many it wrote.
func scaleLoad(b *testing.B, db string, nsCount, perNS int, name func(int) string, logf func(string, ...any)) int64 {
	b.Helper()
	a := &app{db: db, env: os.Getenv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, indexMemory: 64 << 20}
	ctx := context.Background()
	svc, err := a.service(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer a.close()
	var next, written atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	progress := time.Now()
	var mu sync.Mutex
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= nsCount {
					return
				}
				syn := synth.NewWorkload(uint64(i+1), time.Now())
				nctx := mnemo.WithCallerIn(ctx, a.caller(), name(i))
				for done := 0; done < perNS; done += 500 {
					recs := syn.Records(min(500, perNS-done))
					if _, err := svc.Remember(nctx, recs, mnemo.WriteOptions{Dedup: false}); err != nil {
						errs <- err
						return
					}
					written.Add(int64(len(recs)))
				}
				mu.Lock()
				if time.Since(progress) > 30*time.Second {
					progress = time.Now()
					logf("loading: %d records", written.Load())
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return written.Load()
}

// scaleClient sends requests to the servers with one key.
type scaleClient struct {
	http *http.Client
	key  string
}

// post sends body to url in namespace ns and returns the answer, failing
// on a status other than 200 or 201.
func (c *scaleClient) post(b testing.TB, url, ns, body string) string {
	b.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Mnemo-Namespace", ns)
	resp, err := c.http.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		b.Fatalf("POST %s in %s: %d %s", url, ns, resp.StatusCode, out)
	}
	return string(out)
}

// scaleEnv reads a positive integer from the environment, def when unset.
func scaleEnv(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q is not a positive integer", name, v)
	}
	return n
}

// procKiB reads a field of /proc/PID/status in KiB (0 when unreadable).
func procKiB(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte(field)); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// pctMS returns the p-quantile of ds in milliseconds.
func pctMS(ds []time.Duration, p float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(stats.Percentile(s, p).Microseconds()) / 1000
}
