package loops

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Runner runs the loops of every namespace on a schedule: the warm loop
// when a namespace's last warm run is older than WarmEvery, the cold loop
// when the Researcher finds it due (checked every ColdEvery). Namespaces
// are isolated: a failure (or a panic) in one is logged and counted, and
// never stops another.
type Runner struct {
	Loops     *Loops
	Caller    mnemo.Caller // whose clearance the loops run with
	WarmEvery time.Duration
	ColdEvery time.Duration
	Log       *slog.Logger

	mu      sync.Mutex
	metrics map[string]*NamespaceMetrics
}

// NamespaceMetrics counts a namespace's scheduled runs.
type NamespaceMetrics struct {
	WarmRuns   int     `json:"warm_runs"`
	ColdRuns   int     `json:"cold_runs"`
	Failures   int     `json:"failures"`
	Accepted   int     `json:"accepted_patches"`
	Validation float64 `json:"validation"` // of the last warm run
}

// Metrics returns a copy of the counters, by namespace.
func (r *Runner) Metrics() map[string]NamespaceMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]NamespaceMetrics, len(r.metrics))
	for ns, m := range r.metrics {
		out[ns] = *m
	}
	return out
}

func (r *Runner) count(ns string, fn func(*NamespaceMetrics)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.metrics == nil {
		r.metrics = map[string]*NamespaceMetrics{}
	}
	m := r.metrics[ns]
	if m == nil {
		m = &NamespaceMetrics{}
		r.metrics[ns] = m
	}
	fn(m)
}

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Run checks every namespace first after a minute, then every ColdEvery,
// until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	wait := time.Minute
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = r.ColdEvery
		if wait <= 0 {
			wait = time.Hour
		}
		r.Tick(ctx)
	}
}

// Tick runs what is due in every namespace once.
func (r *Runner) Tick(ctx context.Context) {
	nss, err := r.Loops.Svc.Store().Namespaces(ctx)
	if err != nil {
		r.log().Warn("loops: namespaces not listed", "err", err)
		return
	}
	for _, ns := range nss {
		if ctx.Err() != nil {
			return
		}
		if err := r.one(ctx, ns); err != nil && ctx.Err() == nil {
			r.count(ns, func(m *NamespaceMetrics) { m.Failures++ })
			r.log().Warn("loops failed", "namespace", ns, "err", err)
		}
	}
}

// one runs the due loops of one namespace; a panic is an error.
func (r *Runner) one(ctx context.Context, ns string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	st, err := loadState(ctx, r.Loops.Svc.Store(), ns)
	if err != nil {
		return err
	}
	every := r.WarmEvery
	if every <= 0 {
		every = 24 * time.Hour
	}
	if w := st.lastWarm(); w == nil || r.Loops.now().Sub(w.At) >= every {
		run, err := r.Loops.Warm(ctx, r.Caller, ns)
		if err != nil {
			return err
		}
		r.count(ns, func(m *NamespaceMetrics) { m.WarmRuns++; m.Validation = run.Validation })
		r.log().Info("warm loop", "namespace", ns, "probes", run.Probes, "validation", run.Validation,
			"adjusted", len(run.Adjusted), "ms", run.Millis)
	}
	due, err := r.Loops.Due(ctx, ns)
	if err != nil || !due {
		return err
	}
	run, err := r.Loops.Cold(ctx, r.Caller, ns)
	if err != nil {
		return err
	}
	r.count(ns, func(m *NamespaceMetrics) {
		m.ColdRuns++
		if run.Accepted {
			m.Accepted++
		}
	})
	r.log().Info("cold loop", "namespace", ns, "triggered", run.Triggered, "reason", run.Reason, "accepted", run.Accepted,
		"rule", run.Rule, "validation_before", run.ValidationBefore, "validation_after", run.ValidationAfter,
		"version", run.Version, "pending", run.Pending, "ms", run.Millis)
	return nil
}
