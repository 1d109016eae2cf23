package engine_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/llm"
)

// fakeChat is a server speaking the chat-completions protocol; answer
// gives the assistant's content and finish reason for the request's
// system and user messages (or writes the response itself and returns
// finish "").
type fakeChat struct {
	srv    *httptest.Server
	mu     sync.Mutex
	users  []string
	answer func(w http.ResponseWriter, system, user string) (content, finish string)
}

func newFakeChat(t *testing.T, answer func(w http.ResponseWriter, system, user string) (string, string)) *fakeChat {
	t.Helper()
	c := &fakeChat{answer: answer}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				Type string `json:"type"`
			} `json:"response_format"`
		}
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil ||
			len(req.Messages) != 2 || req.ResponseFormat.Type != "json_object" || req.Model != "tiny" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.users = append(c.users, req.Messages[1].Content)
		c.mu.Unlock()
		content, finish := c.answer(w, req.Messages[0].Content, req.Messages[1].Content)
		if finish == "" {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "tiny",
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *fakeChat) model(t *testing.T, timeout time.Duration) llm.Model {
	t.Helper()
	m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: c.srv.URL + "/v1", Model: "tiny", Timeout: timeout, MaxTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (c *fakeChat) calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.users)
}

// fixedAnswer answers every request with content.
func fixedAnswer(content string) func(http.ResponseWriter, string, string) (string, string) {
	return func(http.ResponseWriter, string, string) (string, string) { return content, "stop" }
}

// brokenModels are the model servers whose answers must not be used.
func brokenModels(valid string) map[string]func(http.ResponseWriter, string, string) (string, string) {
	return map[string]func(http.ResponseWriter, string, string) (string, string){
		"slow": func(http.ResponseWriter, string, string) (string, string) {
			time.Sleep(400 * time.Millisecond)
			return valid, "stop"
		},
		"refusal": func(w http.ResponseWriter, _, _ string) (string, string) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I cannot help with that."}}]}`))
			return "", ""
		},
		"cut off": func(http.ResponseWriter, string, string) (string, string) { return valid[:len(valid)/2], "length" },
		"prose":   fixedAnswer("Here is what they decided: route via Svalbard."),
		"empty":   fixedAnswer(""),
		"500":     func(w http.ResponseWriter, _, _ string) (string, string) { http.Error(w, "boom", 500); return "", "" },
		"malformed": func(w http.ResponseWriter, _, _ string) (string, string) {
			w.Write([]byte(`{"choices":[`))
			return "", ""
		},
	}
}

// callBound is the model call's time bound for the broken model name:
// only the slow one needs a bound it exceeds; the others get one no
// loaded machine reaches before their answer arrives.
func callBound(name string, slow time.Duration) time.Duration {
	if name == "slow" {
		return slow
	}
	return 10 * time.Second
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

var _ = strings.Contains
