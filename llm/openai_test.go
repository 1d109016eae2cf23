package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

const testKey = "sk-chat-secret-42"

// chatServer speaks the chat-completions protocol; answer gives the
// assistant message content and finish reason for a request.
type chatServer struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []map[string]any
	answer func(w http.ResponseWriter, req map[string]any) bool // true: handled
}

func newChatServer(t *testing.T, content string) *chatServer {
	c := &chatServer{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, `{"error":{"message":"no route"}}`, http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			http.Error(w, `{"error":{"message":"Incorrect API key provided: `+r.Header.Get("Authorization")+`"}}`, http.StatusUnauthorized)
			return
		}
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.reqs = append(c.reqs, req)
		c.mu.Unlock()
		if c.answer != nil && c.answer(w, req) {
			return
		}
		reply(w, content, "stop", nil)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func reply(w http.ResponseWriter, content, finish string, refusal *string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1764547200, "model": "qwen2.5:7b",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content, "refusal": refusal}}},
		"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
	})
}

func newModel(t *testing.T, c *chatServer, timeout time.Duration) *OpenAI {
	t.Helper()
	m, err := NewOpenAI(OpenAIConfig{BaseURL: c.srv.URL + "/v1/", Model: "qwen2.5:7b", APIKey: testKey, Timeout: timeout, MaxTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOpenAIChatJSON: the request is a chat completion in JSON mode at
// temperature 0 with the system and user messages and the token bound; the
// answer's object is decoded, bare or fenced, extra fields ignored.
func TestOpenAIChatJSON(t *testing.T) {
	for _, content := range []string{
		`{"summary": "Routing moved to Svalbard.", "confidence": 0.9}`,
		"```json\n{\"summary\": \"Routing moved to Svalbard.\"}\n```",
		"Here is the JSON:\n{\"summary\": \"Routing moved to Svalbard.\"} ",
	} {
		c := newChatServer(t, content)
		m := newModel(t, c, time.Second)
		var out struct {
			Summary string `json:"summary"`
		}
		if err := m.JSON(context.Background(), Request{System: "Answer {\"summary\": string}.", User: "commits...", MaxTokens: 100}, &out); err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if out.Summary != "Routing moved to Svalbard." {
			t.Errorf("%q: %+v", content, out)
		}
		req := c.reqs[0]
		msgs, _ := req["messages"].([]any)
		rf, _ := req["response_format"].(map[string]any)
		if req["model"] != "qwen2.5:7b" || len(msgs) != 2 || req["max_tokens"] != 100.0 || req["temperature"] != 0.0 || rf["type"] != "json_object" ||
			msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != "commits..." {
			t.Errorf("request %v", req)
		}
	}
	if m, err := FromEnv(func(string) string { return "" }); m != nil || err != nil {
		t.Errorf("no MNEMO_CHAT_URL: %v %v", m, err)
	}
	env := map[string]string{"MNEMO_CHAT_URL": "http://localhost:11434/v1", "MNEMO_CHAT_MODEL": "llama3.2", "MNEMO_CHAT_TIMEOUT": "5s"}
	if m, err := FromEnv(func(k string) string { return env[k] }); err != nil || m.Name() != "chat:llama3.2" {
		t.Errorf("from env: %v %v", m, err)
	}
	env["MNEMO_CHAT_MODEL"] = ""
	if _, err := FromEnv(func(k string) string { return env[k] }); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("no model: %v", err)
	}
}

// TestOpenAIChatFailures: slow, refusing, truncated, malformed and failing
// servers are errors the caller falls back on; the key never shows.
func TestOpenAIChatFailures(t *testing.T) {
	refusal := "I can't help with that."
	for _, c := range []struct {
		name   string
		answer func(w http.ResponseWriter, req map[string]any) bool
		is     error
		code   string
	}{
		{"slow", func(w http.ResponseWriter, _ map[string]any) bool { time.Sleep(700 * time.Millisecond); return false }, context.DeadlineExceeded, ""},
		{"refusal", func(w http.ResponseWriter, _ map[string]any) bool { reply(w, "", "stop", &refusal); return true }, ErrRefused, ""},
		{"content filter", func(w http.ResponseWriter, _ map[string]any) bool { reply(w, "", "content_filter", nil); return true }, ErrRefused, ""},
		{"cut off", func(w http.ResponseWriter, _ map[string]any) bool {
			reply(w, `{"summary": "Rout`, "length", nil)
			return true
		}, ErrInvalid, ""},
		{"prose", func(w http.ResponseWriter, _ map[string]any) bool {
			reply(w, "Routing moved.", "stop", nil)
			return true
		}, ErrInvalid, ""},
		{"wrong type", func(w http.ResponseWriter, _ map[string]any) bool {
			reply(w, `{"summary": ["a"]}`, "stop", nil)
			return true
		}, ErrInvalid, ""},
		{"malformed body", func(w http.ResponseWriter, _ map[string]any) bool { w.Write([]byte(`{"choices": [`)); return true }, ErrInvalid, ""},
		{"no choices", func(w http.ResponseWriter, _ map[string]any) bool { w.Write([]byte(`{"choices": []}`)); return true }, ErrInvalid, ""},
		{"500", func(w http.ResponseWriter, _ map[string]any) bool {
			http.Error(w, `{"error":{"message":"model crashed, key `+testKey+`"}}`, 500)
			return true
		}, nil, mnemo.EINTERNAL},
		{"429", func(w http.ResponseWriter, _ map[string]any) bool {
			http.Error(w, `{"error":"busy"}`, 429)
			return true
		}, nil, mnemo.ERATELIMIT},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newChatServer(t, `{"summary":"x"}`)
			s.answer = c.answer
			m := newModel(t, s, 500*time.Millisecond)
			var out struct {
				Summary string `json:"summary"`
			}
			err := m.JSON(context.Background(), Request{System: "s", User: "u"}, &out)
			if err == nil || strings.Contains(err.Error(), testKey) {
				t.Fatalf("error %v", err)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v, want %v", err, c.is)
			}
			if c.code != "" && mnemo.ErrorCode(err) != c.code {
				t.Errorf("error %v, want code %s", err, c.code)
			}
		})
	}
	s := newChatServer(t, `{}`)
	m, _ := NewOpenAI(OpenAIConfig{BaseURL: s.srv.URL + "/v1", Model: "m", APIKey: "wrong-" + testKey})
	if err := m.JSON(context.Background(), Request{}, &struct{}{}); mnemo.ErrorCode(err) != mnemo.EUNAUTHORIZED || strings.Contains(err.Error(), testKey) {
		t.Errorf("bad key: %v", err)
	}
}
