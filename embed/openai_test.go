package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

const testKey = "sk-test-secret-123"

// provider is an httptest server speaking the OpenAI embeddings protocol.
// Each text t embeds to [len(t), 1, 0, ...] (dim components), and the data
// items are returned in reverse order to exercise ordering by index.
type provider struct {
	t        *testing.T
	srv      *httptest.Server
	dim      int
	requests atomic.Int64

	mu      sync.Mutex
	batches [][]string
	auth    []string
	dims    []int
	// fail, when set, answers request number n (1-based) instead of the
	// normal handler when it returns true.
	fail func(n int64, w http.ResponseWriter) bool
	// dimOf overrides the dimension of text i's vector.
	dimOf func(i int) int
}

func newProvider(t *testing.T) *provider {
	p := &provider{t: t, dim: 4}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	n := p.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"no route"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.batches = append(p.batches, req.Input)
	p.auth = append(p.auth, r.Header.Get("Authorization"))
	p.dims = append(p.dims, req.Dimensions)
	p.mu.Unlock()
	if p.fail != nil && p.fail(n, w) {
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		d := p.dim
		if p.dimOf != nil {
			d = p.dimOf(i)
		}
		v := make([]float32, d)
		v[0] = float32(len(req.Input[i]))
		if d > 1 {
			v[1] = 1
		}
		data = append(data, item{"embedding", v, i})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1},
	})
}

// newTestOpenAI returns an embedder for p that records waits instead of
// sleeping.
func newTestOpenAI(t *testing.T, p *provider, cfg OpenAIConfig) (*OpenAI, *[]time.Duration) {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = p.srv.URL + "/v1"
	}
	if cfg.Model == "" {
		cfg.Model = "test-embed"
	}
	e, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	e.wait = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return e, &waits
}

// wantVec is the normalised vector the provider returns for text.
func wantVec(text string) (x, y float32) {
	l := float64(len(text))
	n := math.Sqrt(l*l + 1)
	return float32(l / n), float32(1 / n)
}

func TestOpenAIBatchingAndOrder(t *testing.T) {
	p := newProvider(t)
	e, _ := newTestOpenAI(t, p, OpenAIConfig{APIKey: testKey, BatchSize: 3})
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.requests.Load(); got != 3 {
		t.Errorf("requests = %d, want 3", got)
	}
	if len(p.batches[0]) != 3 || len(p.batches[2]) != 1 || p.batches[2][0] != "ggggggg" {
		t.Errorf("batches = %q", p.batches)
	}
	for i, v := range vecs {
		x, y := wantVec(texts[i])
		if len(v) != 4 || math.Abs(float64(v[0]-x)) > 1e-6 || math.Abs(float64(v[1]-y)) > 1e-6 {
			t.Errorf("vector %d = %v, want [%v %v 0 0]", i, v, x, y)
		}
	}
	for _, a := range p.auth {
		if a != "Bearer "+testKey {
			t.Errorf("Authorization = %q", a)
		}
	}
	if p.dims[0] != 0 {
		t.Errorf("dimensions sent without Dim: %d", p.dims[0])
	}
	if got := e.Info(); got != (mnemo.EmbedderInfo{Name: "openai:test-embed", Dim: 4}) {
		t.Errorf("Info() = %+v", got)
	}
	// Without a key no Authorization header is sent; a trailing slash is fine.
	e2, _ := newTestOpenAI(t, p, OpenAIConfig{BaseURL: p.srv.URL + "/v1/", Dim: 4})
	if _, err := e2.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if a := p.auth[len(p.auth)-1]; a != "" {
		t.Errorf("Authorization without key = %q", a)
	}
	if d := p.dims[len(p.dims)-1]; d != 4 {
		t.Errorf("dimensions = %d, want 4", d)
	}
	// No texts, no request.
	n := p.requests.Load()
	if out, err := e.Embed(context.Background(), nil); err != nil || len(out) != 0 || p.requests.Load() != n {
		t.Errorf("Embed(nil) = %v, %v", out, err)
	}
}

func TestOpenAIRetry(t *testing.T) {
	tests := []struct {
		name      string
		fail      func(n int64, w http.ResponseWriter) bool
		wantWaits []time.Duration
	}{
		{"429 with Retry-After", func(n int64, w http.ResponseWriter) bool {
			if n == 1 {
				w.Header().Set("Retry-After", "7")
				http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
				return true
			}
			return false
		}, []time.Duration{7 * time.Second}},
		{"500 then 503 then success", func(n int64, w http.ResponseWriter) bool {
			switch n {
			case 1:
				http.Error(w, "boom", http.StatusInternalServerError)
			case 2:
				http.Error(w, "busy", http.StatusServiceUnavailable)
			default:
				return false
			}
			return true
		}, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}},
		{"dropped connection", func(n int64, w http.ResponseWriter) bool {
			if n == 1 {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return true
			}
			return false
		}, []time.Duration{10 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t)
			p.fail = tt.fail
			e, waits := newTestOpenAI(t, p, OpenAIConfig{Backoff: 10 * time.Millisecond})
			vecs, err := e.Embed(context.Background(), []string{"hello"})
			if err != nil {
				t.Fatal(err)
			}
			if len(vecs) != 1 {
				t.Fatalf("got %d vectors", len(vecs))
			}
			if fmt.Sprint(*waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits = %v, want %v", *waits, tt.wantWaits)
			}
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name     string
		cfg      OpenAIConfig
		fail     func(n int64, w http.ResponseWriter) bool
		dimOf    func(i int) int
		wantCode string
		wantMsg  string
		wantReqs int64
	}{
		{"permanent 400", OpenAIConfig{}, func(n int64, w http.ResponseWriter) bool {
			http.Error(w, `{"error":{"message":"input is too long for model test-embed","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return true
		}, nil, mnemo.EINVALID, "input is too long for model test-embed", 1},
		{"ollama style error", OpenAIConfig{}, func(n int64, w http.ResponseWriter) bool {
			http.Error(w, `{"error":"model \"nomic\" not found, try pulling it first"}`, http.StatusNotFound)
			return true
		}, nil, mnemo.EINVALID, `model "nomic" not found`, 1},
		{"bad key is redacted", OpenAIConfig{APIKey: testKey}, func(n int64, w http.ResponseWriter) bool {
			http.Error(w, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`, http.StatusUnauthorized)
			return true
		}, nil, mnemo.EUNAUTHORIZED, "Incorrect API key provided: [redacted]", 1},
		{"rate limit persists", OpenAIConfig{MaxRetries: 2}, func(n int64, w http.ResponseWriter) bool {
			http.Error(w, `{"error":{"message":"quota exceeded"}}`, http.StatusTooManyRequests)
			return true
		}, nil, mnemo.ERATELIMIT, "quota exceeded", 3},
		{"no retries", OpenAIConfig{MaxRetries: -1}, func(n int64, w http.ResponseWriter) bool {
			http.Error(w, "down", http.StatusBadGateway)
			return true
		}, nil, mnemo.EINTERNAL, "down", 1},
		{"inconsistent dimensions", OpenAIConfig{}, nil, func(i int) int { return 4 + i }, mnemo.EINTERNAL, "dimension", 1},
		{"dimension differs from Dim", OpenAIConfig{Dim: 8}, nil, nil, mnemo.EINTERNAL, "returned dimension 4, want 8", 1},
		{"wrong count", OpenAIConfig{}, func(n int64, w http.ResponseWriter) bool {
			fmt.Fprint(w, `{"data":[{"embedding":[1,0],"index":0}]}`)
			return true
		}, nil, mnemo.EINTERNAL, "got 1 embeddings for 2 texts", 1},
		{"repeated index", OpenAIConfig{}, func(n int64, w http.ResponseWriter) bool {
			fmt.Fprint(w, `{"data":[{"embedding":[1,0],"index":1},{"embedding":[0,1],"index":1}]}`)
			return true
		}, nil, mnemo.EINTERNAL, "index 1", 1},
		{"malformed body", OpenAIConfig{}, func(n int64, w http.ResponseWriter) bool {
			fmt.Fprint(w, `<html>`)
			return true
		}, nil, mnemo.EINTERNAL, "malformed response", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t)
			p.fail, p.dimOf = tt.fail, tt.dimOf
			e, _ := newTestOpenAI(t, p, tt.cfg)
			_, err := e.Embed(context.Background(), []string{"one", "two"})
			if err == nil {
				t.Fatal("no error")
			}
			if code := mnemo.ErrorCode(err); code != tt.wantCode {
				t.Errorf("code = %s, want %s (%v)", code, tt.wantCode, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the API key: %q", err)
			}
			if got := p.requests.Load(); got != tt.wantReqs {
				t.Errorf("requests = %d, want %d", got, tt.wantReqs)
			}
		})
	}
}

func TestOpenAIContext(t *testing.T) {
	// A cancelled context stops the retry loop.
	p := newProvider(t)
	p.fail = func(n int64, w http.ResponseWriter) bool {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return true
	}
	e, err := NewOpenAI(OpenAIConfig{BaseURL: p.srv.URL + "/v1", Model: "m", Backoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for p.requests.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}

	// A request cancelled in flight returns promptly.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	e, err = NewOpenAI(OpenAIConfig{BaseURL: slow.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("in flight: err = %v, want context.Canceled", err)
	}
}

func TestNewOpenAIValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  OpenAIConfig
	}{
		{"no base URL", OpenAIConfig{Model: "m"}},
		{"relative URL", OpenAIConfig{BaseURL: "localhost:11434/v1", Model: "m"}},
		{"bad scheme", OpenAIConfig{BaseURL: "ftp://example.com/v1", Model: "m"}},
		{"unparsable", OpenAIConfig{BaseURL: "http://[::1/v1", Model: "m"}},
		{"no host", OpenAIConfig{BaseURL: "http:///v1", Model: "m"}},
		{"no model", OpenAIConfig{BaseURL: "http://localhost/v1"}},
		{"negative dim", OpenAIConfig{BaseURL: "http://localhost/v1", Model: "m", Dim: -1}},
		{"negative batch", OpenAIConfig{BaseURL: "http://localhost/v1", Model: "m", BatchSize: -5}},
	}
	for _, tt := range tests {
		if _, err := NewOpenAI(tt.cfg); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: err = %v, want code %s", tt.name, err, mnemo.EINVALID)
		}
	}
	e, err := NewOpenAI(OpenAIConfig{BaseURL: "https://api.openai.com/v1/", Model: "text-embedding-3-small"})
	if err != nil {
		t.Fatal(err)
	}
	if e.url != "https://api.openai.com/v1/embeddings" {
		t.Errorf("url = %q", e.url)
	}
	if e.cfg.BatchSize != DefaultBatchSize || e.cfg.Timeout != DefaultTimeout || e.cfg.MaxRetries != DefaultMaxRetries {
		t.Errorf("defaults not applied: %+v", e.cfg)
	}
	if got := e.Info(); got.Name != "openai:text-embedding-3-small" || got.Dim != 0 {
		t.Errorf("Info() = %+v", got)
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	e, err := NewOpenAI(OpenAIConfig{BaseURL: url, Model: "m", MaxRetries: 1, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"x"})
	if err == nil || mnemo.ErrorCode(err) != mnemo.EINTERNAL || !strings.Contains(err.Error(), "openai embedder") {
		t.Errorf("err = %v", err)
	}
}

func TestOpenAITimeout(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	e, err := NewOpenAI(OpenAIConfig{BaseURL: slow.URL, Model: "m", Timeout: 20 * time.Millisecond, MaxRetries: 1, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("err = %v, want a deadline error", err)
	}
}
