// Package loops keeps a namespace's memory good without a person watching:
// the warm loop (the Intern writes probe questions from stored records, the
// Teacher checks them, scores how the memory answers them — the
// namespace's validation score — and adjusts importance within bounds) and
// the cold loop (the Researcher reads the validation scores and corrections
// and triggers a repair, the Executor searches a configuration patch, the
// Mentor accepts it only when deterministic rules pass). Configuration
// changes are versions of the namespace's scoring configuration
// (mnemo.ScoringConfig), reversible like any other.
//
// The loops use the engine as every surface does, with a caller's
// clearance: probes are written from, and answered with, only the records
// that caller may see, and a run for one namespace reads and writes nothing
// of another. Probes are never stored as memory records. The roles are
// deterministic; no language model is involved.
package loops

import (
	"context"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/tuning"
)

// DefaultThreshold is the validation score below which the cold loop
// repairs.
const DefaultThreshold = 0.80

// Loops runs the warm and cold loops of namespaces over one engine.
type Loops struct {
	Svc *engine.Service
	Now func() time.Time // defaults to time.Now

	Intern  Intern
	Teacher Teacher
	Mentor  Mentor
	// Threshold is the validation score that triggers the cold loop (0
	// means DefaultThreshold); CorrectionShare the share of corrections
	// caused by missing context (over the last 30 days, at least five
	// corrections) that triggers it too (0 means 0.5).
	Threshold       float64
	CorrectionShare float64
	// Manual queues accepted patches for a person's approval instead of
	// applying them.
	Manual bool
	// NoAdjust leaves importance alone (the warm loop only measures).
	NoAdjust bool
}

// New returns loops over svc with the defaults, paraphrasing with the
// engine's thesaurus when it has one.
func New(svc *engine.Service) *Loops {
	l := &Loops{Svc: svc}
	l.Intern.Thesaurus = svc.Thesaurus()
	l.Teacher.Thesaurus = svc.Thesaurus()
	return l
}

func (l *Loops) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Loops) threshold() float64 {
	if l.Threshold > 0 {
		return l.Threshold
	}
	return DefaultThreshold
}

// runLocks holds one mutex per engine and namespace: the runs of a
// namespace are serialised in the process whichever Loops value starts
// them (the server's schedule, a REST request, an approval).
var runLocks sync.Map // lockKey -> *sync.Mutex

type lockKey struct {
	svc *engine.Service
	ns  string
}

// lock serialises the runs of one namespace.
func (l *Loops) lock(ns string) func() {
	m, _ := runLocks.LoadOrStore(lockKey{l.Svc, ns}, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// WarmRun is one warm-loop run, as stored and reported.
type WarmRun struct {
	Namespace  string                        `json:"namespace"`
	At         time.Time                     `json:"at"`
	Probes     int                           `json:"probes"` // kept and scored
	Generated  int                           `json:"generated"`
	Dropped    map[string]int                `json:"dropped"`
	Validation float64                       `json:"validation"`
	By         map[string]map[string]float64 `json:"by"`
	Adjusted   []AdjustmentEvent             `json:"adjusted"`
	LatencyMS  float64                       `json:"latency_ms"` // mean per probe
	Version    int                           `json:"config_version"`
	Clearance  int                           `json:"clearance"`
	Millis     int64                         `json:"ms"`
}

// probes generates and filters the namespace's probes.
func (l *Loops) probes(ctx context.Context, c mnemo.Caller, ns string) ([]Probe, int, map[string]int, error) {
	ps, err := l.Intern.Generate(ctx, l.Svc, c, ns, l.Svc.Now())
	if err != nil {
		return nil, 0, nil, err
	}
	kept, dropped, err := l.Teacher.Filter(ctx, l.Svc, c, ns, ps)
	return kept, len(ps), dropped, err
}

// round is where both loops start: the active configuration, and the
// namespace's probes scored with it.
type round struct {
	active    *tuning.ConfigVersion
	kept      []Probe
	scored    []Scored
	generated int
	dropped   map[string]int
}

// score reads the active configuration of ns and scores the namespace's
// probes with it.
func (l *Loops) score(ctx context.Context, c mnemo.Caller, ns string) (*round, error) {
	cv, err := l.Svc.Config(mnemo.WithCallerIn(ctx, c, ns), -1)
	if err != nil {
		return nil, err
	}
	kept, gen, dropped, err := l.probes(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	scored, err := l.Teacher.Score(ctx, l.Svc, c, ns, kept)
	if err != nil {
		return nil, err
	}
	return &round{active: cv, kept: kept, scored: scored, generated: gen, dropped: dropped}, nil
}

// Warm runs the warm loop once for namespace ns as caller c: probes from
// the records c may see, scored with the active configuration; the
// validation score and its breakdown are stored with the run; importance
// adjustments (unless NoAdjust) are bounded, logged and reversible.
func (l *Loops) Warm(ctx context.Context, c mnemo.Caller, ns string) (*WarmRun, error) {
	ns = nsOf(ns)
	defer l.lock(ns)()
	start := time.Now()
	rd, err := l.score(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	scored := rd.scored
	run := &WarmRun{Namespace: ns, At: l.now().UTC(), Probes: len(scored), Generated: rd.generated, Dropped: rd.dropped,
		By: breakdown(scored), Adjusted: []AdjustmentEvent{}, Version: rd.active.Version, Clearance: c.Clearance}
	run.Validation, run.LatencyMS = mean(scored)
	st, err := loadState(ctx, l.Svc.Store(), ns)
	if err != nil {
		return nil, err
	}
	if !l.NoAdjust {
		ev, err := l.Teacher.Adjust(ctx, l.Svc, c, ns, scored, st, run.At)
		run.Adjusted = append(run.Adjusted, ev...)
		if err != nil {
			_ = saveState(ctx, l.Svc.Store(), ns, st) // keep the log of what was changed
			return nil, err
		}
	}
	run.Millis = time.Since(start).Milliseconds()
	st.Warm = append(st.Warm, *run)
	if err := saveState(ctx, l.Svc.Store(), ns, st); err != nil {
		return nil, err
	}
	return run, nil
}

// Revert undoes every importance adjustment of the loops in namespace ns
// that nobody changed since.
func (l *Loops) Revert(ctx context.Context, c mnemo.Caller, ns string) ([]AdjustmentEvent, error) {
	ns = nsOf(ns)
	defer l.lock(ns)()
	st, err := loadState(ctx, l.Svc.Store(), ns)
	if err != nil {
		return nil, err
	}
	ev, err := l.Teacher.Revert(ctx, l.Svc, c, ns, st, l.now().UTC())
	if serr := saveState(ctx, l.Svc.Store(), ns, st); err == nil {
		err = serr
	}
	return ev, err
}

// Evaluate scores the namespace's probes with the active configuration
// and with cfg, changing nothing: the validation before and after, and
// the number of probes.
func (l *Loops) Evaluate(ctx context.Context, c mnemo.Caller, ns string, cfg mnemo.ScoringConfig) (before, after float64, probes int, err error) {
	ns = nsOf(ns)
	kept, _, _, err := l.probes(ctx, c, ns)
	if err != nil {
		return 0, 0, 0, err
	}
	a, err := l.Teacher.Score(ctx, l.Svc, c, ns, kept)
	if err != nil {
		return 0, 0, 0, err
	}
	b, err := l.Teacher.Score(engine.WithConfig(ctx, cfg), l.Svc, c, ns, kept)
	if err != nil {
		return 0, 0, 0, err
	}
	before, _ = mean(a)
	after, _ = mean(b)
	return before, after, len(kept), nil
}
