package loops_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
	"github.com/mnemo-dev/mnemo/tuning"
)

var admin = mnemo.Caller{Name: "test", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}

type fixture struct {
	svc   *engine.Service
	store *sqlite.Store
	now   time.Time
}

func open(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenize.New("")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: st, now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	// Record ids from a seeded source: the probes a loop draws depend on
	// the ids, so with random ones a run's validation would differ from
	// run to run and a test could pass or fail by chance.
	var seed [32]byte
	copy(seed[:], t.Name())
	entropy := ulid.Monotonic(randv2.NewChaCha8(seed), 0)
	var mu sync.Mutex
	newID := func() string {
		mu.Lock()
		defer mu.Unlock()
		return ulid.MustNew(ulid.Timestamp(f.now), entropy).String()
	}
	svc, err := engine.New(ctx, engine.Config{Store: st, Embedder: embed.NewHash(256), Tokenizer: tok,
		Now: func() time.Time { return f.now }, NewID: newID, NoLearned: true})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	f.svc = svc
	t.Cleanup(func() { svc.Close(); st.Close() })
	return f
}

// syllables build made-up words that no thesaurus knows and no two
// records share by accident.
var syllables = strings.Fields("ka lo mi ru ze tan vor pel dim sho gra nu bex fi tul om")

func madeUp(r *rand.Rand) string {
	var b strings.Builder
	for range 3 {
		b.WriteString(syllables[r.Intn(len(syllables))])
	}
	return b.String()
}

// seed writes topics × perTopic records: each holds its topic, two of the
// topic's shared words and three words of its own, with ages and
// importance at random, so that only relevance tells a record from its
// siblings. It returns the ids.
func (f *fixture) seed(t testing.TB, ns string, topics, perTopic int, seed int64, level int) []string {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	var recs []mnemo.NewRecord
	for i := range topics {
		topic := fmt.Sprintf("unit%c%c", 'a'+i%26, 'a'+(i/26)%26)
		shared := []string{madeUp(r), madeUp(r), madeUp(r), madeUp(r)}
		for j := range perTopic {
			code := ""
			if j%4 == 0 {
				code = fmt.Sprintf(" ref K%d", 100*i+j)
			}
			imp := r.Float64()
			at := f.now.Add(-time.Duration(r.Intn(400*24)) * time.Hour)
			text := fmt.Sprintf("%s %s %s %s %s %s checklist%s", topic, shared[r.Intn(4)], shared[r.Intn(4)], madeUp(r), madeUp(r), madeUp(r), code)
			recs = append(recs, mnemo.NewRecord{Text: text, Scope: "/ops/" + topic, Importance: &imp, At: &at, AccessLevel: level})
		}
	}
	var ids []string
	for i := 0; i < len(recs); i += 500 {
		out, err := f.svc.Remember(mnemo.WithCallerIn(context.Background(), admin, ns), recs[i:min(i+500, len(recs))], mnemo.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range out {
			ids = append(ids, w.ID)
		}
	}
	return ids
}

// broken ignores meaning: no weight on semantic or keyword evidence.
func broken(svc *engine.Service) mnemo.ScoringConfig {
	return tuning.WithGeneral(svc.DefaultConfig(), mnemo.Weights{Recency: 0.5, Importance: 0.3, Confidence: 0.1, Frequency: 0.1})
}

func TestConfigVersions(t *testing.T) {
	f := open(t)
	ctx := context.Background()
	cv, err := f.svc.Config(mnemo.WithCallerIn(ctx, admin, "ops"), -1)
	if err != nil || cv.Version != 0 || !cv.Active || len(cv.Config.Weights) != 5 {
		t.Fatalf("default: %+v %v", cv, err)
	}
	if v := loops.CheckConfig(cv.Config); !v.OK {
		t.Fatalf("the default configuration fails %s: %s", v.Rule, v.Detail)
	}
	next := tuning.WithGeneral(cv.Config, mnemo.Weights{Semantic: 0.4, Keyword: 0.3, Recency: 0.1, Importance: 0.1, Confidence: 0.05, Frequency: 0.05})
	next.RecencyFloor = 0.1
	v1, err := f.svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, "ops"), next, tuning.ConfigChange{Reason: "more relevance", Evaluation: map[string]float64{"validation_after": 0.9}})
	if err != nil || v1.Version != 1 || v1.Author != "test" {
		t.Fatalf("apply: %+v %v", v1, err)
	}
	rec, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.RecallRequest{Query: "anything at all", Intent: "general"})
	if err != nil || rec.Weights[mnemo.FactorSemantic] != 0.4 {
		t.Fatalf("recall does not use version 1: %v %v", rec, err)
	}
	d := loops.Diff(cv.Config, v1.Config)
	fields := []string{}
	for _, c := range d {
		fields = append(fields, c.Field)
	}
	if !slices.Contains(fields, "weights.general.semantic") || !slices.Contains(fields, "recency_floor") {
		t.Errorf("diff: %+v", d)
	}
	// History: tune and config share it; rollback to 0 and forward.
	tn, err := f.svc.Rollback(mnemo.WithCallerIn(ctx, admin, "ops"), 0)
	if err != nil || tn.Active != 0 {
		t.Fatal(err)
	}
	if rec, _ := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.RecallRequest{Query: "anything at all", Intent: "general"}); rec.Weights[mnemo.FactorSemantic] != score.Default().Weights.Semantic {
		t.Errorf("rollback to 0 kept version 1: %v", rec.Weights)
	}
	got, err := f.svc.Config(mnemo.WithCallerIn(ctx, admin, "ops"), 1)
	if err != nil || got.Active || got.Reason != "more relevance" || got.Evaluation["validation_after"] != 0.9 || got.Config.RecencyFloor != 0.1 {
		t.Errorf("version 1: %+v %v", got, err)
	}
	if _, err := f.svc.Config(mnemo.WithCallerIn(ctx, admin, "ops"), 7); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("unknown version: %v", err)
	}
	// A document missing an intent or with unknown fields is refused.
	if _, err := tuning.ParseConfig([]byte(`{"weights":{"general":{"semantic":1}}}`)); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("missing intents: %v", err)
	}
	if _, err := tuning.ParseConfig([]byte(`{"wieghts":{}}`)); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("unknown field: %v", err)
	}
	// Another namespace is untouched.
	if o, _ := f.svc.Config(mnemo.WithCallerIn(ctx, admin, "elsewhere"), -1); o.Version != 0 {
		t.Errorf("another namespace: %+v", o)
	}
}

// A broken patch is rejected with the rule that failed.
func TestMentorRejectsBrokenPatches(t *testing.T) {
	f := open(t)
	from := f.svc.DefaultConfig()
	m := loops.Mentor{}
	good := loops.Evaluation{SearchBefore: 0.6, SearchAfter: 0.8, HeldBefore: 0.6, HeldAfter: 0.7}
	sum17 := from.Clone()
	w := sum17.Weights[string(score.IntentGeneral)]
	w.Semantic += 0.7
	sum17.Weights[string(score.IntentGeneral)] = w
	zero := from.Clone()
	zero.HalfLives[3].Days = 0
	floor := from.Clone()
	floor.RecencyFloor = 0.3
	neg := tuning.WithGeneral(from, mnemo.Weights{Semantic: 1.2, Keyword: -0.2})
	far := tuning.WithGeneral(from, mnemo.Weights{Semantic: 0.9, Keyword: 0.1})
	near := tuning.WithGeneral(from, mnemo.Weights{Semantic: 0.4, Keyword: 0.25, Recency: 0.1, Importance: 0.1, Confidence: 0.1, Frequency: 0.05})
	cases := []struct {
		name string
		to   mnemo.ScoringConfig
		ev   loops.Evaluation
		rule string
	}{
		{"weights summing to 1.7", sum17, good, loops.RuleWeightsSum},
		{"a half-life of 0", zero, good, loops.RuleHalfLives},
		{"a floor above 0.2", floor, good, loops.RuleFloor},
		{"a negative weight", neg, good, loops.RuleWeightsRange},
		{"too big a step", far, good, loops.RuleStep},
		{"no gain", near, loops.Evaluation{SearchBefore: 0.6, SearchAfter: 0.605, HeldBefore: 0.6, HeldAfter: 0.7}, loops.RuleGain},
		{"a held-out regression", near, loops.Evaluation{SearchBefore: 0.6, SearchAfter: 0.8, HeldBefore: 0.7, HeldAfter: 0.6}, loops.RuleHeldOut},
		{"a held-out triple regression", near, loops.Evaluation{SearchBefore: 0.6, SearchAfter: 0.8, HeldBefore: 0.7, HeldAfter: 0.7, Triples: 4, TriplesBefore: 0.5, TriplesAfter: 0.25}, loops.RuleHeldOut},
		{"too slow", near, loops.Evaluation{SearchBefore: 0.6, SearchAfter: 0.8, HeldBefore: 0.7, HeldAfter: 0.7, LatencyBefore: 20, LatencyAfter: 400}, loops.RuleLatency},
	}
	for _, c := range cases {
		v := m.Judge(from, c.to, c.ev)
		if v.OK || v.Rule != c.rule || v.Detail == "" {
			t.Errorf("%s: %+v, want rule %s", c.name, v, c.rule)
		}
	}
	if v := m.Judge(from, near, good); !v.OK {
		t.Errorf("a good patch: %+v", v)
	}
}

// The scenario: a broken configuration drops validation below
// 0.80, the cold loop triggers, the Mentor accepts a patch, validation
// recovers to 0.80 or more; every step is in the history and rollback
// works.
func TestColdLoopRepairsABrokenConfiguration(t *testing.T) {
	f := open(t)
	ctx := context.Background()
	f.seed(t, "ops", 12, 16, 1, 0)
	l := loops.New(f.svc)
	l.NoAdjust = true
	good, err := l.Warm(ctx, admin, "ops")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default: validation %.3f on %d probes (%d generated, dropped %v), by kind %v", good.Validation, good.Probes, good.Generated, good.Dropped, good.By["kind"])
	if good.Validation < 0.8 || good.Probes < 40 {
		t.Fatalf("the default configuration scores %.3f on %d probes", good.Validation, good.Probes)
	}
	if c, err := l.Cold(ctx, admin, "ops"); err != nil || c.Triggered || c.Accepted {
		t.Fatalf("cold on a healthy namespace: %+v %v", c, err)
	}
	bad := broken(f.svc)
	if v := loops.CheckConfig(bad); !v.OK {
		t.Fatalf("the broken configuration is out of bounds (%s), want one only the probes catch", v.Rule)
	}
	if _, err := f.svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, "ops"), bad, tuning.ConfigChange{Reason: "forced: ignore meaning"}); err != nil {
		t.Fatal(err)
	}
	low, err := l.Warm(ctx, admin, "ops")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("broken: validation %.3f", low.Validation)
	if low.Validation >= 0.8 || low.Version != 1 {
		t.Fatalf("the broken configuration still scores %.3f (version %d)", low.Validation, low.Version)
	}
	if due, err := l.Due(ctx, "ops"); err != nil || !due {
		t.Errorf("the Researcher does not see the drop: %v %v", due, err)
	}
	cold, err := l.Cold(ctx, admin, "ops")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cold: %s; %s; %.3f -> %.3f, version %d, %d ms, patch %v", cold.Reason, cold.Detail, cold.ValidationBefore, cold.ValidationAfter, cold.Version, cold.Millis, cold.Patch)
	if !cold.Triggered || !cold.Accepted || cold.Rule != "" || cold.Version != 2 || cold.ValidationAfter < 0.8 || len(cold.Findings) == 0 {
		t.Fatalf("cold: %+v", cold)
	}
	after, err := l.Warm(ctx, admin, "ops")
	if err != nil || after.Validation < 0.8 || after.Version != 2 {
		t.Fatalf("warm after the repair: %+v %v", after, err)
	}
	if due, _ := l.Due(ctx, "ops"); due {
		t.Error("still due after the repair")
	}
	tn, err := f.svc.Tuning(mnemo.WithCallerIn(ctx, admin, "ops"))
	if err != nil || len(tn.Versions) != 2 || tn.Versions[1].Author != "loop/mentor" || tn.Versions[1].Action != "loop" ||
		tn.Versions[1].Evaluation["validation_after"] < 0.8 || tn.Versions[0].Reason != "forced: ignore meaning" {
		t.Fatalf("history: %+v %v", tn, err)
	}
	// Rollback to the broken version brings the drop back; forward again.
	if _, err := f.svc.Rollback(mnemo.WithCallerIn(ctx, admin, "ops"), 1); err != nil {
		t.Fatal(err)
	}
	if w, _ := l.Warm(ctx, admin, "ops"); w.Validation >= 0.8 {
		t.Errorf("rolled back to the broken version, validation %.3f", w.Validation)
	}
	if _, err := f.svc.Rollback(mnemo.WithCallerIn(ctx, admin, "ops"), 2); err != nil {
		t.Fatal(err)
	}
	st, err := l.Status(ctx, admin, "ops")
	if err != nil || st.Version != 2 || len(st.Trend) != 4 || st.LastPatch == nil || st.LastTrigger == nil || st.LastPatch.Version != 2 {
		t.Fatalf("status: %+v %v", st, err)
	}
}

// With manual approval an accepted patch waits; approving applies it.
func TestManualApproval(t *testing.T) {
	f := open(t)
	ctx := context.Background()
	f.seed(t, "ops", 8, 16, 2, 0)
	if _, err := f.svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, "ops"), broken(f.svc), tuning.ConfigChange{}); err != nil {
		t.Fatal(err)
	}
	l := loops.New(f.svc)
	l.Manual = true
	cold, err := l.Cold(ctx, admin, "ops")
	if err != nil || !cold.Accepted || cold.Pending == "" || cold.Version != 1 {
		t.Fatalf("manual: %+v %v", cold, err)
	}
	st, _ := l.Status(ctx, admin, "ops")
	if len(st.Pending) != 1 || st.Version != 1 {
		t.Fatalf("status: %+v", st)
	}
	if _, err := l.Approve(ctx, admin, "ops", "nope"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("approve unknown: %v", err)
	}
	nv, err := l.Approve(ctx, mnemo.Caller{Name: "ops-lead", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "ops", cold.Pending)
	if err != nil || nv.Version != 2 || nv.Author != "ops-lead" {
		t.Fatalf("approve: %+v %v", nv, err)
	}
	if st, _ := l.Status(ctx, admin, "ops"); len(st.Pending) != 0 || st.Version != 2 {
		t.Errorf("after approval: %+v", st)
	}
}

// snapshot is everything of a namespace a loop could change: its records
// (importance, update time, access counts), its retrieval log and its
// settings.
func snapshot(t *testing.T, f *fixture, ns string) string {
	t.Helper()
	ctx := context.Background()
	recs, err := f.svc.List(mnemo.WithCallerIn(ctx, admin, ns), mnemo.ListOptions{Limit: 10000, IncludeDeleted: true, IncludeHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s %s %v %v %d %v\n", r.ID, r.Text, r.Importance, r.UpdatedAt, r.AccessCount, r.LastAccessedAt)
	}
	logs, err := f.store.Retrievals(ctx, ns, 1000)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "retrievals %d\n", len(logs))
	for _, k := range []string{"tuning/" + ns, "loops/" + ns} {
		v, _, _ := f.store.Setting(ctx, k)
		fmt.Fprintf(&b, "%s %s\n", k, v)
	}
	return b.String()
}

// Autophagy guard: probes are never stored, the loop's own questions are
// not retrievals, adjustments never pass their cap, a second run on an
// unchanged store changes nothing, and adjustments revert.
func TestAutophagyGuard(t *testing.T) {
	f := open(t)
	ctx := context.Background()
	f.seed(t, "ops", 8, 16, 3, 0)
	if _, err := f.svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, "ops"), broken(f.svc), tuning.ConfigChange{}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n, err := f.store.Count(ctx, "ops")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	l := loops.New(f.svc)
	first, err := l.Warm(ctx, admin, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Adjusted) == 0 {
		t.Fatal("the broken configuration misses records, yet nothing was adjusted")
	}
	if err := f.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if count() != before {
		t.Fatalf("records %d -> %d: a probe was stored", before, count())
	}
	if logs, _ := f.store.Retrievals(ctx, "ops", 10); len(logs) != 0 {
		t.Fatalf("the loop's probes were logged as retrievals: %d", len(logs))
	}
	snap := snapshot(t, f, "ops")
	second, err := l.Warm(ctx, admin, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Adjusted) != 0 || second.Validation != first.Validation && len(first.Adjusted) == 0 {
		t.Errorf("second run adjusted %v", second.Adjusted)
	}
	// The only change of the second run is its own entry in the run log.
	if again := snapshot(t, f, "ops"); stripRuns(again) != stripRuns(snap) {
		t.Errorf("the second run changed the store")
	}
	// Many runs, a week apart each: no adjustment passes the cap.
	base := map[string]float64{}
	for _, e := range first.Adjusted {
		base[e.ID] = e.From
	}
	for range 8 {
		f.now = f.now.Add(8 * 24 * time.Hour)
		if _, err := l.Warm(ctx, admin, "ops"); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := l.Status(ctx, admin, "ops")
	recs, _ := f.svc.List(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.ListOptions{Limit: 10000})
	for _, r := range recs {
		if b, ok := base[r.ID]; ok && math.Abs(r.Importance-b) > 0.15+1e-9 {
			t.Errorf("record %s moved %.3f from its base", r.ID, r.Importance-b)
		}
	}
	t.Logf("%d records adjusted, first run %d", st.Adjusted, len(first.Adjusted))
	ev, err := l.Revert(ctx, admin, "ops")
	if err != nil || len(ev) == 0 {
		t.Fatalf("revert: %v %v", ev, err)
	}
	recs, _ = f.svc.List(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.ListOptions{Limit: 10000})
	for _, r := range recs {
		if b, ok := base[r.ID]; ok && r.Importance != b {
			t.Errorf("record %s at %.3f after the revert, base %.3f", r.ID, r.Importance, b)
		}
	}
}

// stripRuns removes the loops' run log from a snapshot.
func stripRuns(s string) string {
	i := strings.Index(s, "loops/")
	if i < 0 {
		return s
	}
	return s[:i]
}

// A loop run for namespace a reads and changes nothing of b, and a caller
// of low clearance gets probes only from what it may see.
func TestLoopsKeepNamespacesAndClearance(t *testing.T) {
	f := open(t)
	ctx := context.Background()
	aIDs := f.seed(t, "a", 8, 16, 4, 0)
	secret := f.seed(t, "a", 2, 16, 5, 3)
	f.seed(t, "b", 8, 16, 6, 0)
	if _, err := f.svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, "a"), broken(f.svc), tuning.ConfigChange{}); err != nil {
		t.Fatal(err)
	}
	snapB := snapshot(t, f, "b")
	l := loops.New(f.svc)
	if _, err := l.Warm(ctx, admin, "a"); err != nil {
		t.Fatal(err)
	}
	if c, err := l.Cold(ctx, admin, "a"); err != nil || !c.Accepted {
		t.Fatalf("cold a: %+v %v", c, err)
	}
	if snapshot(t, f, "b") != snapB {
		t.Error("a loop run for a changed b")
	}
	// Probes of a caller with clearance 0 never name a record above it.
	low := mnemo.Caller{Name: "low", Clearance: 0, Role: mnemo.RoleAdmin}
	ps, err := l.Intern.Generate(ctx, f.svc, low, "a", f.now)
	if err != nil || len(ps) == 0 {
		t.Fatal(err)
	}
	for _, p := range ps {
		for _, id := range p.Expect {
			if slices.Contains(secret, id) || !slices.Contains(aIDs, id) {
				t.Fatalf("probe %q expects %s, which clearance 0 may not see (or not of a)", p.Query, id)
			}
		}
	}
	run, err := l.Warm(ctx, low, "a")
	if err != nil || run.Clearance != 0 {
		t.Fatal(err)
	}
}

// The schedule: a namespace whose state is unreadable fails alone; the
// others run.
func TestRunnerIsolatesNamespaces(t *testing.T) {
	f := open(t)
	ctx := context.Background()
	f.seed(t, "good", 6, 16, 7, 0)
	f.seed(t, "bad", 4, 8, 8, 0)
	if err := f.store.SetSetting(ctx, "loops/bad", "{not json"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, "good"), broken(f.svc), tuning.ConfigChange{}); err != nil {
		t.Fatal(err)
	}
	r := &loops.Runner{Loops: loops.New(f.svc), Caller: admin}
	r.Tick(ctx)
	m := r.Metrics()
	if m["bad"].Failures != 1 || m["good"].WarmRuns != 1 || m["good"].ColdRuns != 1 || m["good"].Accepted != 1 {
		t.Fatalf("metrics: %+v", m)
	}
	r.Tick(ctx) // nothing due in good: the warm run is fresh, the repair done
	if m := r.Metrics(); m["good"].WarmRuns != 1 || m["good"].ColdRuns != 1 {
		t.Errorf("second tick: %+v", m)
	}
}
