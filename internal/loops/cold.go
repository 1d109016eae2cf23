package loops

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/tuning"
)

// Finding is a slice of the probes where the validation score is below
// the threshold, as the Researcher reports it.
type Finding struct {
	Dimension string  `json:"dimension"` // kind, layer, language, intent, age, scope
	Value     string  `json:"value"`
	Score     float64 `json:"score"`
}

// Researcher decides whether the cold loop repairs, and reports where
// quality drops.
type Researcher struct {
	Threshold       float64
	CorrectionShare float64
}

// Trigger returns whether the cold loop repairs and why: the validation
// score below the threshold, or the share of corrections caused by
// missing context (report over the last 30 days, at least five
// corrections) at or above CorrectionShare.
func (r Researcher) Trigger(validation float64, corrections *mnemo.CorrectionReport) (bool, string) {
	if validation < r.Threshold {
		return true, fmt.Sprintf("validation %.3f is below %.2f", validation, r.Threshold)
	}
	if corrections != nil && corrections.Totals.Corrections >= 5 && corrections.Totals.MissingShare >= r.CorrectionShare {
		return true, fmt.Sprintf("%.0f%% of %d corrections were caused by missing context (threshold %.0f%%)",
			100*corrections.Totals.MissingShare, corrections.Totals.Corrections, 100*r.CorrectionShare)
	}
	return false, fmt.Sprintf("validation %.3f is at or above %.2f", validation, r.Threshold)
}

// Findings lists the slices of by whose score is below the threshold,
// worst first.
func (r Researcher) Findings(by map[string]map[string]float64) []Finding {
	out := []Finding{}
	for dim, m := range by {
		for v, s := range m {
			if s < r.Threshold {
				out = append(out, Finding{Dimension: dim, Value: v, Score: s})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score < out[j].Score
		}
		if out[i].Dimension != out[j].Dimension {
			return out[i].Dimension < out[j].Dimension
		}
		return out[i].Value < out[j].Value
	})
	return out
}

// Executor searches a configuration patch against the probes and the
// correction triples.
type Executor struct {
	Step   float64 // weight move per search step; 0 means 0.05
	Rounds int     // coordinate-ascent rounds; 0 means 4
	// Seeds are further general weights to start from (earlier versions);
	// the active weights and the default preset's are always tried.
	Seeds []mnemo.Weights
}

// half splits probes by a hash of their query and records: about half
// searched, half held out.
func half(ps []Probe) (search, held []Probe) {
	for _, p := range ps {
		h := fnv.New32a()
		h.Write([]byte(p.Kind + "\x00" + p.Query))
		for _, id := range p.Expect {
			h.Write([]byte("\x00" + id))
		}
		if h.Sum32()%2 == 0 {
			search = append(search, p)
		} else {
			held = append(held, p)
		}
	}
	return search, held
}

// toward moves from towards to by at most maxStep per weight (a convex
// combination, so the sum is kept), rounded to 4 decimals with the
// rounding's residue on the largest weight.
func toward(from, to mnemo.Weights, maxStep float64) mnemo.Weights {
	a, b := from.Map(), to.Map()
	d := 0.0
	for k := range a {
		d = math.Max(d, math.Abs(b[k]-a[k]))
	}
	t := 1.0
	if d > maxStep {
		t = maxStep / d
	}
	mix := func(x, y float64) float64 { return math.Round((x+t*(y-x))*1e4) / 1e4 }
	w := mnemo.Weights{Semantic: mix(from.Semantic, to.Semantic), Keyword: mix(from.Keyword, to.Keyword),
		Recency: mix(from.Recency, to.Recency), Importance: mix(from.Importance, to.Importance),
		Confidence: mix(from.Confidence, to.Confidence), Frequency: mix(from.Frequency, to.Frequency)}
	if r := 1 - w.Sum(); math.Abs(from.Sum()-1) < 1e-6 && math.Abs(r) < 1e-3 {
		ps := []*float64{&w.Semantic, &w.Keyword, &w.Recency, &w.Importance, &w.Confidence, &w.Frequency}
		big := ps[0]
		for _, p := range ps {
			if *p > *big {
				big = p
			}
		}
		*big = math.Round((*big+r)*1e6) / 1e6
	}
	return w
}

// Propose searches a patch of from: the best of the seeds (each moved
// towards by at most one bounded step), climbed by coordinate ascent on
// the search half within the bounds, then the other fields moved back
// towards the defaults where that helps. It returns the patched
// configuration and its evaluation.
func (e Executor) Propose(ctx context.Context, t Teacher, svc *engine.Service, c mnemo.Caller, ns string,
	from mnemo.ScoringConfig, search, held, triples []Probe) (mnemo.ScoringConfig, Evaluation, error) {
	var ev Evaluation
	score1 := func(cfg mnemo.ScoringConfig, ps []Probe) (float64, float64, error) {
		ss, err := t.Score(engine.WithConfig(ctx, cfg), svc, c, ns, ps)
		if err != nil {
			return 0, 0, err
		}
		m, lat := mean(ss)
		return m, lat, nil
	}
	var err error
	if ev.SearchBefore, ev.LatencyBefore, err = score1(from, search); err != nil {
		return from, ev, err
	}
	step := e.Step
	if step <= 0 {
		step = 0.05
	}
	rounds := e.Rounds
	if rounds <= 0 {
		rounds = 4
	}
	base := from.General()
	objective := func(w mnemo.Weights) (float64, error) {
		m, _, err := score1(tuning.WithGeneral(from, w), search)
		return m, err
	}
	best, bestV := base, ev.SearchBefore
	seeds := append([]mnemo.Weights{score.Default().Weights}, e.Seeds...)
	tried := map[mnemo.Weights]bool{base: true}
	for _, s := range seeds {
		// One bounded step towards the seed: shrunk until every intent's
		// weights (derived from the general ones) move within the bound.
		w := toward(base, s, MaxWeightStep)
		for k := 0; k < 20 && !CheckStep(from, tuning.WithGeneral(from, w)).OK; k++ {
			w = toward(base, s, MaxWeightStep*math.Pow(0.85, float64(k+1)))
		}
		if tried[w] || !CheckConfig(tuning.WithGeneral(from, w)).OK || !CheckStep(from, tuning.WithGeneral(from, w)).OK {
			continue
		}
		tried[w] = true
		v, err := objective(w)
		if err != nil {
			return from, ev, err
		}
		if v > bestV+1e-9 {
			best, bestV = w, v
		}
	}
	valid := func(w mnemo.Weights) bool {
		cfg := tuning.WithGeneral(from, w)
		return CheckConfig(cfg).OK && CheckStep(from, cfg).OK
	}
	best, bestV, err = tuning.SearchWeights(best, bestV, step, rounds, valid, objective)
	if err != nil {
		return from, ev, err
	}
	patch := tuning.WithGeneral(from, best)
	if best == base {
		patch = from.Clone() // keep intents the document sets on their own
	}
	// The other fields: back towards the defaults, one bounded step, where
	// that raises the search half's score.
	def := svc.DefaultConfig()
	moves := []func(mnemo.ScoringConfig) mnemo.ScoringConfig{
		func(c mnemo.ScoringConfig) mnemo.ScoringConfig {
			d := def.RecencyFloor - c.RecencyFloor
			c.RecencyFloor += math.Max(-MaxFloorStep, math.Min(MaxFloorStep, d))
			return c
		},
		func(c mnemo.ScoringConfig) mnemo.ScoringConfig {
			c.DefaultHalfLife = stepFactor(c.DefaultHalfLife, def.DefaultHalfLife, MaxHalfLifeFactor)
			return c
		},
		func(c mnemo.ScoringConfig) mnemo.ScoringConfig {
			if len(c.HalfLives) != len(def.HalfLives) {
				return c
			}
			c.HalfLives = slices.Clone(c.HalfLives)
			for i := range c.HalfLives {
				if c.HalfLives[i].Prefix == def.HalfLives[i].Prefix {
					c.HalfLives[i].Days = stepFactor(c.HalfLives[i].Days, def.HalfLives[i].Days, MaxHalfLifeFactor)
				}
			}
			return c
		},
		func(c mnemo.ScoringConfig) mnemo.ScoringConfig {
			c.Candidates = int(math.Round(stepFactor(float64(c.Candidates), float64(def.Candidates), MaxCandidateStep)))
			return c
		},
		func(c mnemo.ScoringConfig) mnemo.ScoringConfig { c.MinRelevance = def.MinRelevance; return c },
		func(c mnemo.ScoringConfig) mnemo.ScoringConfig { c.DedupThreshold = def.DedupThreshold; return c },
	}
	for _, mv := range moves {
		cand := mv(patch.Clone())
		if len(Diff(patch, cand)) == 0 || !CheckConfig(cand).OK || !CheckStep(from, cand).OK {
			continue
		}
		v, _, err := score1(cand, search)
		if err != nil {
			return from, ev, err
		}
		if v > bestV+1e-9 {
			patch, bestV = cand, v
		}
	}
	ev.SearchAfter = bestV
	if _, ev.LatencyAfter, err = score1(patch, search); err != nil {
		return from, ev, err
	}
	if ev.HeldBefore, _, err = score1(from, held); err != nil {
		return from, ev, err
	}
	if ev.HeldAfter, _, err = score1(patch, held); err != nil {
		return from, ev, err
	}
	if len(triples) > 0 {
		_, tHeld := half(triples)
		ev.Triples = len(tHeld)
		if ev.TriplesBefore, _, err = score1(from, tHeld); err != nil {
			return from, ev, err
		}
		if ev.TriplesAfter, _, err = score1(patch, tHeld); err != nil {
			return from, ev, err
		}
	}
	return patch, ev, nil
}

// stepFactor moves x towards y by at most a factor f.
func stepFactor(x, y, f float64) float64 {
	if !(x > 0) || !(y > 0) {
		return y
	}
	return math.Max(x/f, math.Min(x*f, y))
}

// ColdRun is one cold-loop run, as stored and reported.
type ColdRun struct {
	Namespace        string      `json:"namespace"`
	At               time.Time   `json:"at"`
	Triggered        bool        `json:"triggered"`
	Reason           string      `json:"reason"`
	Findings         []Finding   `json:"findings"`
	Patch            []Change    `json:"patch"`
	Accepted         bool        `json:"accepted"`
	Rule             string      `json:"rule"` // the rule that failed; "" when accepted
	Detail           string      `json:"detail"`
	ValidationBefore float64     `json:"validation_before"`
	ValidationAfter  float64     `json:"validation_after"`
	Version          int         `json:"version"` // the configuration version in force after the run
	Pending          string      `json:"pending,omitempty"`
	Evaluation       *Evaluation `json:"evaluation,omitempty"`
	Probes           int         `json:"probes"`
	Millis           int64       `json:"ms"`
}

// Pending is an accepted patch waiting for a person's approval.
type Pending struct {
	ID         string              `json:"id"`
	At         time.Time           `json:"at"`
	From       int                 `json:"from_version"`
	Config     mnemo.ScoringConfig `json:"config"`
	Patch      []Change            `json:"patch"`
	Reason     string              `json:"reason"`
	Evaluation Evaluation          `json:"evaluation"`
}

// triples returns the namespace's correction triples of the last 90 days
// as probes (kind correction) expecting the missed records still visible.
func (l *Loops) triples(ctx context.Context, c mnemo.Caller, ns string) ([]Probe, error) {
	var out []Probe
	_, err := l.Svc.CorrectionTriples(mnemo.WithCallerIn(ctx, c, ns), mnemo.CorrectionRequest{}, func(t mnemo.CorrectionTriple) error {
		if len(out) >= 400 || len(t.Missed) == 0 {
			return nil
		}
		var ids []string
		for _, id := range t.Missed {
			if r, err := l.Svc.Get(mnemo.WithCallerIn(ctx, c, ns), id); err == nil && r.DeletedAt == nil {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 && engine.MaxQueryBytes >= len(t.Query) {
			out = append(out, Probe{Kind: KindCorrection, Query: t.Query, Expect: ids, Intent: score.Classify(t.Query)})
		}
		return nil
	})

	return out, err
}

// Cold runs the cold loop once for namespace ns as caller c: the probes
// are scored with the active configuration; when the Researcher triggers,
// the Executor proposes a patch and the Mentor judges it; an accepted
// patch becomes a new configuration version (author loop/mentor), or with
// Manual waits for approval. Every run is stored.
func (l *Loops) Cold(ctx context.Context, c mnemo.Caller, ns string) (*ColdRun, error) {
	ns = nsOf(ns)
	defer l.lock(ns)()
	start := time.Now()
	rd, err := l.score(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	cv, kept, scored := rd.active, rd.kept, rd.scored
	run := &ColdRun{Namespace: ns, At: l.now().UTC(), Findings: []Finding{}, Patch: []Change{}, Version: cv.Version, Probes: len(scored)}
	run.ValidationBefore, _ = mean(scored)
	run.ValidationAfter = run.ValidationBefore
	rs := Researcher{Threshold: l.threshold(), CorrectionShare: l.CorrectionShare}
	if rs.CorrectionShare <= 0 {
		rs.CorrectionShare = 0.5
	}
	now := l.Svc.Now()
	rep, err := l.Svc.Corrections(mnemo.WithCallerIn(ctx, c, ns), mnemo.CorrectionRequest{Since: now.Add(-30 * 24 * time.Hour), Until: now.Add(time.Nanosecond), Bucket: mnemo.BucketMonth})
	if err != nil {
		return nil, err
	}
	run.Triggered, run.Reason = rs.Trigger(run.ValidationBefore, rep)
	run.Findings = rs.Findings(breakdown(scored))
	st, err := loadState(ctx, l.Svc.Store(), ns)
	if err != nil {
		return nil, err
	}
	finish := func() (*ColdRun, error) {
		run.Millis = time.Since(start).Milliseconds()
		st.Cold = append(st.Cold, *run)
		if err := saveState(ctx, l.Svc.Store(), ns, st); err != nil {
			return nil, err
		}
		return run, nil
	}
	if !run.Triggered || len(kept) == 0 {
		if len(kept) == 0 {
			run.Triggered, run.Reason = false, "no probes: the namespace holds no records the loop may see"
		}
		return finish()
	}
	triples, err := l.triples(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	search, held := half(kept)
	ts, _ := half(triples)
	search = append(search, ts...)
	ex := Executor{}
	if t, err := l.Svc.Tuning(mnemo.WithCallerIn(ctx, c, ns)); err == nil {
		for i := len(t.Versions) - 1; i >= 0 && len(ex.Seeds) < 5; i-- {
			if v := t.Versions[i]; v.Version != cv.Version {
				cfg, err := l.Svc.Config(mnemo.WithCallerIn(ctx, c, ns), v.Version)
				if err == nil && CheckConfig(cfg.Config).OK {
					ex.Seeds = append(ex.Seeds, cfg.Config.General())
				}
			}
		}
	}
	patch, ev, err := ex.Propose(ctx, l.Teacher, l.Svc, c, ns, cv.Config, search, held, triples)
	if err != nil {
		return nil, err
	}
	run.Evaluation = &ev
	run.Patch = Diff(cv.Config, patch)
	if run.Patch == nil {
		run.Patch = []Change{}
	}
	v := l.Mentor.Judge(cv.Config, patch, ev)
	run.Accepted, run.Rule, run.Detail = v.OK, v.Rule, v.Detail
	if !v.OK {
		return finish()
	}
	nS, nH := float64(len(search)-len(ts)), float64(len(held))
	after := ev.SearchAfter
	if len(ts) == 0 && nS+nH > 0 {
		after = (ev.SearchAfter*nS + ev.HeldAfter*nH) / (nS + nH)
	} else if all, err := l.Teacher.Score(engine.WithConfig(ctx, patch), l.Svc, c, ns, kept); err == nil {
		after, _ = mean(all)
	} else {
		return nil, err
	}
	run.ValidationAfter = after
	eval := map[string]float64{"validation_before": run.ValidationBefore, "validation_after": after,
		"search_before": ev.SearchBefore, "search_after": ev.SearchAfter, "held_out_before": ev.HeldBefore,
		"held_out_after": ev.HeldAfter, "latency_ms": ev.LatencyAfter, "probes": float64(len(kept))}
	reason := run.Reason + "; " + v.Detail
	if l.Manual {
		id := run.At.Format("20060102T150405") + "-" + strconv.Itoa(len(st.Cold)+1)
		st.Pending = append(st.Pending, Pending{ID: id, At: run.At, From: cv.Version, Config: patch, Patch: run.Patch, Reason: reason, Evaluation: ev})
		run.Pending = id
		return finish()
	}
	nv, err := l.Svc.ApplyConfig(mnemo.WithCallerIn(ctx, c, ns), patch, tuning.ConfigChange{Action: "loop", Author: "loop/mentor", Reason: reason, Evaluation: eval})
	if err != nil {
		return nil, err
	}
	run.Version = nv.Version
	return finish()
}

// Approve applies a pending patch as a new version by c (it must still
// pass the configuration's own rules and the bounded step from the
// version now active). Errors: ENOTFOUND for an unknown id, ECONFLICT when
// a rule fails now.
func (l *Loops) Approve(ctx context.Context, c mnemo.Caller, ns, id string) (*tuning.ConfigVersion, error) {
	ns = nsOf(ns)
	defer l.lock(ns)()
	st, err := loadState(ctx, l.Svc.Store(), ns)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(st.Pending, func(p Pending) bool { return p.ID == id })
	if i < 0 {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "no pending patch %q in %s", id, ns)
	}
	p := st.Pending[i]
	cv, err := l.Svc.Config(mnemo.WithCallerIn(ctx, c, ns), -1)
	if err != nil {
		return nil, err
	}
	if v := CheckConfig(p.Config); !v.OK {
		return nil, mnemo.Errorf(mnemo.ECONFLICT, "rule %s: %s", v.Rule, v.Detail)
	}
	if v := CheckStep(cv.Config, p.Config); !v.OK {
		return nil, mnemo.Errorf(mnemo.ECONFLICT, "rule %s: %s (the active version changed since the patch was proposed)", v.Rule, v.Detail)
	}
	ev := p.Evaluation
	nv, err := l.Svc.ApplyConfig(mnemo.WithCallerIn(ctx, c, ns), p.Config, tuning.ConfigChange{Action: "loop", Author: c.Name,
		Reason: "approved patch " + id + ": " + p.Reason, Evaluation: map[string]float64{"search_before": ev.SearchBefore,
			"search_after": ev.SearchAfter, "held_out_before": ev.HeldBefore, "held_out_after": ev.HeldAfter}})

	if err != nil {
		return nil, err
	}
	st.Pending = slices.Delete(st.Pending, i, i+1)
	return nv, saveState(ctx, l.Svc.Store(), ns, st)
}

// Reject drops a pending patch. Errors: ENOTFOUND for an unknown id.
func (l *Loops) Reject(ctx context.Context, ns, id string) error {
	ns = nsOf(ns)
	defer l.lock(ns)()
	st, err := loadState(ctx, l.Svc.Store(), ns)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(st.Pending, func(p Pending) bool { return p.ID == id })
	if i < 0 {
		return mnemo.Errorf(mnemo.ENOTFOUND, "no pending patch %q in %s", id, ns)
	}
	st.Pending = slices.Delete(st.Pending, i, i+1)
	return saveState(ctx, l.Svc.Store(), ns, st)
}

// Point is one validation score of the trend.
type Point struct {
	At         time.Time `json:"at"`
	Validation float64   `json:"validation"`
	Probes     int       `json:"probes"`
	Version    int       `json:"config_version"`
}

// Status is the loops' state of a namespace.
type Status struct {
	Namespace   string    `json:"namespace"`
	Version     int       `json:"config_version"`
	Trend       []Point   `json:"validation_trend"` // the last warm runs, oldest first
	LastWarm    *WarmRun  `json:"last_warm"`
	LastTrigger *ColdRun  `json:"last_trigger"` // the last cold run that triggered
	LastPatch   *ColdRun  `json:"last_patch"`   // the last cold run whose patch was accepted
	Pending     []Pending `json:"pending"`
	Adjusted    int       `json:"adjusted_records"` // records whose importance the loops moved
	Threshold   float64   `json:"threshold"`
}

// Status reports the namespace's validation trend, last trigger, last
// patch and pending approvals.
func (l *Loops) Status(ctx context.Context, c mnemo.Caller, ns string) (*Status, error) {
	ns = nsOf(ns)
	st, err := loadState(ctx, l.Svc.Store(), ns)
	if err != nil {
		return nil, err
	}
	cv, err := l.Svc.Config(mnemo.WithCallerIn(ctx, c, ns), -1)
	if err != nil {
		return nil, err
	}
	s := &Status{Namespace: ns, Version: cv.Version, Trend: []Point{}, LastWarm: st.lastWarm(), Pending: st.Pending,
		Threshold: l.threshold()}
	if s.Pending == nil {
		s.Pending = []Pending{}
	}
	for _, w := range st.Warm[max(0, len(st.Warm)-30):] {
		s.Trend = append(s.Trend, Point{At: w.At, Validation: w.Validation, Probes: w.Probes, Version: w.Version})
	}
	for i := len(st.Cold) - 1; i >= 0; i-- {
		r := st.Cold[i]
		if s.LastTrigger == nil && r.Triggered {
			s.LastTrigger = &r
		}
		if s.LastPatch == nil && r.Accepted {
			s.LastPatch = &r
		}
	}
	for _, a := range st.Adjustments {
		if a.Delta != 0 {
			s.Adjusted++
		}
	}
	return s, nil
}

// Due reports whether the Researcher would trigger the cold loop from what
// is stored, without running a probe: the last warm run is below the
// threshold and no cold run followed it.
func (l *Loops) Due(ctx context.Context, ns string) (bool, error) {
	st, err := loadState(ctx, l.Svc.Store(), nsOf(ns))
	if err != nil {
		return false, err
	}
	w := st.lastWarm()
	if w == nil || w.Validation >= l.threshold() {
		return false, nil
	}
	if c := st.lastCold(); c != nil && !w.At.After(c.At) {
		return false, nil
	}
	return true, nil
}
