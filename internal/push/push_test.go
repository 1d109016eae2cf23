package push_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/internal/push"
)

func TestPriorityAndDue(t *testing.T) {
	day := 24 * time.Hour
	if p := push.Priority(0, 0, 0); p != 0 {
		t.Errorf("nothing happened: %v", p)
	}
	prev := 0.0
	for c := range 10 { // monotone in each argument
		p := push.Priority(c, 1, day)
		if p < prev || p >= 1 {
			t.Fatalf("priority(%d commits) = %v after %v", c, p, prev)
		}
		prev = p
	}
	if push.Priority(5, 0, 0) < push.DueAt || push.Priority(1, 0, day) >= push.DueAt || push.Priority(0, 0, 7*day) < push.DueAt {
		t.Error("five commits or a week without a pull should make a task due; one commit a day later should not")
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		p    float64
		last time.Time
		due  bool
	}{
		{0, time.Time{}, true},                  // never refreshed
		{0.99, now.Add(-23 * time.Hour), false}, // at most one per 24 h
		{0.6, now.Add(-25 * time.Hour), true},
		{0.3, now.Add(-25 * time.Hour), false},
		{0, now.Add(-7 * day), true}, // at least one per week
	} {
		if due, why := push.Due(c.p, c.last, now); due != c.due {
			t.Errorf("Due(%v, %v) = %v (%s), want %v", c.p, c.last, due, why, c.due)
		}
	}
}

func TestParseTracker(t *testing.T) {
	tr, err := push.ParseTracker([]byte(`{"tasks":[{"id":"OPS-1","title":"a","labels":["long-term"]},{"id":"OPS-2","title":"b","labels":["bug"]}]}`))
	if err != nil || len(tr.LongTerm()) != 1 || tr.LongTerm()[0].ID != "OPS-1" {
		t.Fatalf("tracker: %+v %v", tr, err)
	}
	for name, bad := range map[string]string{
		"not JSON":      `tasks: []`,
		"unknown field": `{"tasks":[{"id":"a","title":"b","colour":"red"}]}`,
		"no id":         `{"tasks":[{"title":"b"}]}`,
		"twice":         `{"tasks":[{"id":"a","title":"b"},{"id":"a","title":"c"}]}`,
		"option path":   `{"tasks":[{"id":"a","title":"b","paths":["--output=x"]}]}`,
	} {
		if _, err := push.ParseTracker([]byte(bad)); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestDiff(t *testing.T) {
	schema := func(req []any, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": req}
	}
	before := []push.Tool{
		{Name: "plan_pass", InputSchema: schema([]any{"station"}, map[string]any{"station": map[string]any{"type": "string"}, "power": map[string]any{"type": "integer"}})},
		{Name: "old_tool", InputSchema: schema(nil, nil)},
		{Name: "same", InputSchema: schema(nil, map[string]any{"x": map[string]any{"type": "string"}})},
	}
	now := []push.Tool{
		{Name: "plan_pass", InputSchema: schema([]any{"station", "window"}, map[string]any{"station": map[string]any{"type": "string"},
			"power": map[string]any{"type": "number"}, "window": map[string]any{"type": "string"}})},
		{Name: "same", InputSchema: schema(nil, map[string]any{"x": map[string]any{"type": "string"}})},
		{Name: "new_tool"},
	}
	l := push.Diff(before, now)
	if strings.Join(l.New, ",") != "new_tool" || strings.Join(l.Retired, ",") != "old_tool" ||
		strings.Join(l.Changed, ",") != "plan_pass: power integer→number, +window" {
		t.Errorf("lineage %+v", l)
	}
	if !push.Diff(now, now).Empty() {
		t.Error("a tool set differs from itself")
	}
}

func gitRepo(t *testing.T) (string, func(file, msg, date string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Kim",
			"GIT_AUTHOR_EMAIL=k@example.org", "GIT_COMMITTER_NAME=Kim", "GIT_COMMITTER_EMAIL=k@example.org",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("2026-01-01T00:00:00Z", "init", "-q", "-b", "main")
	commit := func(file, msg, date string) {
		p := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(b, msg+"\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		run(date, "add", ".")
		run(date, "commit", "-q", "-m", msg)
	}
	return dir, commit
}

func TestCycle(t *testing.T) {
	ctx := context.Background()
	repo, commit := gitRepo(t)
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	now := t0
	svc, st := enginetest.Open(t, func(c *engine.Config) { c.Now = func() time.Time { return now } })
	admin := mnemo.Caller{Name: "t", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	if _, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{
		{Kind: mnemo.KindDecision, Text: "Night pass routing goes via Svalbard while Inuvik is in maintenance",
			Decision: &mnemo.Decision{Title: "routing"}, At: ptr(t0.Add(-2 * time.Hour))},
		{Text: "Who confirms the Svalbard night pass routing slot with the station?", Tags: []string{mnemo.QuestionTag}},
		{Text: "Who orders the coffee beans for the office kitchen?", Tags: []string{mnemo.QuestionTag}},
		{Text: "Should the billing export run before the pass window closes?", Tags: []string{mnemo.QuestionTag}},
	}, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	commit("routing/plan.go", "Route night passes via Svalbard", "2026-11-19T10:00:00Z")
	commit("billing/x.go", "Unrelated billing fix", "2026-11-19T11:00:00Z")
	writeTools := func(tools string) {
		if err := os.WriteFile(filepath.Join(repo, "tools.json"), []byte(tools), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeTools(`{"tools":[{"name":"plan_pass","inputSchema":{"type":"object","properties":{"station":{"type":"string"}}}},{"name":"old_tool"}]}`)
	tracker := func() push.Tracker {
		tr, err := push.ParseTracker([]byte(`{"tasks":[
			{"id":"OPS-412","title":"Night pass routing","labels":["LONG-TERM"],"query":"night pass routing Svalbard",
			 "paths":["routing"],"tools":"tools.json","comments":[{"at":"2026-11-19T09:00:00Z","author":"lee","text":"Can we drop Inuvik for good?"}]},
			{"id":"OPS-7","title":"Billing","labels":["bug"],"paths":["billing"]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return &push.Static{Tasks: tr.Tasks}
	}
	o := &push.Orchestrator{Svc: svc, Namespace: "ops", Repo: repo, Now: func() time.Time { return now }}

	dry, err := o.Cycle(ctx, tracker(), true)
	if err != nil || len(dry) != 1 || !dry[0].Due || dry[0].Written != nil || dry[0].Commits != 1 || dry[0].Comments != 1 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	reps, err := o.Cycle(ctx, tracker(), false)
	if err != nil || len(reps) != 1 || len(reps[0].Written) != 3 {
		t.Fatalf("first cycle: %+v %v", reps, err)
	}
	read := func(id string) *mnemo.Record {
		r, err := svc.Get(mnemo.WithCallerIn(ctx, admin, "ops"), id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	sum := read(reps[0].Written[push.ArtifactSummary])
	for _, want := range []string{"What changed for OPS-412 (Night pass routing) since 2026-11-13", "1 commit: Route night passes via Svalbard",
		"lee: Can we drop Inuvik for good?", "New in memory: decision Night pass routing goes via Svalbard"} {
		if !strings.Contains(sum.Text, want) {
			t.Errorf("summary lacks %q: %s", want, sum.Text)
		}
	}
	if sum.Kind != mnemo.KindRefresh || sum.Layer != mnemo.LayerWorkflow || sum.Source != push.Source || strings.Contains(sum.Text, "billing") {
		t.Errorf("summary record %+v", sum)
	}
	if l := read(reps[0].Written[push.ArtifactLineage]); !strings.Contains(l.Text, "first record of 2 tools: plan_pass, old_tool") {
		t.Errorf("lineage: %s", l.Text)
	}
	if q := read(reps[0].Written[push.ArtifactQuestions]); !strings.Contains(q.Text, "Can we drop Inuvik for good?") || !strings.Contains(q.Text, "Who confirms the Svalbard") ||
		strings.Contains(q.Text, "coffee") || strings.Contains(q.Text, "billing") {
		t.Errorf("questions: %s", q.Text)
	}

	// An hour later: not again within 24 h, whatever happened.
	now = t0.Add(time.Hour)
	commit("routing/a.go", "Tighten the routing window", "2026-11-20T12:30:00Z")
	if reps, err := o.Cycle(ctx, tracker(), false); err != nil || reps[0].Due || !strings.Contains(reps[0].Reason, "24 h") {
		t.Fatalf("second cycle: %+v %v", reps, err)
	}
	// A day later, with commits and a changed tool set: due again; the new
	// briefs supersede the old ones.
	now = t0.Add(26 * time.Hour)
	commit("routing/b.go", "Add the backup-link check", "2026-11-21T10:00:00Z")
	commit("routing/c.go", "Log every routing decision", "2026-11-21T11:00:00Z")
	writeTools(`[{"name":"plan_pass","inputSchema":{"type":"object","properties":{"station":{"type":"string"},"window":{"type":"string"}},"required":["window"]}},{"name":"check_link"}]`)
	reps2, err := o.Cycle(ctx, tracker(), false)
	if err != nil || !reps2[0].Due || reps2[0].Commits != 3 || len(reps2[0].Written) != 3 {
		t.Fatalf("third cycle: %+v %v", reps2, err)
	}
	if l := read(reps2[0].Written[push.ArtifactLineage]); !strings.Contains(l.Text, "new: check_link.") ||
		!strings.Contains(l.Text, "changed: plan_pass: +window.") ||
		!strings.Contains(l.Text, "retired: old_tool.") {
		t.Errorf("lineage: %s", l.Text)
	}
	if old := read(sum.ID); old.SupersededBy != reps2[0].Written[push.ArtifactSummary] {
		t.Errorf("the old summary is not superseded by the new: %+v", old)
	}
	// The current briefs are what a digest for the task shows.
	d, err := svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: "OPS-412 night pass routing", Budget: 3000})
	if err != nil || !strings.Contains(d.Markdown, "Add the backup-link check") || strings.Contains(d.Markdown, "since 2026-11-13") {
		t.Errorf("digest: %v\n%s", err, d.Markdown)
	}
	var state map[string]any
	if v, ok, _ := st.Setting(ctx, "refresh/ops/OPS-412"); !ok || json.Unmarshal([]byte(v), &state) != nil {
		t.Errorf("no refresh state: %q", v)
	}
}

func ptr[T any](v T) *T { return &v }
