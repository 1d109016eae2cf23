package push_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/push"
	"github.com/mnemo-dev/mnemo/llm"
)

// chatModel is an httptest server speaking the chat-completions protocol
// with one behaviour: good, slow, refusing, prose, failing.
func chatModel(t *testing.T, behave string) (llm.Model, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var prompts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		mu.Lock()
		prompts = append(prompts, req.Messages[1].Content)
		mu.Unlock()
		content, finish := `{"summary": "Night passes now route via Svalbard; Inuvik may be dropped for good, which is still open.", "extra": 1}`, "stop"
		switch behave {
		case "slow":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			return
		case "refusal":
			content = ""
		case "prose":
			content = "Night passes now route via Svalbard."
		case "empty":
			content = `{"summary": "  "}`
		case "500":
			http.Error(w, `{"error":{"message":"out of memory"}}`, 500)
			return
		}
		resp := map[string]any{"object": "chat.completion", "choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content}}}}
		if behave == "refusal" {
			resp["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["refusal"] = "I can't help with that."
		}
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "local", Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return m, &prompts
}

// TestCycleModelSummary: with a chat model the summary is the model's,
// made from the commits and comments, with its sources and the path that
// made it in the provenance; a slow, refusing, broken or empty-answering
// model leaves the rules' summary, and says why.
func TestCycleModelSummary(t *testing.T) {
	ctx := context.Background()
	repo, commit := gitRepo(t)
	commit("routing/plan.go", "Route night passes via Svalbard", "2026-11-19T10:00:00Z")
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	tasks := []push.Task{{ID: "OPS-412", Title: "Night pass routing", Labels: []string{"LONG-TERM"}, Paths: []string{"routing"},
		Comments: []push.Comment{{At: t0.Add(-time.Hour), Author: "lee", Text: "Can we drop Inuvik for good?"}}}}
	for _, behave := range []string{"good", "slow", "refusal", "prose", "empty", "500"} {
		t.Run(behave, func(t *testing.T) {
			now := t0
			svc, _ := newService(t, &now)
			model, prompts := chatModel(t, behave)
			o := &push.Orchestrator{Svc: svc, Namespace: "ops", Repo: repo, Now: func() time.Time { return now }, Chat: model}
			reps, err := o.Cycle(ctx, &push.Static{Tasks: tasks}, false)
			if err != nil || len(reps) != 1 || len(reps[0].Written) != 2 {
				t.Fatalf("%+v %v", reps, err)
			}
			rep := reps[0]
			sum, err := svc.Get(mnemo.WithCallerIn(ctx, mnemo.Caller{Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "ops"), rep.Written[push.ArtifactSummary])
			if err != nil {
				t.Fatal(err)
			}
			if len(*prompts) != 1 || !strings.Contains((*prompts)[0], "Route night passes via Svalbard") ||
				!strings.Contains((*prompts)[0], "lee (2026-11-20): Can we drop Inuvik for good?") {
				t.Errorf("prompts %q", *prompts)
			}
			if behave == "good" {
				if rep.SummaryBy != "chat:local" || rep.ModelError != "" || !slices.Contains(sum.Provenance, "summary-by:chat:local") ||
					!strings.HasPrefix(sum.Text, "What changed for OPS-412 (Night pass routing) since 2026-11-13: Night passes now route via Svalbard; Inuvik") ||
					!strings.Contains(sum.Text, "(From 1 commit (") || !strings.Contains(sum.Text, "1 comment") {
					t.Errorf("model summary %+v: %s %v", rep, sum.Text, sum.Provenance)
				}
				return
			}
			if rep.SummaryBy != push.SummaryByRules || rep.ModelError == "" || !slices.Contains(sum.Provenance, "summary-by:rules") ||
				!strings.Contains(sum.Text, "1 commit: Route night passes via Svalbard") {
				t.Errorf("fallback %+v: %s %v", rep, sum.Text, sum.Provenance)
			}
		})
	}
	// Nothing happened: the model is not asked.
	now := t0
	svc, _ := newService(t, &now)
	model, prompts := chatModel(t, "good")
	o := &push.Orchestrator{Svc: svc, Namespace: "ops", Now: func() time.Time { return now }, Chat: model}
	quiet := []push.Task{{ID: "OPS-9", Title: "Quiet task", Labels: []string{"LONG-TERM"}}}
	if reps, err := o.Cycle(ctx, &push.Static{Tasks: quiet}, false); err != nil || reps[0].SummaryBy != push.SummaryByRules || len(*prompts) != 0 {
		t.Errorf("quiet task: %+v %v, %d prompts", reps, err, len(*prompts))
	}
}
