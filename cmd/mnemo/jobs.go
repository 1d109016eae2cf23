package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/console"
	"github.com/mnemo-dev/mnemo/corrections"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/episodes"
)

// jobPace is how often each background job of `mnemo serve` runs (0:
// never), from its flags.
type jobPace struct {
	expire, retention, semantic, episodes, consolidate, extract time.Duration
}

// serveJob is one background job of `mnemo serve`: its name on the job
// board and in the log, when it first runs, its period and its work.
type serveJob struct {
	name         string
	first, every time.Duration
	run          func(context.Context) (map[string]int, error)
}

// serveJobs lists the background jobs `mnemo serve` runs at pace p, each
// off the request path, in a goroutine of its own (background); x is the
// service's extractor.
func serveJobs(svc *engine.Service, x episodes.Extractor, p jobPace) []serveJob {
	var out []serveJob
	if p.expire > 0 {
		out = append(out, serveJob{"expiry", time.Minute, p.expire, expiryJob(svc, p.retention)})
	}
	if p.semantic > 0 {
		out = append(out, serveJob{"semantic models", 30 * time.Second, p.semantic, func(ctx context.Context) (map[string]int, error) {
			return svc.RefreshSemantic(ctx, false)
		}})
	}
	if p.extract > 0 {
		// The messages of every thread not yet read by extraction become
		// memories, each as restricted as its message.
		out = append(out, serveJob{"extraction", 90 * time.Second, p.extract, x.All})
	}
	if p.episodes > 0 {
		out = append(out, serveJob{"episodes", 2 * time.Minute, p.episodes, func(ctx context.Context) (map[string]int, error) {
			return episodes.SummarizeIdle(ctx, svc, svc.Store(), svc.Now(), time.Hour, 4)
		}})
		// Recurring corrections become practitioner patterns at the same pace.
		out = append(out, serveJob{"practitioner patterns", 3 * time.Minute, p.episodes, func(ctx context.Context) (map[string]int, error) {
			return corrections.DistillAll(ctx, svc, svc.Store())
		}})
	}
	if p.consolidate > 0 {
		out = append(out, serveJob{"consolidation", 4 * time.Minute, p.consolidate, func(ctx context.Context) (map[string]int, error) {
			return svc.ConsolidateAll(ctx, "consolidation")
		}})
	}
	return out
}

// jobBoard keeps the last run of each background job of `mnemo serve`,
// for the console's health page.
type jobBoard struct {
	mu   sync.Mutex
	jobs map[string]*console.Job
}

// add registers a job that runs every `every`.
func (b *jobBoard) add(name string, every time.Duration) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.jobs == nil {
		b.jobs = map[string]*console.Job{}
	}
	b.jobs[name] = &console.Job{Name: name, Every: every}
}

// ran records a run of job name: what it did per namespace, or its error.
func (b *jobBoard) ran(name string, at time.Time, n map[string]int, err error) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	j := b.jobs[name]
	if j == nil {
		return
	}
	j.LastRun, j.LastErr = at, ""
	if err != nil {
		j.LastErr = err.Error()
	}
	total := 0
	for _, k := range n {
		total += k
	}
	var parts []string
	for _, ns := range slices.Sorted(func(yield func(string) bool) {
		for k := range n {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s %d", ns, n[ns]))
	}
	j.Done = fmt.Sprintf("%d records", total)
	if len(parts) > 0 && len(parts) <= 5 {
		j.Done += " (" + strings.Join(parts, ", ") + ")"
	} else if len(parts) > 5 {
		j.Done += fmt.Sprintf(" in %d namespaces", len(parts))
	}
}

// list returns the jobs by name.
func (b *jobBoard) list() []console.Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]console.Job, 0, len(b.jobs))
	for _, j := range b.jobs {
		out = append(out, *j)
	}
	slices.SortFunc(out, func(a, b console.Job) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// background runs job first after `first`, then every `every`, until ctx
// ends. Each run's per-namespace counts are logged as `what`; a failure is
// logged and the job tried again at the next period.
func background(ctx context.Context, log *slog.Logger, board *jobBoard, what string, first, every time.Duration,
	job func(context.Context) (map[string]int, error)) {
	board.add(what, every)
	wait := first
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = every
		start := time.Now()
		n, err := job(ctx)
		if ctx.Err() == nil {
			board.ran(what, start, n, err)
		}
		total := 0
		for _, k := range n {
			total += k
		}
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn(what+" stopped", "records", total, "err", err)
		case err == nil && total > 0:
			log.Info(what, "records", total, "namespaces", len(n), "ms", time.Since(start).Milliseconds())
		}
	}
}

// expiryJob archives expired records in every namespace and, with a
// retention, purges the ones forgotten longer ago.
func expiryJob(svc *engine.Service, retention time.Duration) func(context.Context) (map[string]int, error) {
	return func(ctx context.Context) (map[string]int, error) {
		// A failure of expiry in one namespace does not hold up the purge
		// of the others: both run, and the first error is reported.
		n, err := svc.ExpireAll(ctx, "expiry", mnemo.ExpireOptions{})
		if retention == 0 || ctx.Err() != nil {
			return n, err
		}
		p, perr := svc.PurgeAll(ctx, retention)
		if n == nil {
			n = map[string]int{}
		}
		for ns, k := range p {
			n[ns] += k
		}
		return n, cmp.Or(err, perr)
	}
}
