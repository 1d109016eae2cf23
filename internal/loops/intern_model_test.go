package loops_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/llm"
)

// chatServer answers the chat-completions protocol with content, or fails
// as the mode says.
func chatServer(t *testing.T, mode string, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request", 400)
			return
		}
		msg := map[string]any{"role": "assistant"}
		finish := "stop"
		switch mode {
		case "good":
			msg["content"] = `{"question": "Which beverage does the crew prefer in the morning?"}`
		case "reuses":
			user := req.Messages[len(req.Messages)-1].Content
			msg["content"] = `{"question": "What about ` + strings.Fields(user)[0] + `?"}`
		case "refuses":
			msg["content"], msg["refusal"] = nil, "I can't help with that."
		case "prose":
			msg["content"] = "Sure! Here is a question about the memory."
		case "slow":
			time.Sleep(300 * time.Millisecond)
			msg["content"] = `{"question": "late"}`
		case "error":
			http.Error(w, `{"error":{"message":"overloaded"}}`, 500)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestInternParaphrasesWithAChatModel: with a chat model the Intern's
// paraphrase probe is the model's question; when the model is slow,
// refuses, answers prose or an error, or reuses the record's words, the
// deterministic paraphrase takes over and the run goes on; nothing is
// ever written to the store.
func TestInternParaphrasesWithAChatModel(t *testing.T) {
	ctx := context.Background()
	f := open(t)
	if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, "a"), []mnemo.NewRecord{
		{Text: "Zelvorin crew drinks kabroth tea every morning before the relay check"},
		{Text: "Gradunel antenna needs recalibration after each solar storm"},
	}, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := f.store.Count(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	paraphrases := func(mode string) ([]string, int32) {
		var calls atomic.Int32
		srv := chatServer(t, mode, &calls)
		m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "test", Timeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		in := loops.Intern{Model: m}
		ps, err := in.Generate(ctx, f.svc, admin, "a", f.now)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var out []string
		for _, p := range ps {
			if p.Kind == loops.KindParaphrase {
				out = append(out, p.Query)
			}
		}
		return out, calls.Load()
	}
	got, calls := paraphrases("good")
	if calls == 0 || len(got) == 0 || got[0] != "Which beverage does the crew prefer in the morning?" {
		t.Fatalf("good model: %d calls, paraphrases %q", calls, got)
	}
	for _, mode := range []string{"reuses", "refuses", "prose", "slow", "error"} {
		got, calls := paraphrases(mode)
		if calls == 0 {
			t.Fatalf("%s: the model was not asked", mode)
		}
		// No thesaurus in this Intern: without the model's question there is
		// no paraphrase probe, and the other kinds are still written.
		if len(got) != 0 {
			t.Fatalf("%s: a failed model answer became a probe: %q", mode, got)
		}
	}
	if after, err := f.store.Count(ctx, "a"); err != nil || after != before {
		t.Fatalf("records %d -> %d (%v): probes must never be stored", before, after, err)
	}
}
