// Package llmtest is a chat model for tests: a real HTTP server speaking
// the chat-completions protocol, answering as each test says, behind the
// real OpenAI-compatible client (llm.NewOpenAI).
package llmtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/llm"
)

// FakeChat is a server speaking the chat-completions protocol; answer
// gives the assistant's content and finish reason for the request's
// system and user messages (or writes the response itself and returns
// finish "").
type FakeChat struct {
	srv    *httptest.Server
	mu     sync.Mutex
	users  []string
	answer func(w http.ResponseWriter, system, user string) (content, finish string)
}

// NewFakeChat starts a FakeChat answering with answer, closed when t ends.
func NewFakeChat(t testing.TB, answer func(w http.ResponseWriter, system, user string) (string, string)) *FakeChat {
	t.Helper()
	c := &FakeChat{answer: answer}
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

// Model is the client of the server, model "tiny", with timeout.
func (c *FakeChat) Model(t testing.TB, timeout time.Duration) llm.Model {
	t.Helper()
	m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: c.srv.URL + "/v1", Model: "tiny", Timeout: timeout, MaxTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Calls returns the number of requests answered.
func (c *FakeChat) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.users)
}

// Users returns the user messages of the requests so far, in order.
func (c *FakeChat) Users() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.users...)
}

// FixedAnswer answers every request with content.
func FixedAnswer(content string) func(http.ResponseWriter, string, string) (string, string) {
	return func(http.ResponseWriter, string, string) (string, string) { return content, "stop" }
}

// BrokenModels are the model servers whose answers must not be used.
func BrokenModels(valid string) map[string]func(http.ResponseWriter, string, string) (string, string) {
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
		"prose":   FixedAnswer("Here is what they decided: route via Svalbard."),
		"empty":   FixedAnswer(""),
		"500":     func(w http.ResponseWriter, _, _ string) (string, string) { http.Error(w, "boom", 500); return "", "" },
		"malformed": func(w http.ResponseWriter, _, _ string) (string, string) {
			w.Write([]byte(`{"choices":[`))
			return "", ""
		},
	}
}

// CallBound is the model call's time bound for the broken model name (of
// BrokenModels): only the slow one needs a bound it exceeds; the others
// get one no loaded machine reaches before their answer arrives.
func CallBound(name string, slow time.Duration) time.Duration {
	if name == "slow" {
		return slow
	}
	return 10 * time.Second
}
