package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Degraded mode. When a namespace receives more events per minute than
// Config.TriageCapacity, ranking weighs criticality by α = 1 − capacity/rate
// (score.TriageAlpha). The rate is the namespace's, whoever writes: the
// live records of kind event created in the last minute, counted in the
// store, so that a CLI write or another server moves it too.

// rateWindow is the span over which the event rate is measured.
const rateWindow = time.Minute

// rateTTL is how long a namespace's count is reused before the store is
// asked again; this process's own events count at once.
const rateTTL = time.Second

// rateFactor bounds the count: past rateFactor × capacity events a minute
// α is within 1/rateFactor of 1, and counting further changes little.
const rateFactor = 20

// rateTracker measures the event rate of namespaces from the store.
type rateTracker struct {
	store mnemo.Store
	mu    sync.Mutex
	seen  map[string]rateCount
}

// rateCount is a namespace's count of events in the window ending at at.
type rateCount struct {
	at time.Time
	n  int
}

func newRateTracker(st mnemo.Store) *rateTracker {
	return &rateTracker{store: st, seen: map[string]rateCount{}}
}

// add counts n events this process wrote to ns at t, until the next read
// of the store (which holds them too).
func (r *rateTracker) add(ns string, t time.Time, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.seen[ns]; ok && fresh(c.at, t) {
		c.n += n
		r.seen[ns] = c
	}
}

func fresh(at, now time.Time) bool {
	return !now.Before(at) && now.Sub(at) < rateTTL
}

// perMinute returns the events of ns in the minute before now, counted up
// to rateFactor × capacity.
func (r *rateTracker) perMinute(ctx context.Context, ns string, now time.Time, capacity float64) (float64, error) {
	r.mu.Lock()
	c, ok := r.seen[ns]
	r.mu.Unlock()
	if ok && fresh(c.at, now) {
		return float64(c.n), nil
	}
	limit := int(math.Min(math.Max(math.Ceil(rateFactor*capacity), 100), 100000))
	since, until := now.Add(-rateWindow), now.Add(rateTTL) // a writer's clock a little ahead still counts
	recs, err := r.store.List(ctx, mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}, mnemo.ListOptions{
		Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindEvent}, Since: &since, Until: &until}, Limit: limit, ByTime: true})
	if err != nil {
		return 0, fmt.Errorf("engine: event rate of %s: %w", ns, err)
	}
	r.mu.Lock()
	r.seen[ns] = rateCount{at: now, n: len(recs)}
	r.mu.Unlock()
	return float64(len(recs)), nil
}

// triageNote is the digest's line saying that it was ranked in triage,
// and why; "" when it was not.
func triageNote(t *mnemo.Triage) string {
	if t == nil || !t.Active {
		return ""
	}
	return fmt.Sprintf("_Triage: %s events in the last minute, over this namespace's capacity of %s a minute: "+
		"criticality weighs %.0f%% of each score._\n", num(t.Rate), num(t.Limit), 100*t.Alpha)
}

func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}
