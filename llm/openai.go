package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/httpjson"
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
	// HTTPClient sends the requests (default: http.DefaultClient).
	HTTPClient *http.Client
}

// OpenAI is a Model behind an OpenAI-compatible /chat/completions endpoint.
// It asks for JSON mode (response_format json_object) at temperature 0.
// It is safe for concurrent use.
type OpenAI struct {
	cfg OpenAIConfig
	url string
	api httpjson.Client
}

// NewOpenAI returns the model for cfg.
//
// Errors: EINVALID when BaseURL is not an absolute http(s) URL, Model is
// empty, or Timeout or MaxTokens is negative.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	u, ok := httpjson.BaseURL(cfg.BaseURL)
	if !ok {
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
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	api := httpjson.Client{HTTP: cfg.HTTPClient, Secret: cfg.APIKey, Limit: maxResponse, Header: httpjson.Bearer(cfg.APIKey)}
	return &OpenAI{cfg: cfg, url: u.String(), api: api}, nil
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
	resp, data, err := m.api.Do(ctx, http.MethodPost, m.url, b)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("chat model %s: %w", m.cfg.Model, ctx.Err())
		}
		return mnemo.Errorf(mnemo.EINTERNAL, "chat model: %s", err)
	}
	if resp.StatusCode != http.StatusOK {
		return mnemo.Errorf(httpjson.Code(resp.StatusCode), "chat model %s returned %d: %s",
			m.cfg.Model, resp.StatusCode, m.api.Redact(httpjson.Message(resp.StatusCode, data)))
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

var _ Model = (*OpenAI)(nil)
