package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Defaults of OpenAIConfig.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxTokens = 512
	maxResponse      = 4 << 20
)

// OpenAIConfig configures a chat model behind an OpenAI-compatible API.
type OpenAIConfig struct {
	// BaseURL is the API root, e.g. "http://localhost:11434/v1" (Ollama),
	// "http://localhost:8080/v1" (llama.cpp server) or
	// "https://api.openai.com/v1"; requests go to BaseURL + "/chat/completions".
	BaseURL string
	Model   string
	// APIKey is sent as a bearer token when set; it never appears in errors.
	APIKey string
	// Timeout bounds each call (default 30 s).
	Timeout time.Duration
	// MaxTokens bounds each answer unless a request says less (default 512).
	MaxTokens int
	// HTTPClient sends the requests (default: a new client).
	HTTPClient *http.Client
}

// OpenAI is a Model behind an OpenAI-compatible /chat/completions endpoint.
// It asks for JSON mode (response_format json_object) at temperature 0.
// It is safe for concurrent use.
type OpenAI struct {
	cfg    OpenAIConfig
	url    string
	client *http.Client
}

// NewOpenAI returns the model for cfg.
//
// Errors: EINVALID when BaseURL is not an absolute http(s) URL, Model is
// empty, or Timeout or MaxTokens is negative.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "chat model: base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "chat model: a model name is required")
	}
	if cfg.Timeout < 0 || cfg.MaxTokens < 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "chat model: timeout and max tokens must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	return &OpenAI{cfg: cfg, url: u.String(), client: client}, nil
}

// FromEnv returns the model that MNEMO_CHAT_URL, MNEMO_CHAT_MODEL and
// MNEMO_CHAT_KEY configure, or nil when MNEMO_CHAT_URL is unset (no model:
// the deterministic paths only).
func FromEnv(getenv func(string) string) (Model, error) {
	base := strings.TrimSpace(getenv("MNEMO_CHAT_URL"))
	if base == "" {
		return nil, nil
	}
	cfg := OpenAIConfig{BaseURL: base, Model: getenv("MNEMO_CHAT_MODEL"), APIKey: getenv("MNEMO_CHAT_KEY")}
	if v := getenv("MNEMO_CHAT_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "MNEMO_CHAT_TIMEOUT %q is not a positive duration", v)
		}
		cfg.Timeout = d
	}
	if v := getenv("MNEMO_CHAT_MAX_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "MNEMO_CHAT_MAX_TOKENS %q is not a positive number", v)
		}
		cfg.MaxTokens = n
	}
	return NewOpenAI(cfg)
}

// Name returns "chat:" + the model name.
func (m *OpenAI) Name() string { return "chat:" + m.cfg.Model }

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string        `json:"model"`
	Messages       []chatMessage `json:"messages"`
	MaxTokens      int           `json:"max_tokens"`
	Temperature    float64       `json:"temperature"`
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// JSON sends one chat completion (system and user messages, JSON mode,
// temperature 0, at most MaxTokens) within Timeout and decodes the
// answer's JSON object into out. It does not retry: its callers fall back
// to their rules instead.
func (m *OpenAI) JSON(ctx context.Context, req Request, out any) error {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	body := chatRequest{Model: m.cfg.Model, MaxTokens: m.cfg.MaxTokens,
		Messages: []chatMessage{{Role: "system", Content: req.System}, {Role: "user", Content: req.User}}}
	if req.MaxTokens > 0 && req.MaxTokens < body.MaxTokens {
		body.MaxTokens = req.MaxTokens
	}
	body.ResponseFormat.Type = "json_object"
	b, err := json.Marshal(body)
	if err != nil {
		return mnemo.Errorf(mnemo.EINVALID, "chat model: encode request: %v", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(b))
	if err != nil {
		return mnemo.Errorf(mnemo.EINVALID, "chat model: %v", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if m.cfg.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	resp, err := m.client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("chat model %s: %w", m.cfg.Model, ctx.Err())
		}
		return mnemo.Errorf(mnemo.EINTERNAL, "chat model: %s", m.redact(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("chat model %s: %w", m.cfg.Model, ctx.Err())
		}
		return mnemo.Errorf(mnemo.EINTERNAL, "chat model: read response: %s", m.redact(err.Error()))
	}
	if resp.StatusCode != http.StatusOK {
		code := mnemo.EINTERNAL
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			code = mnemo.EUNAUTHORIZED
		case resp.StatusCode == http.StatusTooManyRequests:
			code = mnemo.ERATELIMIT
		case resp.StatusCode < 500:
			code = mnemo.EINVALID
		}
		return mnemo.Errorf(code, "chat model %s returned %d: %s", m.cfg.Model, resp.StatusCode, m.redact(errorText(data)))
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return fmt.Errorf("chat model %s: malformed response: %v: %w", m.cfg.Model, err, ErrInvalid)
	}
	if len(cr.Choices) == 0 {
		return fmt.Errorf("chat model %s: no choices: %w", m.cfg.Model, ErrInvalid)
	}
	ch := cr.Choices[0]
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" || ch.FinishReason == "content_filter" {
		return fmt.Errorf("chat model %s: %w", m.cfg.Model, ErrRefused)
	}
	if ch.FinishReason == "length" {
		return fmt.Errorf("chat model %s: the answer was cut off at %d tokens: %w", m.cfg.Model, body.MaxTokens, ErrInvalid)
	}
	if ch.Message.Content == nil {
		return fmt.Errorf("chat model %s: empty answer: %w", m.cfg.Model, ErrInvalid)
	}
	if err := decodeObject(*ch.Message.Content, out); err != nil {
		return fmt.Errorf("chat model %s: %w", m.cfg.Model, err)
	}
	return nil
}

// errorText extracts an error body's message: {"error":{"message":...}},
// {"error":"..."} or the raw text, clipped.
func errorText(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			return clip(obj.Message)
		}
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return clip(s)
		}
	}
	return clip(strings.TrimSpace(string(body)))
}

func clip(s string) string {
	s = strings.ToValidUTF8(s, "")
	if r := []rune(s); len(r) > 300 {
		return string(r[:299]) + "…"
	}
	return s
}

// redact removes the API key from provider text.
func (m *OpenAI) redact(s string) string {
	if m.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, m.cfg.APIKey, "[redacted]")
}

var _ Model = (*OpenAI)(nil)
