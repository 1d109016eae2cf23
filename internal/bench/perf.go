package bench

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/pprof"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/stats"
	"github.com/mnemo-dev/mnemo/internal/synth"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/thesaurus"
	"github.com/mnemo-dev/mnemo/tokenize"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PerfOptions configure RunPerf. The zero value is the full suite.
type PerfOptions struct {
	Quick   bool  // sizes 1k and 10k only, 30 queries each: for CI
	Sizes   []int // store sizes to measure, ascending; default 1k, 10k, 100k (quick: 1k, 10k)
	Queries int   // queries per size and operation; default 200 (quick: 30)
	Budget  int   // digest token budget; default 2000
	K       int   // recall k; default 10
	Batch   int   // records per Remember call; default 500
	// InFlight is how many Remember calls the load keeps going at once
	// (as an importer that prepares the next batch while the last one
	// commits, or several clients, would); default 1, one after another.
	InFlight int
	Seed     uint64 // workload seed; default 1
	Dir      string // where the store goes; "" = a new temp dir, removed after
	// WriteCheck configures the regression check of single writes run
	// first (see RunWriteCheck); its zero value compares 1,000 and 20,000
	// records, 250 writes each after 250 (quick: 1,000 and 5,000, 200 after
	// 200), within the smallest and the largest of Sizes.
	WriteCheck WriteCheckOptions
	// Progress, when set, is told what runs (a stage name, done, total).
	Progress func(stage string, done, total int)
	// Thesaurus expands queries as in `mnemo serve` (nil: none).
	Thesaurus *thesaurus.Thesaurus
	// NoLearned leaves out the semantic channel learned from the store;
	// by default it is trained at each size before the queries (as serve
	// does in the background) and its training time reported.
	NoLearned bool
	// CPUProfile, when set, receives a CPU profile of the queries at the
	// largest size, each operation labelled op=digest, recall or floor
	// (go tool pprof -tagfocus op=digest).
	CPUProfile io.Writer
}

// Latency summarises one operation's latencies.
type Latency struct {
	P50, P95, P99, Mean time.Duration
}

// MarshalJSON writes milliseconds: {"p50_ms": …, "p95_ms": …, "p99_ms": …, "mean_ms": …}.
func (l Latency) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return json.Marshal(map[string]float64{"p50_ms": ms(l.P50), "p95_ms": ms(l.P95), "p99_ms": ms(l.P99), "mean_ms": ms(l.Mean)})
}

// NewLatency summarises samples (nearest-rank percentiles).
func NewLatency(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Latency{P50: stats.Percentile(s, 0.50), P95: stats.Percentile(s, 0.95), P99: stats.Percentile(s, 0.99), Mean: sum / time.Duration(len(s))}
}

// PerfSize is the figures at one store size.
type PerfSize struct {
	Records int     `json:"records"`
	Digest  Latency `json:"digest"`
	Recall  Latency `json:"recall"`
	Floor   Latency `json:"floor"` // bare FTS5 BM25 top-20 on the same queries
	// LearnSeconds is the time to train the learned semantic channel at
	// this size (0 when off or too small to learn from).
	LearnSeconds float64 `json:"learn_s"`
	// DigestFloorRatio is digest p50 over floor p50.
	DigestFloorRatio float64 `json:"digest_floor_ratio"`
	// RecallFloorRatio is recall p50 over floor p50.
	RecallFloorRatio float64 `json:"recall_floor_ratio"`
	// FirstDigestMS is the first digest of the size, before the timed
	// ones (not in Digest): it builds what digests use and searches do
	// not (the thesauri, scratch space), once per process.
	FirstDigestMS float64 `json:"first_digest_ms"`
	// StorageReads is how many of the timed digests read from storage
	// rather than the OS's page cache (read_bytes of /proc/self/io; -1
	// where the system does not tell), StorageKiB how much, and
	// StorageReadP50 and CachedP50 the digest p50 of those and of the
	// others: a digest that waits for the disk is slow for a reason the
	// engine's code does not set.
	// Slowest are the three slowest timed digests: their place among the
	// queries (from 0) and time.
	Slowest        []SlowQuery   `json:"slowest_digests"`
	StorageReads   int           `json:"storage_reads"`
	StorageKiB     int64         `json:"storage_kib"`
	StorageReadP50 time.Duration `json:"storage_read_p50_ns"`
	CachedP50      time.Duration `json:"cached_p50_ns"`
	// StallMS is how long every task of the machine waited for storage
	// at once during the timed digests (the "full" line of Linux's
	// /proc/pressure/io; -1 where the system does not tell), and Stalled
	// how many of the digests ran while it did: a stall of the host's
	// storage holds up a digest however much of its data is cached.
	StallMS float64 `json:"io_stall_ms"`
	Stalled int     `json:"stalled_digests"`
}

// SlowQuery is one of the slowest timed queries of a size.
type SlowQuery struct {
	Query int     `json:"query"`
	MS    float64 `json:"ms"`
}

// PerfReport is the outcome of RunPerf.
type PerfReport struct {
	Quick   bool       `json:"quick"`
	Queries int        `json:"queries"`
	Budget  int        `json:"digest_budget"`
	K       int        `json:"recall_k"`
	Sizes   []PerfSize `json:"sizes"`
	// Write throughput over every batched Remember of the run (hash
	// embedder, dedup off, Batch records per call).
	WriteRecords     int     `json:"write_records"`
	WriteSeconds     float64 `json:"write_seconds"`
	WriteRecordsPerS float64 `json:"write_records_per_s"`
	// WriteCPUSeconds is the CPU time, user and system on every core, the
	// process used while loading (0 where the system does not tell): with
	// the wall time it tells a slower machine (more CPU a record) from a
	// load that leaves cores idle (fewer cores busy).
	WriteCPUSeconds   float64 `json:"write_cpu_s"`
	Batch             int     `json:"write_batch"`
	InFlight          int     `json:"write_in_flight"`
	MemoryAfter       int     `json:"memory_after_records"` // store size when memory was read
	RSSBytes          uint64  `json:"rss_bytes"`            // VmRSS at steady state (0 where /proc is missing)
	PeakRSSBytes      uint64  `json:"peak_rss_bytes"`       // VmHWM: the most the process held, loading included
	RSSFileBytes      uint64  `json:"rss_file_bytes"`       // RssFile: of RSSBytes, pages of mapped files (the OS may drop them)
	HeapBytes         uint64  `json:"go_heap_bytes"`        // live Go heap after a GC
	GoVersion         string  `json:"go_version"`
	CPUs              int     `json:"cpus"`
	OS                string  `json:"os"`
	Elapsed           float64 `json:"elapsed_s"`
	DatabaseFileBytes int64   `json:"database_file_bytes"`
	// WriteCheck compares single writes over REST at two store sizes (nil
	// when the run has a single size).
	WriteCheck *WriteCheck `json:"write_check"`
}

// RunPerf measures, in one process on one SQLite store: write throughput
// (batched Remember with the hash embedder, dedup off), then at each size
// the latency of Digest, Recall and the bare FTS5 floor (sqlite FloorQuery,
// top 20) on the same synthetic queries, and finally resident memory and
// the Go heap. The store grows from one size to the next in one namespace,
// so each size is measured on exactly that many records.
func RunPerf(ctx context.Context, opt PerfOptions) (*PerfReport, error) {
	start := time.Now()
	if len(opt.Sizes) == 0 {
		opt.Sizes = []int{1000, 10000, 100000}
		if opt.Quick {
			opt.Sizes = opt.Sizes[:2]
		}
	}
	if !slices.IsSorted(opt.Sizes) || opt.Sizes[0] <= 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "sizes must be positive and ascending, got %v", opt.Sizes)
	}
	if opt.Queries <= 0 {
		opt.Queries = 200
		if opt.Quick {
			opt.Queries = 30
		}
	}
	if opt.Budget <= 0 {
		opt.Budget = 2000
	}
	if opt.K <= 0 {
		opt.K = 10
	}
	if opt.Batch <= 0 {
		opt.Batch = 500
	}
	if opt.InFlight <= 0 {
		opt.InFlight = 1
	}
	if opt.InFlight > 16 {
		return nil, fmt.Errorf("bench: %d writes in flight, over 16", opt.InFlight)
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	progress := orQuiet(opt.Progress)
	// The write check stays within the sizes of the run.
	wc := opt.WriteCheck
	wc.Small = cmp.Or(wc.Small, min(1000, opt.Sizes[0]))
	if wc.Large == 0 {
		wc.Large = 20000
		if opt.Quick {
			wc.Large = 5000
		}
		wc.Large = min(wc.Large, opt.Sizes[len(opt.Sizes)-1])
	}
	if wc.Writes == 0 {
		wc.Writes = 250
		if opt.Quick {
			wc.Writes = 200
		}
		wc.Writes = min(wc.Writes, wc.Small/4)
	}
	if wc.LeadIn == 0 {
		wc.LeadIn = min(wc.Writes, wc.Small-wc.Writes)
	}
	if opt.Dir != "" {
		wc.Dir = opt.Dir
	}
	var check *WriteCheck
	if wc.Large > wc.Small && wc.Writes > 0 {
		progress("write check", 0, 1)
		var err error
		if check, err = RunWriteCheck(ctx, wc); err != nil {
			return nil, err
		}
		progress("write check", 1, 1)
	}
	dir, cleanup, err := workDir(opt.Dir, "mnemo-perf-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	dbPath := filepath.Join(dir, "perf.db")
	st, err := sqlite.Open(ctx, sqlite.Options{Path: dbPath})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	tok, err := tokenize.New("")
	if err != nil {
		return nil, err
	}
	svc, err := engine.New(ctx, engine.Config{Store: st, Embedder: embed.NewCached(embed.NewHash(0), 1024), Tokenizer: tok,
		Thesaurus: opt.Thesaurus, NoLearned: opt.NoLearned})
	if err != nil {
		return nil, err
	}
	defer svc.Close()

	const ns = "perf"
	rep := &PerfReport{Quick: opt.Quick, Queries: opt.Queries, Budget: opt.Budget, K: opt.K, Batch: opt.Batch,
		GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, WriteCheck: check}
	syn := synth.NewWorkload(opt.Seed, time.Now())
	queries := make([]string, opt.Queries)
	for i := range queries {
		queries[i] = syn.Query()
	}
	caller := mnemo.Caller{Name: "bench", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	var writeTime, writeCPU time.Duration
	loaded := 0
	for _, size := range opt.Sizes {
		// The batches are made here, in order, and written by InFlight
		// writers at once; the time is the load's wall time.
		t0 := time.Now()
		cpu0, cpuOK := processCPU()
		batches := make(chan []mnemo.NewRecord, opt.InFlight)
		var werr error
		var wmu sync.Mutex
		var wg sync.WaitGroup
		for range opt.InFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for recs := range batches {
					if _, err := svc.Remember(mnemo.WithCallerIn(ctx, caller, ns), recs, mnemo.WriteOptions{Dedup: false}); err != nil {
						wmu.Lock()
						werr = cmp.Or(werr, fmt.Errorf("bench: load: %w", err))
						wmu.Unlock()
					}
				}
			}()
		}
		for loaded < size && ctx.Err() == nil {
			n := min(opt.Batch, size-loaded)
			batches <- syn.Records(n)
			loaded += n
			progress("load "+strconv.Itoa(size), loaded, size)
		}
		close(batches)
		wg.Wait()
		writeTime += time.Since(t0)
		if cpu1, ok := processCPU(); ok && cpuOK {
			writeCPU += cpu1 - cpu0
		}
		if werr != nil {
			return nil, werr
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ps := PerfSize{Records: size}
		if !opt.NoLearned {
			progress("learn "+strconv.Itoa(size), 0, 1)
			t0 := time.Now()
			if _, err := svc.TrainSemantic(ctx, ns); err != nil {
				return nil, fmt.Errorf("bench: learn: %w", err)
			}
			ps.LearnSeconds = round2(time.Since(t0).Seconds())
		}
		// The floor, FTS5 over the same rows, in a pass of its own before
		// mnemo's: each of its queries reads for seconds at a million
		// records, and a digest timed right after one paid for what it
		// had pushed out of the caches. Its table is built from the rows
		// here and dropped after, so that loading the next size does not
		// maintain it (mnemo's own writes never do).
		if err := st.BuildFTS(ctx); err != nil {
			return nil, err
		}
		// Building it writes the WAL full (gigabytes at a million
		// records); the copy into the database is done here rather than
		// by the background checkpointer during the timed queries.
		if err := st.Checkpoint(ctx); err != nil {
			return nil, err
		}
		var dig, rec, flo, fromDisk, cached []time.Duration
		profiling := opt.CPUProfile != nil && size == opt.Sizes[len(opt.Sizes)-1]
		if profiling {
			if err := pprof.StartCPUProfile(opt.CPUProfile); err != nil {
				return nil, fmt.Errorf("bench: cpu profile: %w", err)
			}
		}
		for i, q := range queries {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var err error
			t0 := time.Now()
			pprof.Do(ctx, pprof.Labels("op", "floor"), func(ctx context.Context) { _, err = st.FloorQuery(ctx, ns, q, 20) })
			if err != nil {
				return nil, err
			}
			flo = append(flo, time.Since(t0))
			progress("floor "+strconv.Itoa(size), i+1, len(queries))
		}
		if err := st.DropFTS(ctx); err != nil {
			return nil, err
		}
		if err := st.Checkpoint(ctx); err != nil {
			return nil, err
		}
		// Warm up: the first search loads the namespace's in-memory index,
		// the first digest what digests use besides (timed, reported apart).
		if _, err := svc.Recall(mnemo.WithCallerIn(ctx, caller, ns), mnemo.RecallRequest{Query: queries[0], K: opt.K}); err != nil {
			return nil, err
		}
		tw := time.Now()
		if _, err := svc.Digest(mnemo.WithCallerIn(ctx, caller, ns), mnemo.DigestRequest{Task: queries[0], Budget: opt.Budget}); err != nil {
			return nil, err
		}
		ps.FirstDigestMS = round2(float64(time.Since(tw).Microseconds()) / 1000)
		for i, q := range queries {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var err error
			rb, sb := storageRead(), ioStall()
			t1 := time.Now()
			pprof.Do(ctx, pprof.Labels("op", "digest"), func(ctx context.Context) {
				_, err = svc.Digest(mnemo.WithCallerIn(ctx, caller, ns), mnemo.DigestRequest{Task: q, Budget: opt.Budget})
			})
			if err != nil {
				return nil, err
			}
			t2 := time.Now()
			switch stall := ioStall(); {
			case sb < 0 || stall < 0:
				ps.StallMS = -1
			case stall > sb:
				ps.Stalled++
				ps.StallMS += float64(stall-sb) / 1000
			}
			switch read := storageRead() - rb; {
			case rb < 0:
				ps.StorageReads = -1
			case read > 0:
				ps.StorageReads++
				ps.StorageKiB += read / 1024
				fromDisk = append(fromDisk, t2.Sub(t1))
			default:
				cached = append(cached, t2.Sub(t1))
			}
			pprof.Do(ctx, pprof.Labels("op", "recall"), func(ctx context.Context) {
				_, err = svc.Recall(mnemo.WithCallerIn(ctx, caller, ns), mnemo.RecallRequest{Query: q, K: opt.K})
			})
			if err != nil {
				return nil, err
			}
			t3 := time.Now()

			dig = append(dig, t2.Sub(t1))
			rec = append(rec, t3.Sub(t2))
			progress("query "+strconv.Itoa(size), i+1, len(queries))
		}
		if profiling {
			pprof.StopCPUProfile()
		}
		ps.Digest, ps.Recall, ps.Floor = NewLatency(dig), NewLatency(rec), NewLatency(flo)
		for i := range dig {
			ps.Slowest = append(ps.Slowest, SlowQuery{i, round2(float64(dig[i].Microseconds()) / 1000)})
		}
		slices.SortStableFunc(ps.Slowest, func(a, b SlowQuery) int { return cmp.Compare(b.MS, a.MS) })
		ps.Slowest = ps.Slowest[:min(3, len(ps.Slowest))]
		if len(fromDisk) > 0 {
			ps.StorageReadP50 = NewLatency(fromDisk).P50
		}
		if len(cached) > 0 {
			ps.CachedP50 = NewLatency(cached).P50
		}
		if ps.Floor.P50 > 0 {
			ps.DigestFloorRatio = round2(float64(ps.Digest.P50) / float64(ps.Floor.P50))
			ps.RecallFloorRatio = round2(float64(ps.Recall.P50) / float64(ps.Floor.P50))
		}
		rep.Sizes = append(rep.Sizes, ps)
	}
	rep.WriteRecords, rep.InFlight = loaded, opt.InFlight
	rep.WriteSeconds = round2(writeTime.Seconds())
	rep.WriteCPUSeconds = writeCPU.Seconds()
	if writeTime > 0 {
		rep.WriteRecordsPerS = float64(int(float64(loaded) / writeTime.Seconds()))
	}
	// Steady state: collect, and hand freed pages back to the OS, so RSS is
	// what holding the records costs rather than what loading them left over.
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.HeapBytes = ms.HeapAlloc
	rep.RSSBytes = VmRSS()
	rep.PeakRSSBytes = procStatus("VmHWM:")
	rep.RSSFileBytes = procStatus("RssFile:")
	rep.MemoryAfter = loaded
	if fi, err := os.Stat(dbPath); err == nil {
		rep.DatabaseFileBytes = fi.Size()
	}
	rep.Elapsed = round2(time.Since(start).Seconds())
	return rep, nil
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// storageRead is the bytes this process has read from storage so far
// (read_bytes of /proc/self/io: what the OS's page cache did not hold), or
// -1 where the system does not tell.
func storageRead() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "read_bytes:"); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// ioStall returns the microseconds every task of the machine has waited
// for storage at once since boot (the "full" total of
// /proc/pressure/io), or -1 where that is not available.
func ioStall() int64 {
	b, err := os.ReadFile("/proc/pressure/io")
	if err != nil {
		return -1
	}
	return fullStall(string(b))
}

// fullStall reads the "full" total of a pressure stall file, or -1.
func fullStall(text string) int64 {
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, "full "); ok {
			for f := range strings.FieldsSeq(rest) {
				if v, ok := strings.CutPrefix(f, "total="); ok {
					if n, err := strconv.ParseInt(v, 10, 64); err == nil {
						return n
					}
				}
			}
		}
	}
	return -1
}

// VmRSS returns the process's resident set size from /proc/self/status, or
// 0 where that is not available.
func VmRSS() uint64 { return procStatus("VmRSS:") }

// procStatus reads a size field (in kB) of /proc/self/status, in bytes.
func procStatus(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, field); ok {
			fs := strings.Fields(rest)
			if len(fs) >= 1 {
				kb, _ := strconv.ParseUint(fs[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// WriteMarkdown writes the perf report as Markdown tables.
func (r *PerfReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	mode := "full"
	if r.Quick {
		mode = "quick"
	}
	fmt.Fprintf(&b, "mnemo perf (%s): %d queries per size, digest budget %d tokens, recall k=%d; %s, %d CPUs, %s; %.1f s.\n\n",
		mode, r.Queries, r.Budget, r.K, r.GoVersion, r.CPUs, r.OS, r.Elapsed)
	b.WriteString("| records | digest p50 / p95 / p99 (ms) | recall p50 / p95 / p99 (ms) | FTS5 floor p50 / p95 / p99 (ms) | digest ÷ floor (p50) | recall ÷ floor (p50) | learned channel trained in (s) |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|\n")
	ms := func(l Latency) string {
		f := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
		return f(l.P50) + " / " + f(l.P95) + " / " + f(l.P99)
	}
	for _, s := range r.Sizes {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.1f× | %.1f× | %.2f |\n", thousands(s.Records), ms(s.Digest), ms(s.Recall), ms(s.Floor),
			s.DigestFloorRatio, s.RecallFloorRatio, s.LearnSeconds)
	}
	flight := ""
	if r.InFlight > 1 {
		flight = fmt.Sprintf(", %d in flight", r.InFlight)
	}
	for _, s := range r.Sizes {
		fmt.Fprintf(&b, "\nAt %s records: the first digest, before the timed ones, %.2f ms; the slowest timed ones", thousands(s.Records), s.FirstDigestMS)
		for i, q := range s.Slowest {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " query %d (%.2f ms)", q.Query, q.MS)
		}
		switch {
		case s.StorageReads < 0:
			b.WriteString(".")
		case s.StorageReads == 0:
			b.WriteString("; no timed digest read from storage.")
		default:
			fmt.Fprintf(&b, "; %d of the timed digests read from storage rather than the page cache (%s KiB), p50 %.2f ms against %.2f for the others.",
				s.StorageReads, thousands(int(s.StorageKiB)), float64(s.StorageReadP50.Microseconds())/1000, float64(s.CachedP50.Microseconds())/1000)
		}
		if s.StallMS >= 0 {
			fmt.Fprintf(&b, " The machine's storage held up every task for %.1f ms in all during %d of the timed digests (Linux pressure stall information, io full).", s.StallMS, s.Stalled)
		}
	}
	b.WriteString("\n")
	cpu := ""
	if r.WriteCPUSeconds > 0 && r.WriteSeconds > 0 && r.WriteRecords > 0 {
		cpu = fmt.Sprintf("; CPU %.2f cores busy, %.0f µs a record", r.WriteCPUSeconds/r.WriteSeconds, r.WriteCPUSeconds*1e6/float64(r.WriteRecords))
	}
	fmt.Fprintf(&b, "\nWrite throughput: %s records/s (%s records in %.2f s, batches of %d%s, hash embedder, dedup off%s).\n",
		thousands(int(r.WriteRecordsPerS)), thousands(r.WriteRecords), r.WriteSeconds, r.Batch, flight, cpu)
	fmt.Fprintf(&b, "Memory holding %s records: RSS %.1f MiB at steady state (of which mapped files %.1f; peak %.1f MiB while loading), Go heap %.1f MiB; database file %.1f MiB.\n",
		thousands(r.MemoryAfter), mib(r.RSSBytes), mib(r.RSSFileBytes), mib(r.PeakRSSBytes), mib(r.HeapBytes), mib(uint64(r.DatabaseFileBytes)))
	if r.WriteCheck != nil {
		b.WriteString(r.WriteCheck.String() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
