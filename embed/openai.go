package embed

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/httpjson"
)

// Defaults of OpenAIConfig.
const (
	DefaultBatchSize  = 64
	DefaultTimeout    = 30 * time.Second
	DefaultMaxRetries = 3
	DefaultBackoff    = 500 * time.Millisecond

	// maxRetryAfter caps how long a Retry-After header can make us wait.
	maxRetryAfter = 60 * time.Second
	// maxResponse caps the size of a response body.
	maxResponse = 256 << 20
)

// OpenAIConfig configures an OpenAI-compatible embedder.
type OpenAIConfig struct {
	// BaseURL is the API root, with or without a trailing slash, e.g.
	// "https://api.openai.com/v1" or "http://localhost:11434/v1"; requests
	// go to BaseURL + "/embeddings".
	BaseURL string
	// Model is the embedding model, e.g. "text-embedding-3-small".
	Model string
	// APIKey is sent as a bearer token when set. It never appears in errors.
	APIKey string
	// Dim, when set, is sent as "dimensions" and every vector must have it.
	// When 0 the dimension is learned from the first response.
	Dim int
	// BatchSize is the number of texts per request (default 64).
	BatchSize int
	// Timeout bounds each request attempt (default 30s).
	Timeout time.Duration
	// MaxRetries is the number of retries after a rate limit (429), a
	// server error (5xx) or a network error: 0 means 3, negative means none.
	MaxRetries int
	// Backoff is the first retry delay, doubled on each retry (default
	// 500ms). A Retry-After header, when present, takes precedence.
	Backoff time.Duration
	// HTTPClient sends the requests (default: http.DefaultClient).
	HTTPClient *http.Client
}

// OpenAI embeds texts with an OpenAI-compatible /embeddings endpoint. It is
// safe for concurrent use.
type OpenAI struct {
	cfg OpenAIConfig
	url string
	api httpjson.Client
	dim atomic.Int64 // cfg.Dim, or the dimension learned from the provider

	// wait sleeps d or until ctx is done; tests replace it.
	wait func(ctx context.Context, d time.Duration) error
}

// NewOpenAI returns an embedder for cfg after applying defaults.
//
// Errors: EINVALID when BaseURL is not an absolute http(s) URL, Model is
// empty, or Dim, BatchSize or Timeout is negative.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.BaseURL == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai embedder: base URL is required")
	}
	u, ok := httpjson.BaseURL(cfg.BaseURL)
	if !ok {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai embedder: base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai embedder: model is required")
	}
	if cfg.Dim < 0 || cfg.BatchSize < 0 || cfg.Timeout < 0 || cfg.Backoff < 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai embedder: dim, batch size, timeout and backoff must not be negative")
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = DefaultBackoff
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/embeddings"
	api := httpjson.Client{HTTP: cfg.HTTPClient, Secret: cfg.APIKey, Limit: maxResponse, Header: httpjson.Bearer(cfg.APIKey)}
	e := &OpenAI{cfg: cfg, url: u.String(), api: api, wait: httpjson.Wait}
	e.dim.Store(int64(cfg.Dim))
	return e, nil
}

// Info returns {Name: "openai:"+Model, Dim}. When no Dim was configured it
// reports 0 until the first successful Embed has learned the dimension.
func (e *OpenAI) Info() mnemo.EmbedderInfo {
	return mnemo.EmbedderInfo{Name: "openai:" + e.cfg.Model, Dim: int(e.dim.Load())}
}

// Embed returns one L2-normalised vector per text, sending BatchSize texts
// per request.
//
// Errors: EINVALID when the provider rejects the request (4xx), EUNAUTHORIZED
// on 401/403, ETOOLARGE on 413, ERATELIMIT when 429 persists after the
// retries, EINTERNAL for server and network errors and malformed responses
// (wrong count, bad index, inconsistent dimensions), and ctx's error when it
// is done.
func (e *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		batch := texts[start:min(start+e.cfg.BatchSize, len(texts))]
		vecs, err := e.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type embeddingRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embeddingResponse struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	} `json:"data"`
	Model string `json:"model"`
}

// embedBatch sends one request, retrying transient failures.
func (e *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingRequest{Model: e.cfg.Model, Input: texts, Dimensions: e.cfg.Dim})
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai embedder: encode request: %v", err)
	}
	delay := e.cfg.Backoff
	for attempt := 0; ; attempt++ {
		vecs, retryAfter, err := e.post(ctx, body, len(texts))
		if err == nil {
			return vecs, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if retryAfter < 0 || attempt >= e.cfg.MaxRetries {
			return nil, err
		}
		d := delay
		if retryAfter > 0 {
			d = retryAfter
		}
		delay *= 2
		if err := e.wait(ctx, d); err != nil {
			return nil, err
		}
	}
}

// post makes one attempt. retryAfter is negative when the error is
// permanent, 0 for a transient error without Retry-After, and the requested
// delay otherwise.
func (e *OpenAI) post(ctx context.Context, body []byte, n int) (vecs [][]float32, retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	resp, data, err := e.api.Do(ctx, http.MethodPost, e.url, body)
	if err != nil {
		return nil, 0, mnemo.Errorf(mnemo.EINTERNAL, "openai embedder: %s", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, retryDelay(resp), mnemo.Errorf(httpjson.Code(resp.StatusCode), "openai embedder: %s returned %d: %s",
			e.cfg.Model, resp.StatusCode, e.api.Redact(httpjson.Message(resp.StatusCode, data)))
	}
	vecs, err = e.decode(data, n)
	return vecs, -1, err
}

// retryDelay classifies a failed response: -1 when it is permanent, else
// the Retry-After delay (0 when absent).
func retryDelay(resp *http.Response) time.Duration {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return -1
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && !math.IsInf(secs, 0) {
		d = time.Duration(secs * float64(time.Second))
	} else if t, err := http.ParseTime(v); err == nil {
		d = time.Until(t)
	}
	return min(max(d, 0), maxRetryAfter)
}

// decode parses a 200 response carrying n embeddings, orders them by index,
// checks their dimension and normalises them.
func (e *OpenAI) decode(data []byte, n int) ([][]float32, error) {
	var r embeddingResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, mnemo.Errorf(mnemo.EINTERNAL, "openai embedder: malformed response: %v", err)
	}
	if len(r.Data) != n {
		return nil, mnemo.Errorf(mnemo.EINTERNAL, "openai embedder: got %d embeddings for %d texts", len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, mnemo.Errorf(mnemo.EINTERNAL, "openai embedder: bad or repeated embedding index %d", d.Index)
		}
		out[d.Index] = d.Embedding
	}
	dim := len(out[0])
	if dim == 0 {
		return nil, mnemo.Errorf(mnemo.EINTERNAL, "openai embedder: empty embedding")
	}
	for i, v := range out {
		if len(v) != dim {
			return nil, mnemo.Errorf(mnemo.EINTERNAL, "openai embedder: embedding %d has dimension %d, embedding 0 has %d", i, len(v), dim)
		}
	}
	e.dim.CompareAndSwap(0, int64(dim)) // learn the dimension once
	if want := e.dim.Load(); int64(dim) != want {
		return nil, mnemo.Errorf(mnemo.EINTERNAL, "openai embedder: %s returned dimension %d, want %d", e.cfg.Model, dim, want)
	}
	for _, v := range out {
		normalize(v)
	}
	return out, nil
}

// normalize scales v to unit length; the zero vector stays zero.
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

var _ mnemo.Embedder = (*OpenAI)(nil)
var _ mnemo.Embedder = (*Hash)(nil)
