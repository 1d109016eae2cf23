package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/synth"
	"github.com/mnemo-dev/mnemo/server"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// restTarget is a store, its engine and the REST server over them, on a
// loopback port of this process.
type restTarget struct {
	st   *sqlite.Store
	svc  *engine.Service
	base string
	hc   *http.Client
	stop func()
	done chan error
}

// openREST opens the SQLite store at path with the hash embedder and
// serves it over REST on a loopback port.
func openREST(ctx context.Context, path string) (*restTarget, error) {
	st, err := sqlite.Open(ctx, sqlite.Options{Path: path})
	if err != nil {
		return nil, err
	}
	tok, err := tokenize.New("")
	if err != nil {
		st.Close()
		return nil, err
	}
	svc, err := engine.New(ctx, engine.Config{Store: st, Embedder: embed.NewCached(embed.NewHash(0), 1024), Tokenizer: tok})
	if err != nil {
		st.Close()
		return nil, err
	}
	t := &restTarget{st: st, svc: svc, done: make(chan error, 1)}
	srv, err := server.New(server.Config{Service: svc, Keys: st})
	if err != nil {
		t.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Close()
		return nil, err
	}
	sctx, stop := context.WithCancel(ctx)
	t.stop = stop
	go func() { t.done <- srv.Run(sctx, ln) }()
	t.base = "http://" + ln.Addr().String()
	t.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: time.Minute}
	return t, nil
}

// Close stops the server and closes the engine and the store.
func (t *restTarget) Close() {
	if t.stop != nil {
		t.stop()
		<-t.done
		t.hc.CloseIdleConnections()
	}
	t.svc.Close()
	t.st.Close()
}

// load writes n records of syn through the engine in batches of 500,
// without the near-duplicate check: the fast way to fill a store.
func (t *restTarget) load(ctx context.Context, ns string, syn *synth.Workload, n int) error {
	caller := mnemo.Caller{Name: "bench", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	for done := 0; done < n; {
		k := min(500, n-done)
		if _, err := t.svc.Remember(mnemo.WithCallerIn(ctx, caller, ns), syn.Records(k), mnemo.WriteOptions{}); err != nil {
			return fmt.Errorf("bench: load: %w", err)
		}
		done += k
	}
	return nil
}

// post sends one REST request with a JSON body to namespace ns and reads
// the whole answer; a status other than want is an error.
func (t *restTarget) post(ctx context.Context, path, ns string, body []byte, want int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mnemo-Namespace", ns)
	resp, err := t.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("bench: POST %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return nil
}

// write sends one record over REST (POST /v1/records, near-duplicate
// check on, as an agent writes) and returns how long it took.
func (t *restTarget) write(ctx context.Context, ns string, r mnemo.NewRecord) (time.Duration, error) {
	body, err := json.Marshal(server.RememberRequest{NewRecord: r})
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	err = t.post(ctx, "/v1/records", ns, body, http.StatusCreated)
	return time.Since(t0), err
}

// WritesOptions configure RunWrites. The zero value is the full run.
type WritesOptions struct {
	Records int    // records written one at a time into a new store; default 100,000
	Window  int    // records per reported window; default 1,000
	Seed    uint64 // workload seed; default 1
	Dir     string // where the store goes; "" = a new temp dir, removed after
	// Progress, when set, is told how many records are written.
	Progress func(stage string, done, total int)
}

// WriteWindow is the latency and throughput of one window of sequential
// single writes.
type WriteWindow struct {
	From      int     `json:"from"` // records in the store before the window
	To        int     `json:"to"`   // and after it
	Latency   Latency `json:"latency"`
	PerSecond float64 `json:"writes_per_s"`
}

// WritesReport is the outcome of RunWrites.
type WritesReport struct {
	Records   int           `json:"records"`
	Window    int           `json:"window"`
	Windows   []WriteWindow `json:"windows"`
	All       Latency       `json:"latency"`
	PerSecond float64       `json:"writes_per_s"`
	// FirstLastP95 is the p95 of the last window over that of the first.
	FirstLastP95 float64 `json:"last_first_p95_ratio"`
	GoVersion    string  `json:"go_version"`
	CPUs         int     `json:"cpus"`
	OS           string  `json:"os"`
	Elapsed      float64 `json:"elapsed_s"`
}

// RunWrites measures what an agent writing one memory at a time sees: one
// client sends records one after the other over REST (POST /v1/records,
// near-duplicate check on) to a server over a new SQLite store in this
// process, hash embedder, and the latency and throughput are reported
// per window of records.
func RunWrites(ctx context.Context, opt WritesOptions) (*WritesReport, error) {
	start := time.Now()
	if opt.Records <= 0 {
		opt.Records = 100000
	}
	if opt.Window <= 0 {
		opt.Window = 1000
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	progress := orQuiet(opt.Progress)
	dir, cleanup, err := workDir(opt.Dir, "mnemo-writes-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	t, err := openREST(ctx, filepath.Join(dir, "writes.db"))
	if err != nil {
		return nil, err
	}
	defer t.Close()
	rep := &WritesReport{Records: opt.Records, Window: opt.Window,
		GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	syn := synth.NewWorkload(opt.Seed, time.Now())
	all := make([]time.Duration, 0, opt.Records)
	var busy time.Duration
	for from := 0; from < opt.Records; from += opt.Window {
		n := min(opt.Window, opt.Records-from)
		lat := make([]time.Duration, 0, n)
		t0 := time.Now()
		for i := range n {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d, err := t.write(ctx, "writes", syn.Record())
			if err != nil {
				return nil, err
			}
			lat = append(lat, d)
			progress("single writes", from+i+1, opt.Records)
		}
		wall := time.Since(t0)
		busy += wall
		rep.Windows = append(rep.Windows, WriteWindow{From: from, To: from + n, Latency: NewLatency(lat),
			PerSecond: float64(int(float64(n)/wall.Seconds() + 0.5))})
		all = append(all, lat...)
	}
	rep.All = NewLatency(all)
	rep.PerSecond = float64(int(float64(len(all))/busy.Seconds() + 0.5))
	if first, last := rep.Windows[0], rep.Windows[len(rep.Windows)-1]; first.Latency.P95 > 0 {
		rep.FirstLastP95 = round2(float64(last.Latency.P95) / float64(first.Latency.P95))
	}
	rep.Elapsed = round2(time.Since(start).Seconds())
	return rep, nil
}

// orQuiet is a progress callback, or one that reports nothing for none.
func orQuiet(progress func(stage string, done, total int)) func(string, int, int) {
	if progress == nil {
		return func(string, int, int) {}
	}
	return progress
}

// workDir returns dir, or a new temporary directory removed by cleanup.
func workDir(dir, pattern string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	d, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, fmt.Errorf("bench: temp dir: %w", err)
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// WriteMarkdown writes the report as a Markdown table, one row per window.
func (r *WritesReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mnemo single writes over REST: %s records, one client, POST /v1/records (near-duplicate check on), hash embedder; %s, %d CPUs, %s; %.1f s.\n\n",
		thousands(r.Records), r.GoVersion, r.CPUs, r.OS, r.Elapsed)
	b.WriteString("| records | p50 (ms) | p95 (ms) | p99 (ms) | writes/s |\n|---|---:|---:|---:|---:|\n")
	for _, x := range r.Windows {
		fmt.Fprintf(&b, "| %s–%s | %s | %s | %s | %s |\n", thousands(x.From), thousands(x.To), msString(x.Latency.P50),
			msString(x.Latency.P95), msString(x.Latency.P99), thousands(int(x.PerSecond)))
	}
	fmt.Fprintf(&b, "\nAll %s writes: p50 %s / p95 %s / p99 %s ms, %s writes/s; p95 of the last window ÷ p95 of the first: %.2f×.\n",
		thousands(r.Records), msString(r.All.P50), msString(r.All.P95), msString(r.All.P99), thousands(int(r.PerSecond)), r.FirstLastP95)
	_, err := io.WriteString(w, b.String())
	return err
}

// msString formats a duration in milliseconds with two decimals.
func msString(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64)
}

// WriteCheckOptions configure RunWriteCheck.
type WriteCheckOptions struct {
	Small, Large int // store sizes compared; default 1,000 and 20,000
	Writes       int // single writes timed at each size; default 250
	// LeadIn is the single writes sent before the timed ones, while the
	// index of the store just opened is built; default Writes.
	LeadIn int
	// MaxRatio is the ratio of large-store to small-store latency (p50 or
	// p95) above which the check fails; default 4.
	MaxRatio float64
	Seed     uint64
	Dir      string // where the stores go; "" = a new temp dir, removed after
}

// WriteCheck compares single writes into a small and a large store.
type WriteCheck struct {
	Small        int     `json:"small_records"`
	Large        int     `json:"large_records"`
	Writes       int     `json:"writes"`
	LeadIn       int     `json:"lead_in_writes"`
	SmallLatency Latency `json:"small"`
	LargeLatency Latency `json:"large"`
	// LeadInSmall and LeadInLarge are the latencies of the lead-in writes.
	LeadInSmall Latency `json:"lead_in_small"`
	LeadInLarge Latency `json:"lead_in_large"`
	P50Ratio    float64 `json:"p50_ratio"` // large ÷ small
	P95Ratio    float64 `json:"p95_ratio"`
	MaxRatio    float64 `json:"max_ratio"`
	Elapsed     float64 `json:"elapsed_s"` // the whole check, loading included
}

// Failed reports whether a ratio is above MaxRatio (false for a nil check).
func (c *WriteCheck) Failed() bool {
	return c != nil && (c.P50Ratio > c.MaxRatio || c.P95Ratio > c.MaxRatio)
}

// String says what was measured in one line.
func (c *WriteCheck) String() string {
	verdict := "within"
	if c.Failed() {
		verdict = "OVER"
	}
	return fmt.Sprintf("Single writes over REST, the last %d up to %s vs up to %s records: p50 %s vs %s ms (%.2f×), p95 %s vs %s ms (%.2f×); %s the limit of %.0f×. "+
		"The %d writes before them, on the stores just opened: p95 %s vs %s ms (check: %.1f s).",
		c.Writes, thousands(c.Small), thousands(c.Large), msString(c.SmallLatency.P50), msString(c.LargeLatency.P50), c.P50Ratio,
		msString(c.SmallLatency.P95), msString(c.LargeLatency.P95), c.P95Ratio, verdict, c.MaxRatio,
		c.LeadIn, msString(c.LeadInSmall.P95), msString(c.LeadInLarge.P95), c.Elapsed)
}

// RunWriteCheck is the regression check of single writes: two stores are
// filled in batches to Small and Large records less LeadIn+Writes, closed
// and opened again (as a restarted server finds them: the in-memory index
// is built anew, in the background from 2,000 records), and then receive
// LeadIn and then Writes timed single writes each over REST, alternately,
// so that both see the same load of the machine. A write whose cost grows
// with the store shows as a ratio well above 1, and so does an index that
// is rebuilt while writes go on: a build that a write throws away goes on
// through the timed writes. The lead-in keeps the one build of the index
// (a few hundred milliseconds at 20,000 records, which the writes share
// two cores with) out of the ratio; its latencies are reported.
func RunWriteCheck(ctx context.Context, opt WriteCheckOptions) (*WriteCheck, error) {
	if opt.Small <= 0 {
		opt.Small = 1000
	}
	if opt.Large <= 0 {
		opt.Large = 20000
	}
	if opt.Writes <= 0 {
		opt.Writes = 250
	}
	if opt.LeadIn <= 0 {
		opt.LeadIn = opt.Writes
	}
	if opt.MaxRatio <= 0 {
		opt.MaxRatio = 4
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	start := time.Now()
	if opt.Small < opt.LeadIn+opt.Writes || opt.Large <= opt.Small {
		return nil, mnemo.Errorf(mnemo.EINVALID, "write check: want lead-in + writes <= small < large, got %d + %d, %d, %d",
			opt.LeadIn, opt.Writes, opt.Small, opt.Large)
	}
	dir, cleanup, err := workDir(opt.Dir, "mnemo-writecheck-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	const ns = "writes"
	syn := synth.NewWorkload(opt.Seed, time.Now())
	sizes := []int{opt.Small, opt.Large}
	targets := make([]*restTarget, 2)
	defer func() {
		for _, t := range targets {
			if t != nil {
				t.Close()
			}
		}
	}()
	for i, size := range sizes {
		path := filepath.Join(dir, "writes-"+strconv.Itoa(size)+".db")
		t, err := openREST(ctx, path)
		if err != nil {
			return nil, err
		}
		err = t.load(ctx, ns, syn, size-opt.LeadIn-opt.Writes)
		t.Close()
		if err != nil {
			return nil, err
		}
		if targets[i], err = openREST(ctx, path); err != nil {
			return nil, err
		}
	}
	// The first search loads each namespace's index, as the first request
	// after a restart does.
	probe, _ := json.Marshal(mnemo.RecallRequest{Query: syn.Query(), K: 10})
	for _, t := range targets {
		if err := t.post(ctx, "/v1/recall", ns, probe, http.StatusOK); err != nil {
			return nil, err
		}
	}
	lat := [4][]time.Duration{} // lead-in small, large; timed small, large
	for w := range opt.LeadIn + opt.Writes {
		for i, t := range targets {
			d, err := t.write(ctx, ns, syn.Record())
			if err != nil {
				return nil, err
			}
			if w >= opt.LeadIn {
				i += 2
			}
			lat[i] = append(lat[i], d)
		}
	}
	c := &WriteCheck{Small: opt.Small, Large: opt.Large, Writes: opt.Writes, LeadIn: opt.LeadIn, MaxRatio: opt.MaxRatio,
		LeadInSmall: NewLatency(lat[0]), LeadInLarge: NewLatency(lat[1]), SmallLatency: NewLatency(lat[2]), LargeLatency: NewLatency(lat[3])}
	if c.SmallLatency.P50 > 0 && c.SmallLatency.P95 > 0 {
		c.P50Ratio = round2(float64(c.LargeLatency.P50) / float64(c.SmallLatency.P50))
		c.P95Ratio = round2(float64(c.LargeLatency.P95) / float64(c.SmallLatency.P95))
	}
	c.Elapsed = round2(time.Since(start).Seconds())
	return c, nil
}
