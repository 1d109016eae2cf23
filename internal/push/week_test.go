package push_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/push"
)

// fakeClock is the one clock of a scripted test: the orchestrator's, the
// engine's, the trackers' HTTP clients' (whose Sleep moves it on) and the
// fake servers'. It moves only when the test (or a Sleep) moves it.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Sleep is HTTPOptions.Sleep: the time passes at once.
func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return nil
}

// weekRepo is a real git repository whose commits carry scripted dates.
type weekRepo struct {
	t   testing.TB
	dir string
	// commits by path prefix: what a task whose paths hold the prefix sees.
	commits []weekCommit
}

type weekCommit struct {
	hash string
	file string
	at   time.Time
}

func newWeekRepo(t testing.TB) *weekRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &weekRepo{t: t, dir: t.TempDir()}
	r.git(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "init", "-q", "-b", "main")
	return r
}

func (r *weekRepo) git(at time.Time, args ...string) string {
	r.t.Helper()
	date := at.UTC().Format(time.RFC3339)
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Kim",
		"GIT_AUTHOR_EMAIL=k@example.org", "GIT_COMMITTER_NAME=Kim", "GIT_COMMITTER_EMAIL=k@example.org",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes content to file (appends a line when content is empty) and
// commits it at the given time.
func (r *weekRepo) commit(at time.Time, file, content, msg string) {
	r.t.Helper()
	p := filepath.Join(r.dir, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if content == "" {
		b, _ := os.ReadFile(p)
		content = string(b) + msg + "\n"
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.git(at, "add", file)
	r.git(at, "commit", "-q", "-m", msg)
	r.commits = append(r.commits, weekCommit{hash: r.git(at, "rev-parse", "HEAD"), file: file, at: at})
}

// touching returns the hashes of the commits touching paths in (since, until].
func (r *weekRepo) touching(paths []string, since, until time.Time) []string {
	var out []string
	for _, c := range r.commits {
		if !c.at.After(since) || c.at.After(until) {
			continue
		}
		for _, p := range paths {
			if c.file == p || strings.HasPrefix(c.file, strings.TrimSuffix(p, "/")+"/") {
				out = append(out, c.hash)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// weekTask is what the test knows of one task over the week.
type weekTask struct {
	id     string
	paths  []string
	kind   string // busy, moderate, idle (pulled daily), forgotten (never pulled)
	pull   string // the agent's daily recall naming it; "" for none
	last   time.Time
	times  []time.Time       // refreshes
	ids    map[string]string // artifact -> current record id
	tools  string            // its tools file
	budget int               // its orchestrator's budget (0: none)
}

// TestScriptedWeek runs the orchestrator every hour for a simulated week
// against a fake GitHub and a fake Plane and a real git repository, with
// commits, comments, agents' recalls and memory writes at scripted times,
// and tracker faults on some days. It checks the design's promises: the
// refresh bounds (never twice within 24 h, never idle past a week), busy
// tasks refreshed sooner than idle ones, the three artifacts of every
// refresh with their provenance, each superseding its predecessor, the
// budget taken in priority then criticality order, the newest brief in a
// digest for the task, and faults logged, skipped and retried at the next
// cycle without a half-written refresh.
func TestScriptedWeek(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC) // a Monday
	day := 24 * time.Hour
	at := func(d, h, m int) time.Time {
		return t0.Add(time.Duration(d)*day + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
	}
	clk := &fakeClock{t: t0.Add(-4 * day)}
	svc, st := newServiceClock(t, clk.Now)
	admin := mnemo.Caller{Name: "operator", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	agent := mnemo.Caller{Name: "agent", Role: mnemo.RoleAdmin}
	repo := newWeekRepo(t)

	// The tools files, before the week.
	toolsV1 := `{"tools":[{"name":"plan_pass","inputSchema":{"type":"object","properties":{"station":{"type":"string"}}}},{"name":"old_tool"}]}`
	for _, f := range []string{"routing", "handover", "archive", "uplink", "antenna", "runbook"} {
		repo.commit(t0.Add(-3*day+time.Duration(len(f))*time.Minute), "tools/"+f+".json", toolsV1, "Add the "+f+" tools")
	}

	// ---- the trackers ----
	var ghComments, plComments []ghComment
	for d := range 5 { // weekdays
		ghComments = append(ghComments,
			ghComment{"lee", fmt.Sprintf("Routing status, day %d: the window moved by ten minutes.", d), at(d, 9, 15)},
			ghComment{"ana", fmt.Sprintf("Is the backup link ready for pass %d?", d), at(d, 16, 45)})
		plComments = append(plComments,
			ghComment{"Kim", fmt.Sprintf("Uplink slots booked for day %d.", d), at(d, 10, 10)},
			ghComment{"Lee", fmt.Sprintf("Scheduler dry run %d passed.", d), at(d, 13, 10)},
			ghComment{"Ana", fmt.Sprintf("Do we keep the Kiruna slot on day %d?", d), at(d, 17, 10)})
	}
	body := func(paths, tools string) string {
		return "What this task is about.\r\nPaths: " + paths + "\r\nTools: `tools/" + tools + ".json`\r\n"
	}
	g := newFakeGitHub(t, "acme/ops", []ghIssue{
		{Number: 412, Title: "Night pass routing", Labels: []string{"LONG-TERM", "ops"}, Body: body("routing/, tools/routing.json", "routing"), Comments: ghComments},
		{Number: 413, Title: "Refactor the routing tests", Labels: []string{"LONG-TERM"}, PR: true},
		{Number: 7, Title: "Billing export", Labels: []string{"bug"}},
		{Number: 500, Title: "Ground station handover", Labels: []string{"long-term"}, Body: body("handover/", "handover")},
		{Number: 501, Title: "Telemetry archive", Labels: []string{"LONG-TERM"}, Body: body("archive/", "archive")},
	})
	g.clock = clk.Now
	p := newFakePlane(t, []plItem{
		{ID: "wi-142", Seq: 142, Name: "Uplink scheduler", Labels: []string{"LONG-TERM", "ops"}, Priority: "urgent",
			Desc: "The uplink scheduler.\nPaths: uplink/\nTools: tools/uplink.json", Comments: plComments},
		{ID: "wi-7", Seq: 7, Name: "Billing export", Labels: []string{"bug"}, Priority: "urgent"},
		{ID: "wi-150", Seq: 150, Name: "Antenna maintenance calendar", Labels: []string{"LONG-TERM"}, Priority: "low",
			Desc: "Paths: antenna/\nTools: tools/antenna.json"},
		{ID: "wi-9", Seq: 9, Name: "Old archive", Labels: []string{"LONG-TERM"}, Archived: true},
		{ID: "wi-151", Seq: 151, Name: "Runbook for the spare antenna", Labels: []string{"docs", "LONG-TERM"}, Priority: "none",
			Desc: "Paths: runbook/\nTools: tools/runbook.json"},
	})
	p.clock = clk.Now
	hopt := push.HTTPOptions{Timeout: 10 * time.Second, Now: clk.Now, Sleep: clk.Sleep}
	ghTr := newGitHub(t, g, hopt)
	plTr := newPlane(t, p, hopt)
	ghO := &push.Orchestrator{Svc: svc, Namespace: "ops", Repo: repo.dir, Now: clk.Now}
	plO := &push.Orchestrator{Svc: svc, Namespace: "ops", Repo: repo.dir, Now: clk.Now, Budget: 2}

	tasks := map[string]*weekTask{
		"acme/ops#412": {kind: "busy", paths: []string{"routing/", "tools/routing.json"}, pull: "what changed in night pass routing", tools: "routing"},
		"acme/ops#500": {kind: "idle", paths: []string{"handover/"}, pull: "status of the ground station handover", tools: "handover"},
		"acme/ops#501": {kind: "moderate", paths: []string{"archive/"}, pull: "telemetry archive: where are we", tools: "archive"},
		"OPS-142":      {kind: "busy", paths: []string{"uplink/"}, pull: "uplink scheduler status", tools: "uplink", budget: 2},
		"OPS-150":      {kind: "idle", paths: []string{"antenna/"}, pull: "antenna maintenance calendar next steps", tools: "antenna", budget: 2},
		"OPS-151":      {kind: "forgotten", paths: []string{"runbook/"}, tools: "runbook", budget: 2},
	}
	for id, w := range tasks {
		w.id, w.ids = id, map[string]string{}
	}

	// ---- the script: commits, memory writes and agents' recalls ----
	type event struct {
		at time.Time
		do func()
	}
	var script []event
	for d := range 7 {
		for _, h := range []int{2, 8, 14, 20} {
			if d < 5 {
				script = append(script, event{at(d, h, 20), func() {
					repo.commit(at(d, h, 20), fmt.Sprintf("routing/d%d.go", d), "", fmt.Sprintf("Routing: step %d.%d of the night pass plan", d, h))
				}})
			}
		}
		script = append(script, event{at(d, 11, 20), func() {
			repo.commit(at(d, 11, 20), "archive/batches.go", "", fmt.Sprintf("Archive: batch %d moved to cold storage", d))
		}})
		if d < 5 && d%2 == 0 {
			script = append(script, event{at(d, 12, 40), func() {
				repo.commit(at(d, 12, 40), "uplink/slots.go", "", fmt.Sprintf("Uplink: slot table for day %d", d))
			}})
		}
		script = append(script, event{at(d, 8, 30), func() { // the morning pulls
			for _, w := range tasks {
				if w.pull != "" {
					if _, err := svc.Recall(mnemo.WithCallerIn(ctx, agent, "ops"), mnemo.RecallRequest{Query: w.pull}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}})
	}
	toolsV2 := `[{"name":"plan_pass","inputSchema":{"type":"object","properties":{"station":{"type":"string"},"window":{"type":"string"}},"required":["window"]}},{"name":"check_link"}]`
	script = append(script,
		event{at(2, 10, 50), func() {
			repo.commit(at(2, 10, 50), "tools/routing.json", toolsV2, "Routing tools: check_link, plan_pass window")
		}},
		event{t0.Add(-day), func() {
			if _, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{
				{Text: "Who confirms the Svalbard night pass routing slot with the station?", Tags: []string{mnemo.QuestionTag}},
				{Text: "Who orders the coffee beans for the office kitchen?", Tags: []string{mnemo.QuestionTag}},
			}, mnemo.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
		event{at(3, 12, 5), func() {
			if _, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{{Kind: mnemo.KindDecision,
				Text:     "Night pass routing falls back to the backup link whenever Svalbard is down",
				Decision: &mnemo.Decision{Title: "routing fallback"}}}, mnemo.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}})
	sort.SliceStable(script, func(i, j int) bool { return script[i].at.Before(script[j].at) })

	// ---- faults, each at the first cycle of its day when its task is due by the bounds ----
	type faultPlan struct {
		day    int
		target string // the task that is due when it strikes
		path   string
		fault  func(now time.Time) fault
		want   string // in the cycle's error; "" when the fault is waited out
		tr     string // "github" or "plane"
		read   []string
	}
	ghIssues, ghComments412 := "/repos/acme/ops/issues", "/repos/acme/ops/issues/412/comments"
	proj := "/api/v1/workspaces/acme/projects/" + p.pr + "/"
	untilReset := func(reset time.Time, f fault) fault {
		return func(w http.ResponseWriter, r *http.Request) bool {
			if !clk.Now().Before(reset) {
				return false
			}
			return f(w, r)
		}
	}
	faults := []faultPlan{
		{day: 1, target: "acme/ops#412", path: ghIssues, tr: "github", want: "returned 500",
			fault: func(time.Time) fault { return status(500, `{"message":"Server Error for `+ghToken+`"}`) }},
		{day: 2, target: "acme/ops#412", path: ghComments412, tr: "github", want: "rate limited until",
			fault: func(now time.Time) fault {
				reset := now.Add(time.Hour)
				return untilReset(reset, func(w http.ResponseWriter, r *http.Request) bool {
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
					return status(429, `{"message":"API rate limit exceeded"}`)(w, r)
				})
			}},
		{day: 3, target: "OPS-142", path: proj + "work-items/", tr: "plane", want: "malformed response",
			fault: func(time.Time) fault {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Query().Get("cursor") == "" {
						return false // the first page is fine; the second is cut off
					}
					return status(200, `{"results":[{"id":"wi-151","name":"Runb`)(w, r)
				}
			}},
		{day: 4, target: "OPS-142", path: proj + "work-items/wi-142/comments/", tr: "plane", want: "OPS-142: comments",
			fault: func(time.Time) fault { return status(500, `{"error":"internal error"}`) }, read: []string{"OPS-150", "OPS-151"}},
		{day: 5, target: "acme/ops#412", path: ghIssues, tr: "github", want: "",
			fault: func(now time.Time) fault {
				reset := now.Add(30 * time.Second) // within --rate-wait: waited out
				return untilReset(reset, func(w http.ResponseWriter, r *http.Request) bool {
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
					return status(403, `{"message":"API rate limit exceeded"}`)(w, r)
				})
			}},
		{day: 6, target: "OPS-151", path: proj, tr: "plane", want: "rate limited until",
			fault: func(now time.Time) fault {
				return untilReset(now.Add(time.Hour), func(w http.ResponseWriter, r *http.Request) bool {
					w.Header().Set("Retry-After", "3600")
					return status(429, `{"error":"Too many requests"}`)(w, r)
				})
			}},
	}
	struck := map[int]time.Time{} // fault index -> when

	// ---- helpers over the store ----
	history := func(id string) []*mnemo.Record {
		res, err := st.List(ctx, mnemo.Scope{Namespace: "ops", Clearance: mnemo.MaxAccessLevel}, mnemo.ListOptions{
			Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindRefresh}, Tags: []string{id}}, IncludeHistory: true, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	stateOf := func(id string) string {
		v, _, err := st.Setting(ctx, "refresh/ops/"+id)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	arts := []string{push.ArtifactSummary, push.ArtifactLineage, push.ArtifactQuestions}

	// checkRefresh checks one refresh's records against the script.
	checkRefresh := func(w *weekTask, rep push.TaskReport, now time.Time) {
		t.Helper()
		if len(rep.Written) != 3 {
			t.Fatalf("%s at %s: artifacts %v, want the three", w.id, now, rep.Written)
		}
		since := w.last
		if since.IsZero() {
			since = now.Add(-push.MaxInterval)
		}
		wantCommits := repo.touching(w.paths, since, now)
		if rep.Commits != len(wantCommits) {
			t.Errorf("%s at %s: %d commits reported, the script made %d", w.id, now, rep.Commits, len(wantCommits))
		}
		for _, art := range arts {
			r, err := svc.Get(mnemo.WithCallerIn(ctx, admin, "ops"), rep.Written[art])
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != mnemo.KindRefresh || r.Layer != mnemo.LayerWorkflow || r.Source != push.Source || !r.CreatedAt.Equal(now) ||
				!slices.Contains(r.Tags, w.id) || !slices.Contains(r.Tags, art) || len(r.Provenance) == 0 || r.Provenance[0] != "task:"+w.id {
				t.Errorf("%s %s record %+v", w.id, art, r)
			}
			var got []string
			for _, pv := range r.Provenance {
				if h, ok := strings.CutPrefix(pv, "commit:"); ok {
					got = append(got, h)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, wantCommits) {
				t.Errorf("%s %s at %s: provenance commits %v, want %v", w.id, art, now, got, wantCommits)
			}
			if (art == push.ArtifactSummary) != slices.Contains(r.Provenance, "summary-by:rules") {
				t.Errorf("%s %s provenance %v", w.id, art, r.Provenance)
			}
			if prev := w.ids[art]; prev != "" {
				old, err := svc.Get(mnemo.WithCallerIn(ctx, admin, "ops"), prev)
				if err != nil || old.SupersededBy != r.ID {
					t.Errorf("%s %s: the previous record %s is not superseded by %s: %+v %v", w.id, art, prev, r.ID, old, err)
				}
			}
			switch art {
			case push.ArtifactSummary:
				head := fmt.Sprintf("What changed for %s (", w.id)
				if !strings.HasPrefix(r.Text, head) || !strings.Contains(r.Text, "since "+since.Format("2006-01-02")) {
					t.Errorf("%s summary: %s", w.id, r.Text)
				}
				if n := len(wantCommits); n > 0 && !strings.Contains(r.Text, fmt.Sprintf(" %d commit", n)) {
					t.Errorf("%s summary does not count its %d commits: %s", w.id, n, r.Text)
				}
			case push.ArtifactLineage:
				if !strings.HasPrefix(r.Text, "Tool lineage for "+w.id) {
					t.Errorf("%s lineage: %s", w.id, r.Text)
				}
			case push.ArtifactQuestions:
				if strings.Contains(r.Text, "coffee") {
					t.Errorf("%s: an unrelated question in its brief: %s", w.id, r.Text)
				}
				if w.id == "acme/ops#412" && !strings.Contains(r.Text, "Who confirms the Svalbard night pass routing slot") {
					t.Errorf("%s: the relevant question is missing: %s", w.id, r.Text)
				}
			}
			w.ids[art] = r.ID
		}
	}

	// ---- the week ----
	var logged []string
	var waited time.Duration
	lastRefreshedAt := func(id string) time.Time { return tasks[id].last }
	next := 0
	for h := 0; h <= 7*24; h++ {
		now := t0.Add(time.Duration(h) * time.Hour)
		for ; next < len(script) && !script[next].at.After(now); next++ {
			clk.Set(script[next].at)
			script[next].do()
		}
		clk.Set(now)
		svc.Flush(ctx) // the agents' recalls reach the retrieval log

		// This hour's faults.
		var active []int
		for i, f := range faults {
			if _, done := struck[i]; done || now.Before(at(f.day, 0, 0)) {
				continue
			}
			if last := lastRefreshedAt(f.target); !last.IsZero() && now.Sub(last) >= push.MinInterval {
				(map[string]*fakeAPI{"github": &g.fakeAPI, "plane": &p.fakeAPI})[f.tr].setFault(f.path, f.fault(now))
				struck[i] = now
				active = append(active, i)
			}
		}
		before := map[string]string{}
		counts := map[string]int{}
		for id := range tasks {
			before[id], counts[id] = stateOf(id), len(history(id))
		}

		for _, run := range []struct {
			name string
			o    *push.Orchestrator
			tr   push.Tracker
		}{{"github", ghO, ghTr}, {"plane", plO, plTr}} {
			c0 := clk.Now()
			reps, err := run.o.Cycle(ctx, run.tr, false)
			waited += clk.Now().Sub(c0)
			clk.Set(now) // (a Sleep moved it on)
			if err != nil {
				msg := "mnemo orchestrate: " + err.Error() + " (retrying next cycle)"
				logged = append(logged, msg)
				if strings.Contains(msg, ghToken) || strings.Contains(msg, planeToken) {
					t.Errorf("a token in the log: %s", msg)
				}
			}
			var faulted *faultPlan
			for _, i := range active {
				if faults[i].tr == run.name {
					faulted = &faults[i]
				}
			}
			switch {
			case faulted != nil && faulted.want != "":
				if err == nil || !strings.Contains(err.Error(), faulted.want) {
					t.Errorf("%s, day %d: error %v, want %q", run.name, faulted.day, err, faulted.want)
				}
				var read []string
				for _, r := range reps {
					read = append(read, r.ID)
				}
				sort.Strings(read)
				if !slices.Equal(read, faulted.read) {
					t.Errorf("%s, day %d: tasks read %v, want %v", run.name, faulted.day, read, faulted.read)
				}
			case err != nil:
				t.Errorf("%s at %s: %v", run.name, now, err)
			}

			refreshed := 0
			for _, rep := range reps {
				w := tasks[rep.ID]
				if w == nil {
					t.Fatalf("%s: a task that is not LONG-TERM, or archived, or a pull request: %s", run.name, rep.ID)
				}
				if rep.Error != "" {
					t.Errorf("%s at %s: %s", rep.ID, now, rep.Error)
					continue
				}
				wantDue, _ := push.Due(rep.Priority, w.last, now)
				if rep.Due != wantDue {
					t.Errorf("%s at %s: due %v, want %v (%s)", rep.ID, now, rep.Due, wantDue, rep.Reason)
				}
				since := now.Sub(w.last)
				switch {
				case len(rep.Written) > 0:
					refreshed++
					if !w.last.IsZero() && since < push.MinInterval {
						t.Errorf("%s refreshed %s after the last refresh, within the minimum of %s", rep.ID, since, push.MinInterval)
					}
					if !w.last.IsZero() && since < push.MaxInterval && rep.Priority < push.DueAt {
						t.Errorf("%s refreshed at priority %.2f before a week had passed", rep.ID, rep.Priority)
					}
					checkRefresh(w, rep, now)
					w.last = now
					w.times = append(w.times, now)
				case rep.Deferred:
					if w.budget == 0 {
						t.Errorf("%s deferred without a budget", rep.ID)
					}
				default:
					if w.last.IsZero() || since >= push.MaxInterval {
						t.Errorf("%s at %s: not refreshed %s after the last, past the maximum of %s", rep.ID, now, since, push.MaxInterval)
					}
				}
				if w.kind == "forgotten" && rep.SincePull != push.MaxInterval {
					t.Errorf("%s was never pulled by anyone, yet %s since pulled: the orchestrator's own recalls counted", rep.ID, rep.SincePull)
				}
				if w.pull != "" && h >= 9 && rep.SincePull >= day {
					t.Errorf("%s is pulled every morning, yet %s since pulled", rep.ID, rep.SincePull)
				}
			}
			// The budget, taken in order: priority, then criticality.
			if run.o.Budget > 0 && refreshed > run.o.Budget {
				t.Errorf("%s at %s: %d refreshed over a budget of %d", run.name, now, refreshed, run.o.Budget)
			}
			for _, d := range reps {
				if !d.Deferred {
					continue
				}
				if refreshed != run.o.Budget {
					t.Errorf("%s deferred at %s with %d of %d refreshed", d.ID, now, refreshed, run.o.Budget)
				}
				for _, r := range reps {
					if len(r.Written) > 0 && (r.Priority < d.Priority || r.Priority == d.Priority && r.Criticality < d.Criticality) {
						t.Errorf("%s (%.2f, %.2f) refreshed before %s (%.2f, %.2f)", r.ID, r.Priority, r.Criticality, d.ID, d.Priority, d.Criticality)
					}
				}
			}
		}

		// Nothing half-written: every task has whole refreshes only, the
		// current one of each artifact live, the state naming them.
		for id, w := range tasks {
			hist := history(id)
			if len(hist) != 3*len(w.times) {
				t.Fatalf("%s at %s: %d refresh records for %d refreshes", id, now, len(hist), len(w.times))
			}
			live := map[string]int{}
			for _, r := range hist {
				if r.SupersededBy == "" {
					for _, art := range arts {
						if slices.Contains(r.Tags, art) {
							live[art]++
						}
					}
				}
			}
			var stv struct {
				Last    time.Time         `json:"last"`
				Records map[string]string `json:"records"`
			}
			if s := stateOf(id); s != "" {
				if err := json.Unmarshal([]byte(s), &stv); err != nil {
					t.Fatal(err)
				}
			}
			if len(w.times) > 0 && (live[push.ArtifactSummary] != 1 || live[push.ArtifactLineage] != 1 || live[push.ArtifactQuestions] != 1 ||
				!stv.Last.Equal(w.last) || !maps.Equal(stv.Records, w.ids)) {
				t.Errorf("%s at %s: live artifacts %v, state %+v, want %v at %s", id, now, live, stv, w.ids, w.last)
			}
			if len(w.times) > 0 && w.times[len(w.times)-1].Before(now) && (stateOf(id) != before[id] || len(hist) != counts[id]) {
				t.Errorf("%s at %s: records or state changed without a refresh", id, now)
			}
		}
		// A struck fault is lifted after its cycle; its task is refreshed at the next.
		for _, i := range active {
			f := faults[i]
			(map[string]*fakeAPI{"github": &g.fakeAPI, "plane": &p.fakeAPI})[f.tr].setFault(f.path, nil)
		}
		for i, f := range faults {
			w := tasks[f.target]
			switch when, ok := struck[i]; {
			case !ok:
			case now.Equal(when) && f.want != "":
				if w.last.Equal(now) {
					t.Errorf("day %d: %s refreshed despite the fault", f.day, f.target)
				}
			case now.Equal(when): // waited out: refreshed in this very cycle
				if !w.last.Equal(now) {
					t.Errorf("day %d: %s not refreshed after a short rate limit was waited out", f.day, f.target)
				}
			case now.Equal(when.Add(time.Hour)) && f.want != "":
				if !w.last.Equal(now) {
					t.Errorf("day %d: %s not refreshed at the cycle after the fault", f.day, f.target)
				}
			}
		}
	}

	// ---- the week, in sum ----
	for i, f := range faults {
		if _, ok := struck[i]; !ok {
			t.Errorf("the fault of day %d never struck: its task %s was never due", f.day, f.target)
		}
	}
	if len(logged) != 5 {
		t.Errorf("%d cycles logged an error, want the 5 faults not waited out:\n%s", len(logged), strings.Join(logged, "\n"))
	}
	if waited != 30*time.Second {
		t.Errorf("waited %s for rate limits, want the 30 s of day 5", waited)
	}
	end := t0.Add(7 * day)
	meanGap := func(w *weekTask) time.Duration {
		if len(w.times) < 2 {
			return end.Sub(t0)
		}
		return w.times[len(w.times)-1].Sub(w.times[0]) / time.Duration(len(w.times)-1)
	}
	for id, w := range tasks {
		t.Logf("%-13s %-9s %d refreshes, mean gap %s: %v", id, w.kind, len(w.times), meanGap(w), hours(t0, w.times))
		for i := 1; i < len(w.times); i++ {
			if gap := w.times[i].Sub(w.times[i-1]); gap < push.MinInterval || gap > push.MaxInterval+time.Hour {
				t.Errorf("%s: %s between refreshes", id, gap)
			}
		}
		if end.Sub(w.last) >= push.MaxInterval+time.Hour {
			t.Errorf("%s: idle since %s", id, w.last)
		}
	}
	for _, pair := range [][2]string{{"acme/ops#412", "acme/ops#500"}, {"acme/ops#412", "acme/ops#501"}, {"acme/ops#501", "acme/ops#500"}, {"OPS-142", "OPS-150"}} {
		busy, idle := tasks[pair[0]], tasks[pair[1]]
		if len(busy.times) <= len(idle.times) || meanGap(busy) >= meanGap(idle) {
			t.Errorf("%s (%d refreshes) is not refreshed more often than %s (%d)", pair[0], len(busy.times), pair[1], len(idle.times))
		}
	}
	// Idle and pulled every day: the first cycle, then a week later, no more.
	for _, id := range []string{"acme/ops#500", "OPS-150"} {
		if w := tasks[id]; !slices.Equal(w.times, []time.Time{t0, end}) {
			t.Errorf("%s refreshed at hours %v, want 0 and 168", id, hours(t0, w.times))
		}
	}
	// Over the budget at the first cycle: the least critical of three ties waits an hour.
	if w := tasks["OPS-151"]; len(w.times) == 0 || !w.times[0].Equal(t0.Add(time.Hour)) {
		t.Errorf("OPS-151 first refreshed at hours %v, want 1 (deferred by the budget)", hours(t0, w.times))
	}
	if w := tasks["acme/ops#412"]; len(w.times) < 5 {
		t.Errorf("the busy task was refreshed %d times", len(w.times))
	}
	// The lineage saw the tools change of day 2.
	var lineage []string
	for _, r := range history("acme/ops#412") {
		if slices.Contains(r.Tags, push.ArtifactLineage) {
			lineage = append(lineage, r.Text)
		}
	}
	if !slices.ContainsFunc(lineage, func(s string) bool {
		return strings.Contains(s, "new: check_link.") && strings.Contains(s, "changed: plan_pass: +window.") &&
			strings.Contains(s, "retired: old_tool.")
	}) {
		t.Errorf("no lineage record shows the tools change:\n%s", strings.Join(lineage, "\n"))
	}

	// The newest brief is what a digest for the task shows first: the
	// digest's best-ranked entry, at the head of its workflow section (the
	// digest's sections go by layer: domain, then workflow), no older
	// brief of the task beside it.
	for id, task := range map[string]string{"acme/ops#412": "acme/ops#412 night pass routing", "OPS-142": "OPS-142 uplink scheduler"} {
		newest := tasks[id].ids[push.ArtifactSummary]
		d, err := svc.Digest(mnemo.WithCallerIn(ctx, agent, "ops"), mnemo.DigestRequest{Task: task, Budget: 4000})
		if err != nil {
			t.Fatal(err)
		}
		var workflow []mnemo.DigestEntry
		best := 0
		for i, e := range d.Entries {
			if e.Score > d.Entries[best].Score {
				best = i
			}
			if e.Layer == mnemo.LayerWorkflow {
				workflow = append(workflow, e)
			}
			if e.Kind == mnemo.KindRefresh && strings.HasPrefix(e.Text, "What changed for "+id+" ") && e.ID != newest {
				t.Errorf("%s: an older brief in the digest: %s", id, e.Text)
			}
		}
		if len(workflow) == 0 || workflow[0].ID != newest || d.Entries[best].ID != newest {
			t.Errorf("%s: the newest brief %s is not first:\n%s", id, newest, d.Markdown)
		}
	}
	g.check(t)
	p.check(t)
}

func hours(t0 time.Time, ts []time.Time) []int {
	var out []int
	for _, x := range ts {
		out = append(out, int(x.Sub(t0)/time.Hour))
	}
	return out
}

// TestTrackerToolsLine: a line "Tools: FILE.json" in an issue's body or a
// work item's description names the task's tools file, read only inside
// the repository: a path leaving it, an absolute path, prose or a symbolic
// link out of the repository are not followed; without a repository there
// is no lineage artifact.
func TestTrackerToolsLine(t *testing.T) {
	ctx := context.Background()
	g := newFakeGitHub(t, "acme/ops", []ghIssue{
		{Number: 1, Title: "Inside", Labels: []string{"LONG-TERM"}, Body: "Tools: `tools/a.json`"},
		{Number: 2, Title: "Escapes", Labels: []string{"LONG-TERM"}, Body: "Tools: ../secret.json"},
		{Number: 3, Title: "Absolute", Labels: []string{"LONG-TERM"}, Body: "tools: /etc/secret.json"},
		{Number: 4, Title: "Prose", Labels: []string{"LONG-TERM"}, Body: "Tools: a hammer and a saw"},
		{Number: 5, Title: "Link out", Labels: []string{"LONG-TERM"}, Body: "Mnemo-tools: tools/link.json"},
	})
	tasks, err := newGitHub(t, g, push.HTTPOptions{}).LongTermTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range tasks {
		got = append(got, x.Tools)
	}
	if want := []string{"tools/a.json", "", "", "", "tools/link.json"}; !slices.Equal(got, want) {
		t.Fatalf("tools %q, want %q", got, want)
	}
	repo := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.json")
	os.MkdirAll(filepath.Join(repo, "tools"), 0o755)
	os.WriteFile(filepath.Join(repo, "tools", "a.json"), []byte(`[{"name":"plan_pass"}]`), 0o644)
	os.WriteFile(outside, []byte(`[{"name":"secret_tool"}]`), 0o644)
	if err := os.Symlink(outside, filepath.Join(repo, "tools", "link.json")); err != nil {
		t.Skip("no symbolic links here")
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	svc, _ := newService(t, &now)
	o := &push.Orchestrator{Svc: svc, Namespace: "ops", Repo: repo, Now: func() time.Time { return now }}
	reps, err := o.Cycle(ctx, &push.Static{Tasks: tasks}, false)
	if err == nil || !strings.Contains(err.Error(), "acme/ops#5: tools file") {
		t.Errorf("a link out of the repository: %v", err)
	}
	for _, r := range reps {
		want := map[string]int{"acme/ops#1": 3, "acme/ops#5": 0}[r.ID]
		if want == 0 && r.ID != "acme/ops#5" {
			want = 2
		}
		if len(r.Written) != want {
			t.Errorf("%s: %d artifacts, want %d (%s)", r.ID, len(r.Written), want, r.Error)
		}
		if r.ID == "acme/ops#1" {
			if l, err := svc.Get(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "t", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "ops"), r.Written[push.ArtifactLineage]); err != nil ||
				!strings.Contains(l.Text, "first record of 1 tools: plan_pass.") {
				t.Errorf("lineage %+v %v", l, err)
			}
		}
	}
	// Without a repository, a tracker's tools line is not read at all.
	now = now.Add(time.Hour)
	o2 := &push.Orchestrator{Svc: svc, Namespace: "other", Now: func() time.Time { return now }}
	reps, err = o2.Cycle(ctx, &push.Static{Tasks: tasks}, false)
	if err != nil || len(reps) != 5 || len(reps[0].Written) != 2 {
		t.Errorf("without a repository: %+v %v", reps, err)
	}
}
