package push_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/internal/push"
)

const (
	ghToken    = "ghp_secret_token_123"
	planeToken = "plane_api_secret_456"
)

// fault answers a request instead of the fake API when it returns true.
type fault func(w http.ResponseWriter, r *http.Request) bool

// fakeAPI is the part of the fake trackers that injects faults and counts
// requests.
type fakeAPI struct {
	t        testing.TB
	mu       sync.Mutex
	faults   map[string]fault // by URL path
	requests int
	bad      []string // protocol violations seen
}

func (f *fakeAPI) setFault(path string, fl fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.faults == nil {
		f.faults = map[string]fault{}
	}
	if fl == nil {
		delete(f.faults, path)
	} else {
		f.faults[path] = fl
	}
}

func (f *fakeAPI) violation(format string, args ...any) {
	f.mu.Lock()
	f.bad = append(f.bad, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeAPI) check(t testing.TB) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.bad {
		t.Error("protocol: " + b)
	}
}

func (f *fakeAPI) enter(w http.ResponseWriter, r *http.Request) bool {
	f.mu.Lock()
	f.requests++
	fl := f.faults[r.URL.Path]
	f.mu.Unlock()
	if r.Method != http.MethodGet {
		f.violation("%s %s: trackers are only read", r.Method, r.URL.Path)
	}
	return fl != nil && fl(w, r)
}

func (f *fakeAPI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// Faults.
func status(code int, body string) fault {
	return func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write([]byte(body))
		return true
	}
}

func malformed() fault { return status(200, `[{"number": 1, "title": "trunc`) }

func slow(d time.Duration) fault {
	return func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
		}
		return true
	}
}

// ---- a fake GitHub REST API ----

type ghIssue struct {
	Number   int
	Title    string
	Body     string
	Labels   []string
	PR       bool
	Comments []ghComment
}

type ghComment struct {
	Login, Body string
	At          time.Time
}

type fakeGitHub struct {
	fakeAPI
	srv     *httptest.Server
	repo    string
	issues  []ghIssue
	perPage int // the server's page size (the client asks for 100)
	// clock, when set, is the server's time: comments made after it are
	// not there yet.
	clock func() time.Time
}

// visible returns the comments made by the server's time.
func visible(cs []ghComment, clock func() time.Time) []ghComment {
	if clock == nil {
		return cs
	}
	now := clock()
	var out []ghComment
	for _, c := range cs {
		if !c.At.After(now) {
			out = append(out, c)
		}
	}
	return out
}

func newFakeGitHub(t testing.TB, repo string, issues []ghIssue) *fakeGitHub {
	g := &fakeGitHub{fakeAPI: fakeAPI{t: t}, repo: repo, issues: issues, perPage: 2}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

// page answers one page of items with GitHub's Link header.
func (g *fakeGitHub) page(w http.ResponseWriter, r *http.Request, items []any) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	start := min((page-1)*g.perPage, len(items))
	end := min(start+g.perPage, len(items))
	if end < len(items) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		next := "http://" + r.Host + r.URL.Path + "?" + q.Encode()
		q.Set("page", "1")
		first := "http://" + r.Host + r.URL.Path + "?" + q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <%s>; rel="first"`, next, first))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-RateLimit-Remaining", "4999")
	json.NewEncoder(w).Encode(items[start:end])
}

func (g *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") != "2022-11-28" ||
		r.Header.Get("Authorization") != "Bearer "+ghToken {
		g.violation("headers of %s: %v", r.URL.Path, r.Header)
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	if g.enter(w, r) {
		return
	}
	base := "/repos/" + g.repo + "/issues"
	switch {
	case r.URL.Path == base:
		q := r.URL.Query()
		if q.Get("state") != "open" || q.Get("per_page") != "100" {
			g.violation("issues query %s", r.URL.RawQuery)
		}
		var items []any
		for _, is := range g.issues {
			if l := q.Get("labels"); l != "" && !containsFold(is.Labels, l) {
				continue
			}
			var labels []map[string]any
			for i, l := range is.Labels {
				labels = append(labels, map[string]any{"id": i + 1, "name": l, "color": "ededed"})
			}
			item := map[string]any{"id": 1000 + is.Number, "number": is.Number, "title": is.Title, "body": is.Body,
				"state": "open", "labels": labels, "comments": len(visible(is.Comments, g.clock)), "user": map[string]any{"login": "kim"},
				"updated_at": "2026-11-19T10:00:00Z"}
			if is.PR {
				item["pull_request"] = map[string]any{"url": "http://x/pulls/1"}
			}
			items = append(items, item)
		}
		g.page(w, r, items)
	case strings.HasPrefix(r.URL.Path, base+"/") && strings.HasSuffix(r.URL.Path, "/comments"):
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, base+"/"), "/comments"))
		for _, is := range g.issues {
			if is.Number == n {
				var items []any
				for i, c := range visible(is.Comments, g.clock) {
					items = append(items, map[string]any{"id": i + 1, "body": c.Body, "user": map[string]any{"login": c.Login},
						"created_at": c.At.Format(time.RFC3339), "updated_at": c.At.Format(time.RFC3339)})
				}
				g.page(w, r, items)
				return
			}
		}
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	default:
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func ghIssues(t0 time.Time) []ghIssue {
	return []ghIssue{
		{Number: 412, Title: "Night pass routing", Labels: []string{"LONG-TERM", "ops"}, Body: "Routing of night passes.\r\nPaths: routing/, tools.json\r\n",
			Comments: []ghComment{{"lee", "Can we drop Inuvik for good?", t0.Add(-3 * time.Hour)}, {"kim", "Svalbard slot confirmed.", t0.Add(-2 * time.Hour)},
				{"ana", "Backup link tested.", t0.Add(-time.Hour)}}},
		{Number: 413, Title: "Refactor the routing tests", Labels: []string{"LONG-TERM"}, PR: true},
		{Number: 7, Title: "Billing export", Labels: []string{"bug"}},
		{Number: 500, Title: "Ground station handover", Labels: []string{"long-term"}},
		{Number: 501, Title: "Telemetry archive", Labels: []string{"LONG-TERM"}, Comments: []ghComment{{"lee", "Archive moved?", t0.Add(-time.Hour)}}},
	}
}

func newGitHub(t testing.TB, g *fakeGitHub, opt push.HTTPOptions) *push.GitHub {
	t.Helper()
	tr, err := push.NewGitHub(push.GitHubConfig{URL: g.srv.URL, Token: ghToken, Repo: g.repo, HTTPOptions: opt})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func taskIDs(ts []push.Task) string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return strings.Join(ids, ",")
}

// TestGitHubTracker: the open issues with the label (pull requests left
// out), read across Link pages, with their comments across pages, their
// paths from the body; the documented headers on every request.
func TestGitHubTracker(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	g := newFakeGitHub(t, "acme/ops", ghIssues(t0))
	tr := newGitHub(t, g, push.HTTPOptions{})
	tasks, err := tr.LongTermTasks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g.check(t)
	if got := taskIDs(tasks); got != "acme/ops#412,acme/ops#500,acme/ops#501" {
		t.Fatalf("tasks %s", got)
	}
	a := tasks[0]
	if a.Title != "Night pass routing" || strings.Join(a.Paths, " ") != "routing/ tools.json" || len(a.Comments) != 3 ||
		a.Comments[0].Author != "lee" || a.Comments[2].Text != "Backup link tested." || !a.Comments[1].At.Equal(t0.Add(-2*time.Hour)) {
		t.Errorf("task %+v", a)
	}
	// 2 pages of issues, 2 of #412's comments, 1 of #501's; #500 has none.
	if n := tr.Requests(); n != 5 || g.count() != 5 {
		t.Errorf("%d requests (server saw %d), want 5", n, g.count())
	}
	if tr.Name() != "github acme/ops" || strings.Contains(tr.Name(), ghToken) {
		t.Errorf("name %q", tr.Name())
	}
}

// TestGitHubFaults: a failed listing is an error and no tasks; a failed
// comment listing skips that task only; rate limits are waited out when
// short and skip to the next cycle when long; tokens never appear in errors.
func TestGitHubFaults(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	issues := "/repos/acme/ops/issues"
	comments := "/repos/acme/ops/issues/412/comments"
	loop := func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=1>; rel="next"`, r.Host, r.URL.Path))
		w.Write([]byte(`[]`))
		return true
	}
	elsewhere := func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Link", `<http://attacker.example/steal?page=2>; rel="next"`)
		w.Write([]byte(`[]`))
		return true
	}
	reset := strconv.FormatInt(t0.Add(30*time.Minute).Unix(), 10)
	for _, c := range []struct {
		name   string
		path   string
		fault  fault
		tasks  string // ids left
		want   string // in the error
		rate   bool   // a *RateLimitError
		waited time.Duration
	}{
		{"list 500", issues, status(500, `{"message":"Server Error `+ghToken+`"}`), "", "returned 500", false, 0},
		{"list timeout", issues, slow(5 * time.Second), "", "issues", false, 0},
		{"list malformed", issues, malformed(), "", "malformed response", false, 0},
		{"list loops", issues, loop, "", "pagination does not end", false, 0},
		{"next page elsewhere", issues, elsewhere, "", "another host", false, 0},
		{"list 401", issues, status(401, `{"message":"Bad credentials"}`), "", "returned 401: Bad credentials", false, 0},
		{"comments 500", comments, status(502, `bad gateway`), "acme/ops#500,acme/ops#501", "acme/ops#412: comments", false, 0},
		{"comments malformed", comments, malformed(), "acme/ops#500,acme/ops#501", "1 of 3 tasks skipped", false, 0},
		{"primary limit, long", issues, func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", reset)
			return status(403, `{"message":"API rate limit exceeded"}`)(w, r)
		}, "", "rate limited until 2026-11-20T12:30:00Z", true, 0},
		{"secondary limit, long", comments, func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Retry-After", "600")
			return status(429, `{"message":"secondary rate limit"}`)(w, r)
		}, "", "3 of 3 tasks skipped until the next cycle: acme/ops#412: comments: github acme/ops: rate limited until 2026-11-20T12:10:00Z\n2 more not read", true, 0}, // the rest is not asked for
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newFakeGitHub(t, "acme/ops", ghIssues(t0))
			g.setFault(c.path, c.fault)
			var waited time.Duration
			tr := newGitHub(t, g, push.HTTPOptions{Timeout: 500 * time.Millisecond, Now: func() time.Time { return t0 },
				Sleep: func(_ context.Context, d time.Duration) error { waited += d; return nil }})
			tasks, err := tr.LongTermTasks(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), ghToken) {
				t.Errorf("the token is in the error: %v", err)
			}
			if got := taskIDs(tasks); got != c.tasks {
				t.Errorf("tasks %q, want %q", got, c.tasks)
			}
			var rl *push.RateLimitError
			if errors.As(err, &rl) != c.rate {
				t.Errorf("rate limit error: %v", err)
			}
			if waited != c.waited {
				t.Errorf("waited %v", waited)
			}
		})
	}
	// A short rate limit is waited out once, then the cycle goes on.
	g := newFakeGitHub(t, "acme/ops", ghIssues(t0))
	first := true
	g.setFault(issues, func(w http.ResponseWriter, r *http.Request) bool {
		if !first {
			return false
		}
		first = false
		w.Header().Set("Retry-After", "7")
		return status(429, `{"message":"slow down"}`)(w, r)
	})
	var waited time.Duration
	tr := newGitHub(t, g, push.HTTPOptions{Sleep: func(_ context.Context, d time.Duration) error { waited += d; return nil }})
	if tasks, err := tr.LongTermTasks(context.Background()); err != nil || len(tasks) != 3 || waited != 7*time.Second {
		t.Errorf("short limit: %d tasks, %v, waited %v", len(tasks), err, waited)
	}
	if _, err := push.NewGitHub(push.GitHubConfig{Repo: "not a repo"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("bad repo: %v", err)
	}
}

// ---- a fake Plane REST API v1 ----

type plItem struct {
	ID       string
	Seq      int
	Name     string
	Labels   []string // label names
	Priority string
	Desc     string
	Archived bool
	Comments []ghComment
}

type fakePlane struct {
	fakeAPI
	srv     *httptest.Server
	ws, pr  string
	labels  map[string]string // name -> id
	items   []plItem
	perPage int
	clock   func() time.Time // as fakeGitHub.clock
}

func newFakePlane(t testing.TB, items []plItem) *fakePlane {
	p := &fakePlane{fakeAPI: fakeAPI{t: t}, ws: "acme", pr: "4af68566-94a4-4eb3-94aa-50dc9427067b", items: items, perPage: 2,
		labels: map[string]string{"LONG-TERM": "lbl-1", "bug": "lbl-2", "ops": "lbl-3", "docs": "lbl-4"}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// page answers one page in Plane's cursor envelope: cursors are
// "per_page:page:0"; the last page still carries a next_cursor, with
// next_page_results false.
func (p *fakePlane) page(w http.ResponseWriter, r *http.Request, items []any) {
	if r.URL.Query().Get("per_page") != "100" {
		p.violation("per_page of %s: %q", r.URL.Path, r.URL.RawQuery)
	}
	page := 0
	if c := r.URL.Query().Get("cursor"); c != "" {
		parts := strings.Split(c, ":")
		if len(parts) != 3 {
			http.Error(w, `{"error":"Invalid cursor"}`, http.StatusBadRequest)
			return
		}
		page, _ = strconv.Atoi(parts[1])
	}
	start := min(page*p.perPage, len(items))
	end := min(start+p.perPage, len(items))
	if items == nil {
		items = []any{}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"grouped_by": nil, "sub_grouped_by": nil, "total_count": len(items),
		"next_cursor": fmt.Sprintf("%d:%d:0", p.perPage, page+1), "prev_cursor": fmt.Sprintf("%d:%d:1", p.perPage, page-1),
		"next_page_results": end < len(items), "prev_page_results": page > 0,
		"count": end - start, "total_pages": (len(items) + p.perPage - 1) / p.perPage, "total_results": len(items),
		"extra_stats": nil, "results": items[start:end],
	})
}

func (p *fakePlane) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-API-Key") != planeToken || r.Header.Get("Authorization") != "" {
		p.violation("headers of %s: %v", r.URL.Path, r.Header)
		http.Error(w, `{"detail":"Authentication credentials were not provided."}`, http.StatusUnauthorized)
		return
	}
	if p.enter(w, r) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	proj := "/api/v1/workspaces/" + p.ws + "/projects/" + p.pr + "/"
	switch path := r.URL.Path; {
	case path == proj:
		json.NewEncoder(w).Encode(map[string]any{"id": p.pr, "identifier": "OPS", "name": "Operations"})
	case path == proj+"labels/":
		var items []any
		for _, name := range []string{"LONG-TERM", "bug", "ops", "docs"} {
			items = append(items, map[string]any{"id": p.labels[name], "name": name, "color": "#EF4444", "project": p.pr})
		}
		p.page(w, r, items)
	case path == proj+"work-items/":
		var items []any
		for _, it := range p.items {
			var ids []string
			for _, l := range it.Labels {
				ids = append(ids, p.labels[l])
			}
			m := map[string]any{"id": it.ID, "name": it.Name, "sequence_id": it.Seq, "priority": it.Priority, "labels": ids,
				"description_html": "<p>" + strings.ReplaceAll(it.Desc, "\n", "</p><p>") + "</p>", "description_stripped": it.Desc,
				"project": p.pr, "workspace": "ws-1", "state": "st-1", "archived_at": nil, "completed_at": nil}
			if it.Archived {
				m["archived_at"] = "2026-11-01T00:00:00Z"
			}
			items = append(items, m)
		}
		p.page(w, r, items)
	case strings.HasPrefix(path, proj+"work-items/") && strings.HasSuffix(path, "/comments/"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, proj+"work-items/"), "/comments/")
		for _, it := range p.items {
			if it.ID == id {
				var items []any
				for i, c := range visible(it.Comments, p.clock) {
					items = append(items, map[string]any{"id": fmt.Sprintf("c-%d", i), "comment_html": "<p>" + c.Body + "</p>",
						"comment_stripped": c.Body, "created_at": c.At.Format(time.RFC3339Nano), "actor": "u-" + c.Login,
						"actor_detail": map[string]any{"display_name": c.Login}, "issue": id, "access": "INTERNAL"})
				}
				p.page(w, r, items)
				return
			}
		}
		http.Error(w, `{"error":"Work item not found"}`, http.StatusNotFound)
	default:
		http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
	}
}

func planeItems(t0 time.Time) []plItem {
	return []plItem{
		{ID: "wi-412", Seq: 412, Name: "Night pass routing", Labels: []string{"LONG-TERM", "ops"}, Priority: "high",
			Desc: "Routing of night passes.\nPaths: routing/", Comments: []ghComment{{"Lee", "Can we drop Inuvik for good?", t0.Add(-3 * time.Hour)},
				{"Kim", "Svalbard slot confirmed.", t0.Add(-2 * time.Hour)}, {"Ana", "Backup link tested.", t0.Add(-time.Hour)}}},
		{ID: "wi-7", Seq: 7, Name: "Billing export", Labels: []string{"bug"}, Priority: "urgent"},
		{ID: "wi-500", Seq: 500, Name: "Ground station handover", Labels: []string{"LONG-TERM"}, Priority: "urgent"},
		{ID: "wi-9", Seq: 9, Name: "Old archive", Labels: []string{"LONG-TERM"}, Archived: true},
		{ID: "wi-501", Seq: 501, Name: "Telemetry archive", Labels: []string{"docs", "LONG-TERM"}, Priority: "none"},
	}
}

func newPlane(t testing.TB, p *fakePlane, opt push.HTTPOptions) *push.Plane {
	t.Helper()
	tr, err := push.NewPlane(push.PlaneConfig{URL: p.srv.URL, Token: planeToken, Workspace: p.ws, Project: p.pr, HTTPOptions: opt})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestPlaneTracker: the project's work items with the LONG-TERM label
// (archived ones left out), across cursor pages, named by their human keys,
// their priority as criticality, their comments across pages.
func TestPlaneTracker(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p := newFakePlane(t, planeItems(t0))
	tr := newPlane(t, p, push.HTTPOptions{})
	tasks, err := tr.LongTermTasks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.check(t)
	if got := taskIDs(tasks); got != "OPS-412,OPS-500,OPS-501" {
		t.Fatalf("tasks %s", got)
	}
	a := tasks[0]
	if a.Title != "Night pass routing" || strings.Join(a.Paths, " ") != "routing/" || len(a.Comments) != 3 || a.Comments[0].Author != "Lee" ||
		a.Comments[2].Text != "Backup link tested." || a.Criticality != 0.75 || tasks[1].Criticality != 1 || tasks[2].Criticality != 0 {
		t.Errorf("tasks %+v", tasks)
	}
	// project, 2 pages of labels, 3 of work items, 2 of #412's comments, 1 each for #500 and #501.
	if n := tr.Requests(); n != 10 {
		t.Errorf("%d requests, want 10", n)
	}
}

// TestPlaneFaults: as for GitHub, with Plane's cursor loops.
func TestPlaneFaults(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p0 := newFakePlane(t, nil)
	proj := "/api/v1/workspaces/acme/projects/" + p0.pr + "/"
	loop := func(w http.ResponseWriter, r *http.Request) bool {
		json.NewEncoder(w).Encode(map[string]any{"next_cursor": "100:1:0", "next_page_results": true, "results": []any{}})
		return true
	}
	for _, c := range []struct {
		name  string
		path  string
		fault fault
		tasks string
		want  string
		rate  bool
	}{
		{"project 500", proj, status(500, `{"error":"`+planeToken+`"}`), "", "project: plane acme/", false},
		{"labels malformed", proj + "labels/", malformed(), "", "malformed response", false},
		{"work items timeout", proj + "work-items/", slow(5 * time.Second), "", "work items", false},
		{"work items loop", proj + "work-items/", loop, "", "pagination does not end", false},
		{"work items 429", proj + "work-items/", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Retry-After", "3600")
			return status(429, `{"error":"Too many requests"}`)(w, r)
		}, "", "rate limited until 2026-11-20T13:00:00Z", true},
		{"comments 500", proj + "work-items/wi-500/comments/", status(500, `oops`), "OPS-412,OPS-501", "OPS-500: comments", false},
		{"comments 404", proj + "work-items/wi-412/comments/", status(404, `{"error":"gone"}`), "OPS-500,OPS-501", "1 of 3 tasks skipped", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newFakePlane(t, planeItems(t0))
			p.setFault(c.path, c.fault)
			tr := newPlane(t, p, push.HTTPOptions{Timeout: 500 * time.Millisecond, Now: func() time.Time { return t0 },
				Sleep: func(context.Context, time.Duration) error { t.Error("waited"); return nil }})
			tasks, err := tr.LongTermTasks(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), planeToken) {
				t.Fatalf("error %v, want %q and no token", err, c.want)
			}
			if got := taskIDs(tasks); got != c.tasks {
				t.Errorf("tasks %q, want %q", got, c.tasks)
			}
			var rl *push.RateLimitError
			if errors.As(err, &rl) != c.rate {
				t.Errorf("rate limit error: %v", err)
			}
		})
	}
	if _, err := push.NewPlane(push.PlaneConfig{Workspace: "acme"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("no project: %v", err)
	}
}

// ---- the orchestrator over the fake trackers ----

func newService(t testing.TB, now *time.Time) (*engine.Service, mnemo.Store) {
	t.Helper()
	return newServiceClock(t, func() time.Time { return *now })
}

// newServiceClock opens a service on a fresh SQLite file whose clock is now.
func newServiceClock(t testing.TB, now func() time.Time) (*engine.Service, mnemo.Store) {
	t.Helper()
	return enginetest.Open(t, func(c *engine.Config) { c.Now = now })
}

func countRefresh(t testing.TB, svc *engine.Service, ns string) map[string]int {
	t.Helper()
	out := map[string]int{}
	res, err := svc.Store().List(context.Background(), mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel},
		mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindRefresh}}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		for _, tag := range r.Tags {
			out[tag]++
		}
		if strings.Contains(r.Text, ghToken) || strings.Contains(r.Text, planeToken) {
			t.Errorf("a token in a record: %s", r.Text)
		}
	}
	return out
}

// TestCycleSkipsWhatFailed: a cycle over GitHub whose comments fail for one
// issue refreshes the others, writes nothing for that one, and refreshes it
// on the next cycle; a failed listing writes nothing at all.
func TestCycleSkipsWhatFailed(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	now := t0
	svc, st := newService(t, &now)
	g := newFakeGitHub(t, "acme/ops", ghIssues(t0))
	tr := newGitHub(t, g, push.HTTPOptions{Timeout: time.Second})
	o := &push.Orchestrator{Svc: svc, Namespace: "ops", Now: func() time.Time { return now }}

	g.setFault("/repos/acme/ops/issues", status(500, `{"message":"Server Error"}`))
	reps, err := o.Cycle(ctx, tr, false)
	if err == nil || len(reps) != 0 || len(countRefresh(t, svc, "ops")) != 0 {
		t.Fatalf("failed listing: %+v %v", reps, err)
	}
	g.setFault("/repos/acme/ops/issues", nil)
	g.setFault("/repos/acme/ops/issues/412/comments", status(500, `{"message":"Server Error"}`))
	reps, err = o.Cycle(ctx, tr, false)
	if err == nil || !strings.Contains(err.Error(), "github acme/ops: 1 of 3 tasks skipped") || len(reps) != 2 {
		t.Fatalf("cycle with a failed issue: %+v %v", reps, err)
	}
	for _, r := range reps {
		if len(r.Written) != 2 || r.Error != "" {
			t.Errorf("report %+v", r)
		}
	}
	n := countRefresh(t, svc, "ops")
	if n["acme/ops#412"] != 0 || n["acme/ops#500"] != 2 || n["acme/ops#501"] != 2 {
		t.Errorf("records per task %v", n)
	}
	if _, ok, _ := st.Setting(ctx, "refresh/ops/acme/ops#412"); ok {
		t.Error("state written for a skipped task")
	}
	// Next cycle, an hour later: the failed one is refreshed, the others are not due.
	now = t0.Add(time.Hour)
	g.setFault("/repos/acme/ops/issues/412/comments", nil)
	reps, err = o.Cycle(ctx, tr, false)
	if err != nil || len(reps) != 3 || reps[0].ID != "acme/ops#412" || len(reps[0].Written) != 2 || reps[0].Comments != 3 || reps[1].Due || reps[2].Due {
		t.Fatalf("retry: %+v %v", reps, err)
	}
	g.check(t)
}

// TestCycleOverPlaneInPriorityOrder: with a budget of one refresh, the
// task with the most activity goes first, then among equals the most
// critical (Plane's priority); the rest wait, due, for the next cycle.
func TestCycleOverPlaneInPriorityOrder(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	now := t0
	svc, _ := newService(t, &now)
	p := newFakePlane(t, planeItems(t0))
	o := &push.Orchestrator{Svc: svc, Namespace: "ops", Now: func() time.Time { return now }, Budget: 1}
	reps, err := o.Cycle(ctx, newPlane(t, p, push.HTTPOptions{}), false)
	if err != nil || len(reps) != 3 {
		t.Fatalf("%+v %v", reps, err)
	}
	// OPS-412 has three comments: highest priority. OPS-500 (urgent) and
	// OPS-501 (none) tie on priority; criticality orders them.
	if reps[0].ID != "OPS-412" || len(reps[0].Written) != 2 || reps[1].ID != "OPS-500" || !reps[1].Deferred ||
		reps[2].ID != "OPS-501" || !reps[2].Deferred || !strings.Contains(reps[1].Reason, "budget of 1") {
		t.Errorf("order %+v", reps)
	}
	now = t0.Add(time.Minute)
	reps, _ = o.Cycle(ctx, newPlane(t, p, push.HTTPOptions{}), false)
	if reps[0].ID != "OPS-500" || len(reps[0].Written) != 2 || !reps[1].Deferred || reps[2].Due {
		t.Errorf("second cycle %+v", reps)
	}
	p.check(t)
}

// TestCycleStaysInItsNamespace: an orchestrator writes only into its own
// namespace, at its access level, keeps its state per namespace, and never
// copies into a brief a record its readers could not see.
func TestCycleStaysInItsNamespace(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	now := t0
	svc, st := newService(t, &now)
	admin := mnemo.Caller{Name: "t", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	if _, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{
		{Kind: mnemo.KindDecision, Text: "Night pass routing goes via Svalbard while Inuvik is in maintenance", Decision: &mnemo.Decision{Title: "routing"}},
		{Kind: mnemo.KindDecision, Text: "Night pass routing secret: the Inuvik contract ends in March", Decision: &mnemo.Decision{Title: "contract"}, AccessLevel: 3},
	}, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, "finance"), []mnemo.NewRecord{
		{Kind: mnemo.KindDecision, Text: "Night pass routing costs are charged to the ground segment budget", Decision: &mnemo.Decision{Title: "cost"}},
	}, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	g := newFakeGitHub(t, "acme/ops", ghIssues(t0))
	o := &push.Orchestrator{Svc: svc, Namespace: "ops", Now: func() time.Time { return now }, AccessLevel: 1}
	reps, err := o.Cycle(ctx, newGitHub(t, g, push.HTTPOptions{}), false)
	if err != nil || len(reps) != 3 {
		t.Fatalf("%+v %v", reps, err)
	}
	if n := countRefresh(t, svc, "finance"); len(n) != 0 {
		t.Errorf("records written into another namespace: %v", n)
	}
	sum, err := svc.Get(mnemo.WithCallerIn(ctx, admin, "ops"), reps[0].Written[push.ArtifactSummary])
	if err != nil {
		t.Fatal(err)
	}
	if sum.AccessLevel != 1 || sum.Namespace != "ops" || !strings.Contains(sum.Text, "goes via Svalbard") ||
		strings.Contains(sum.Text, "contract ends") || strings.Contains(sum.Text, "ground segment budget") {
		t.Errorf("brief %d %s: %s", sum.AccessLevel, sum.Namespace, sum.Text)
	}
	if _, ok, _ := st.Setting(ctx, "refresh/finance/acme/ops#412"); ok {
		t.Error("state kept under another namespace")
	}
	// The same tracker for another namespace refreshes there independently.
	o2 := &push.Orchestrator{Svc: svc, Namespace: "finance", Now: func() time.Time { return now }}
	reps2, err := o2.Cycle(ctx, newGitHub(t, g, push.HTTPOptions{}), false)
	if err != nil || len(reps2[0].Written) != 2 {
		t.Fatalf("%+v %v", reps2, err)
	}
	if n := countRefresh(t, svc, "ops"); n["acme/ops#412"] != 2 {
		t.Errorf("ops records after the finance cycle: %v", n)
	}
	if old, _ := svc.Get(mnemo.WithCallerIn(ctx, admin, "ops"), sum.ID); old.SupersededBy != "" {
		t.Error("a cycle of another namespace superseded this one's brief")
	}
}

// TestOwnRecallsAreNotPulls: the recalls a refresh makes are logged like
// anyone's, but only an agent's or operator's recall naming the task is
// its last pull.
func TestOwnRecallsAreNotPulls(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	now := t0
	svc, _ := newService(t, &now)
	tr := &push.Static{Tasks: []push.Task{{ID: "OPS-412", Title: "Night pass routing", Labels: []string{"LONG-TERM"}}}}
	o := &push.Orchestrator{Svc: svc, Namespace: "ops", Now: func() time.Time { return now }}
	if reps, err := o.Cycle(ctx, tr, false); err != nil || len(reps[0].Written) != 2 {
		t.Fatalf("%+v %v", reps, err)
	}
	svc.Flush(ctx) // the retrieval log is written off the request path
	n := 0
	svc.Store().EachRetrieval(ctx, "ops", time.Time{}, time.Time{}, func(l mnemo.RetrievalLog) error { n++; return nil })
	if n == 0 {
		t.Fatal("the refresh's recalls were not logged: the test proves nothing")
	}
	now = t0.Add(2 * time.Hour)
	if reps, _ := o.Cycle(ctx, tr, true); reps[0].SincePull != push.MaxInterval {
		t.Errorf("the orchestrator's own recalls counted as a pull: %v since pulled", reps[0].SincePull)
	}
	if _, err := svc.Recall(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "agent", Role: mnemo.RoleAdmin}, "ops"), mnemo.RecallRequest{Query: "night pass routing status"}); err != nil {
		t.Fatal(err)
	}
	svc.Flush(ctx)
	now = t0.Add(3 * time.Hour)
	if reps, _ := o.Cycle(ctx, tr, true); reps[0].SincePull != time.Hour {
		t.Errorf("an agent's recall is a pull: %v since pulled", reps[0].SincePull)
	}
}
