package loops

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// Reasons a probe is dropped.
const (
	DropIllFormed  = "ill_formed"
	DropUngrounded = "ungrounded"
	DropDuplicate  = "duplicate"
)

// Teacher checks probes, scores them and adjusts importance.
type Teacher struct {
	K         int                  // top k a probe's records must come back in; 0 means 10
	Budget    int                  // digest token budget they must fit in; 0 means 2000
	Thesaurus *thesaurus.Thesaurus // grounds paraphrases
	// Step is one importance adjustment (0 means 0.05), Cap the most a
	// record's importance may move from where it was before the loops
	// touched it (0 means 0.15), Every the least time between two
	// adjustments of one record (0 means 7 days).
	Step, Cap float64
	Every     time.Duration
}

func (t Teacher) k() int {
	if t.K > 0 {
		return t.K
	}
	return 10
}

func (t Teacher) budget() int {
	if t.Budget > 0 {
		return t.Budget
	}
	return 2000
}

// Filter keeps the well-formed, grounded, distinct probes; it returns them
// and the number dropped by reason. A probe is grounded when every record
// it expects is live and visible to c and shares a word with the query
// (a paraphrase: a word or a thesaurus relation of one).
func (t Teacher) Filter(ctx context.Context, svc *engine.Service, c mnemo.Caller, ns string, ps []Probe) ([]Probe, map[string]int, error) {
	dropped := map[string]int{}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.Expect...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	recs, err := svc.Store().GetMany(ctx, mnemo.Scope{Namespace: nsOf(ns), Clearance: c.Clearance}, ids)
	if err != nil {
		return nil, nil, err
	}
	live := map[string]map[string]bool{}
	for _, r := range recs {
		if r.DeletedAt != nil {
			continue
		}
		keys := map[string]bool{}
		for _, w := range contentWords(r.Text) {
			keys[w.key] = true
		}
		for _, n := range names(r.Text) {
			keys[strings.ToLower(n)] = true
		}
		live[r.ID] = keys
	}
	seen := map[string]bool{}
	var out []Probe
	for _, p := range ps {
		qw := contentWords(p.Query)
		if !utf8.ValidString(p.Query) || len(p.Query) > 1000 || len(qw) < 2 || len(p.Expect) == 0 {
			dropped[DropIllFormed]++
			continue
		}
		grounded := true
		for _, id := range p.Expect {
			keys, ok := live[id]
			if !ok || !t.shares(qw, keys, p.Kind == KindParaphrase) {
				grounded = false
				break
			}
		}
		if !grounded {
			dropped[DropUngrounded]++
			continue
		}
		var sig []string
		for _, w := range qw {
			sig = append(sig, w.key)
		}
		slices.Sort(sig)
		key := strings.Join(sig, " ") + "|" + strings.Join(p.Expect, ",")
		if seen[key] {
			dropped[DropDuplicate]++
			continue
		}
		seen[key] = true
		out = append(out, p)
	}
	return out, dropped, nil
}

func (t Teacher) shares(qw []word, keys map[string]bool, related bool) bool {
	for _, w := range qw {
		if keys[w.key] || keys[w.surface] {
			return true
		}
		if related && t.Thesaurus != nil {
			for _, r := range t.Thesaurus.Expand(w.surface) {
				if keys[r.Term] {
					return true
				}
			}
		}
	}
	return false
}

// Scored is one probe with how the memory answered it.
type Scored struct {
	Probe
	Score   float64  `json:"score"` // share of the expected records in the top k and the budget
	TopK    []string `json:"top_k"`
	Latency float64  `json:"latency_ms"`
}

// Score asks every probe of ps with the active configuration (or the one
// ctx carries, engine.WithConfig) and returns the scored probes.
func (t Teacher) Score(ctx context.Context, svc *engine.Service, c mnemo.Caller, ns string, ps []Probe) ([]Scored, error) {
	out := make([]Scored, 0, len(ps))
	for _, p := range ps {
		a, err := svc.AnswerProbe(mnemo.WithCallerIn(ctx, c, ns), p.Query, t.k(), t.budget())
		if err != nil {
			return nil, err
		}
		found := 0
		for _, id := range p.Expect {
			if slices.Contains(a.TopK, id) && slices.Contains(a.InBudget, id) {
				found++
			}
		}
		out = append(out, Scored{Probe: p, Score: float64(found) / float64(len(p.Expect)), TopK: a.TopK,
			Latency: float64(a.Latency.Microseconds()) / 1000})
	}
	return out, nil
}

// mean returns the mean score of ss (0 for none) and the mean latency.
func mean(ss []Scored) (float64, float64) {
	if len(ss) == 0 {
		return 0, 0
	}
	sum, lat := 0.0, 0.0
	for _, s := range ss {
		sum += s.Score
		lat += s.Latency
	}
	return sum / float64(len(ss)), lat / float64(len(ss))
}

// breakdown returns the mean score by kind, layer, language, intent, age
// and top-level scope.
func breakdown(ss []Scored) map[string]map[string]float64 {
	sums := map[string]map[string][2]float64{}
	add := func(dim, v string, x float64) {
		if sums[dim] == nil {
			sums[dim] = map[string][2]float64{}
		}
		a := sums[dim][v]
		sums[dim][v] = [2]float64{a[0] + x, a[1] + 1}
	}
	for _, s := range ss {
		add("kind", s.Kind, s.Score)
		add("layer", string(s.Layer), s.Score)
		add("language", s.Lang, s.Score)
		add("intent", string(s.Intent), s.Score)
		age := "older"
		switch {
		case s.Age < 7:
			age = "week"
		case s.Age < 90:
			age = "quarter"
		}
		add("age", age, s.Score)
		sc := "/"
		if parts := strings.SplitN(strings.TrimPrefix(s.Scope, "/"), "/", 2); parts[0] != "" {
			sc = "/" + parts[0]
		}
		add("scope", sc, s.Score)
	}
	out := map[string]map[string]float64{}
	for dim, m := range sums {
		out[dim] = map[string]float64{}
		for v, a := range m {
			out[dim][v] = math.Round(a[0]/a[1]*1000) / 1000
		}
	}
	return out
}

// Adjustment is the importance the loops changed on one record: where it
// was before (Base) and how far they moved it (Delta, within the cap).
type Adjustment struct {
	ID     string    `json:"id"`
	Base   float64   `json:"base"`
	Delta  float64   `json:"delta"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// AdjustmentEvent is one logged change of a record's importance.
type AdjustmentEvent struct {
	At     time.Time `json:"at"`
	ID     string    `json:"id"`
	From   float64   `json:"from"`
	To     float64   `json:"to"`
	Reason string    `json:"reason"` // missed, crowding, revert
}

// Adjust moves the importance of records the scored probes single out: a
// record all of whose probes (at least two) missed it rises by Step; a
// record in the top k of many probes that do not expect it (at least five
// and a fifth of them) falls by Step. A record moves at most once per
// Every and never more than Cap from its base; each change is logged in
// st and reversible (Revert). It returns the events of this call.
func (t Teacher) Adjust(ctx context.Context, svc *engine.Service, c mnemo.Caller, ns string, ss []Scored, st *State, now time.Time) ([]AdjustmentEvent, error) {
	step, cap, every := t.Step, t.Cap, t.Every
	if step <= 0 {
		step = 0.05
	}
	if cap <= 0 {
		cap = 0.15
	}
	if every <= 0 {
		every = 7 * 24 * time.Hour
	}
	expected, missed, crowd := map[string]int{}, map[string]int{}, map[string]int{}
	for _, s := range ss {
		if s.Kind == KindCorrection {
			continue
		}
		for _, id := range s.Expect {
			expected[id]++
			if !slices.Contains(s.TopK, id) {
				missed[id]++
			}
		}
		for _, id := range s.TopK {
			if !slices.Contains(s.Expect, id) {
				crowd[id]++
			}
		}
	}
	want := map[string]float64{}
	reason := map[string]string{}
	for id, n := range expected {
		if n >= 2 && missed[id] == n {
			want[id], reason[id] = step, "missed"
		}
	}
	for id, n := range crowd {
		if n >= 5 && float64(n) >= 0.2*float64(len(ss)) && want[id] == 0 {
			want[id], reason[id] = -step, "crowding"
		}
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var events []AdjustmentEvent
	teacher := c
	teacher.Name = "loop/teacher"
	for _, id := range ids {
		r, err := svc.Get(mnemo.WithCallerIn(ctx, c, ns), id)
		if err != nil || r.DeletedAt != nil {
			continue // gone or out of sight: nothing to adjust
		}
		a := st.Adjustments[id]
		if a != nil && math.Abs(r.Importance-(a.Base+a.Delta)) > 1e-9 {
			a = nil // someone changed it since: their value is the new base
		}
		if a == nil {
			a = &Adjustment{ID: id, Base: r.Importance}
		} else if now.Sub(a.At) < every {
			continue
		}
		delta := math.Max(-cap, math.Min(cap, a.Delta+want[id]))
		to := math.Max(0, math.Min(1, a.Base+delta))
		to = math.Round(to*1e6) / 1e6
		if math.Abs(to-r.Importance) < 1e-9 {
			continue
		}
		if _, err := svc.Update(mnemo.WithCallerIn(ctx, teacher, ns), id, mnemo.RecordPatch{Importance: &to}); err != nil {
			return events, err
		}
		a.Delta, a.At, a.Reason = to-a.Base, now, reason[id]
		st.Adjustments[id] = a
		ev := AdjustmentEvent{At: now, ID: id, From: r.Importance, To: to, Reason: reason[id]}
		st.Log = append(st.Log, ev)
		events = append(events, ev)
	}
	return events, nil
}

// Revert puts every record the loops adjusted back to its base importance,
// unless someone changed it since (then their value stays), and forgets
// the adjustments. It returns the events.
func (t Teacher) Revert(ctx context.Context, svc *engine.Service, c mnemo.Caller, ns string, st *State, now time.Time) ([]AdjustmentEvent, error) {
	ids := make([]string, 0, len(st.Adjustments))
	for id := range st.Adjustments {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	teacher := c
	teacher.Name = "loop/teacher"
	var events []AdjustmentEvent
	for _, id := range ids {
		a := st.Adjustments[id]
		r, err := svc.Get(mnemo.WithCallerIn(ctx, c, ns), id)
		if err == nil && r.DeletedAt == nil && math.Abs(r.Importance-(a.Base+a.Delta)) < 1e-9 && a.Delta != 0 {
			base := a.Base
			if _, err := svc.Update(mnemo.WithCallerIn(ctx, teacher, ns), id, mnemo.RecordPatch{Importance: &base}); err != nil {
				return events, err
			}
			ev := AdjustmentEvent{At: now, ID: id, From: r.Importance, To: base, Reason: "revert"}
			st.Log = append(st.Log, ev)
			events = append(events, ev)
		}
		delete(st.Adjustments, id)
	}
	return events, nil
}

func nsOf(ns string) string {
	if ns == "" {
		return mnemo.DefaultNamespace
	}
	return ns
}
