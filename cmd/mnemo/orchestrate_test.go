package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestOrchestrateTrackers: --tracker github and plane read their API and
// token from the environment, refresh the labelled tasks, and never print
// the token, not even when the API echoes it in an error.
func TestOrchestrateTrackers(t *testing.T) {
	const token = "tok_do_not_print_789"
	var fail atomic.Bool
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || fail.Load() {
			http.Error(w, `{"message":"Bad credentials: `+token+`"}`, http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/repos/acme/ops/issues":
			if r.URL.Query().Get("labels") != "keep-fresh" {
				t.Errorf("label query %q", r.URL.RawQuery)
			}
			json.NewEncoder(w).Encode([]map[string]any{{"number": 412, "title": "Night pass routing", "state": "open", "comments": 0,
				"labels": []map[string]any{{"name": "keep-fresh"}}}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer gh.Close()
	pl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != token {
			http.Error(w, `{"detail":"Invalid API key"}`, http.StatusUnauthorized)
			return
		}
		base := "/api/v1/workspaces/acme/projects/p-1/"
		page := func(items any) map[string]any {
			return map[string]any{"results": items, "next_cursor": "100:1:0", "next_page_results": false}
		}
		switch r.URL.Path {
		case base:
			json.NewEncoder(w).Encode(map[string]any{"identifier": "OPS"})
		case base + "labels/":
			json.NewEncoder(w).Encode(page([]map[string]any{{"id": "l-1", "name": "LONG-TERM"}}))
		case base + "work-items/":
			json.NewEncoder(w).Encode(page([]map[string]any{{"id": "w-1", "sequence_id": 9, "name": "Ground station handover", "labels": []string{"l-1"}, "priority": "high"}}))
		case base + "work-items/w-1/comments/":
			json.NewEncoder(w).Encode(page([]map[string]any{}))
		default:
			http.NotFound(w, r)
		}
	}))
	defer pl.Close()
	t.Setenv("MNEMO_GITHUB_URL", gh.URL)
	t.Setenv("MNEMO_GITHUB_TOKEN", token)
	t.Setenv("MNEMO_PLANE_URL", pl.URL)
	t.Setenv("MNEMO_PLANE_TOKEN", token)
	db := filepath.Join(t.TempDir(), "m.db")

	out := mustCLI(t, db, "", "--namespace", "ops", "orchestrate", "--tracker", "github", "--github-repo", "acme/ops", "--label", "keep-fresh", "--once")
	if !strings.HasPrefix(out, "acme/ops#412  priority") || !strings.Contains(out, "refreshed (2 records)") {
		t.Fatalf("github cycle:\n%s", out)
	}
	out = mustCLI(t, db, "", "--namespace", "ops", "orchestrate", "--tracker", "plane", "--plane-workspace", "acme", "--plane-project", "p-1", "--once")
	if !strings.HasPrefix(out, "OPS-9  priority") || !strings.Contains(out, "refreshed (2 records)") {
		t.Fatalf("plane cycle:\n%s", out)
	}
	if out := mustCLI(t, db, "", "--namespace", "ops", "list", "--kind", "refresh"); strings.Count(out, "\n") != 4 {
		t.Errorf("refresh records:\n%s", out)
	}
	fail.Store(true)
	out, errs, code := cli(t, db, "", "orchestrate", "--tracker", "github", "--github-repo", "acme/ops", "--once")
	if code != 1 || !strings.Contains(errs, "returned 401") || strings.Contains(out+errs, token) {
		t.Errorf("failed cycle: exit %d\n%s%s", code, out, errs)
	}
	for _, bad := range [][]string{
		{"orchestrate", "--tracker", "github", "--once"},
		{"orchestrate", "--tracker", "plane", "--plane-workspace", "acme", "--once"},
		{"orchestrate", "--tracker", "jira", "--once"},
		{"orchestrate", "--tracker", "github", "--github-repo", "acme/ops", "--tasks", "x.json", "--once"},
		{"orchestrate", "--tasks", "x.json", "--budget", "-1", "--once"},
	} {
		if _, errs, code := cli(t, db, "", bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, code, errs)
		}
	}
	if _, errs, code := cli(t, db, "", "orchestrate", "--tracker", "github", "--github-repo", "not/a/repo", "--once"); code == 0 || strings.Contains(errs, token) {
		t.Errorf("bad repo: exit %d %s", code, errs)
	}
}

// TestOrchestrateChatModel: MNEMO_CHAT_URL and MNEMO_CHAT_MODEL give the
// orchestrator a chat model for its summaries; the report says which path
// wrote each, and a model that fails leaves the rules' summary.
func TestOrchestrateChatModel(t *testing.T) {
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, `{"error":"model not loaded"}`, http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": `{"summary":"Inuvik may be dropped; nothing decided yet."}`}}}})
	}))
	defer srv.Close()
	t.Setenv("MNEMO_CHAT_URL", srv.URL+"/v1")
	t.Setenv("MNEMO_CHAT_MODEL", "local-7b")
	db := filepath.Join(t.TempDir(), "m.db")
	tasks := filepath.Join(t.TempDir(), "tasks.json")
	os.WriteFile(tasks, []byte(`{"tasks":[{"id":"OPS-412","title":"Night pass routing","labels":["LONG-TERM"],
		"comments":[{"at":"`+time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)+`","author":"lee","text":"Can we drop Inuvik?"}]}]}`), 0o644)
	out := mustCLI(t, db, "", "orchestrate", "--tasks", tasks, "--once")
	if !strings.Contains(out, "refreshed (2 records): never refreshed; summary by chat:local-7b") {
		t.Fatalf("with a model:\n%s", out)
	}
	if out := mustCLI(t, db, "", "list", "--kind", "refresh"); !strings.Contains(out, ": Inuvik may be d") {
		t.Errorf("records:\n%s", out)
	}
	broken.Store(true)
	db2 := filepath.Join(t.TempDir(), "m2.db")
	out = mustCLI(t, db2, "", "orchestrate", "--tasks", tasks, "--once")
	if !strings.Contains(out, "summary by rules (model: chat model local-7b returned 503: model not loaded)") {
		t.Fatalf("with a broken model:\n%s", out)
	}
	t.Setenv("MNEMO_CHAT_MODEL", "")
	if _, errs, code := cli(t, db, "", "orchestrate", "--tasks", tasks, "--once"); code == 0 || !strings.Contains(errs, "model name is required") {
		t.Errorf("no model name: exit %d %s", code, errs)
	}
}
