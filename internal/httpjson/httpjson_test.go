package httpjson

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestBaseURL(t *testing.T) {
	for raw, want := range map[string]bool{
		" https://api.example.com/v1 ": true, "http://localhost:11434": true,
		"ftp://x": false, "/v1": false, "api.example.com": false, "http://": false, "::": false,
	} {
		if _, ok := BaseURL(raw); ok != want {
			t.Errorf("%q: %v, want %v", raw, ok, want)
		}
	}
}

func TestCode(t *testing.T) {
	for status, want := range map[int]string{
		401: mnemo.EUNAUTHORIZED, 403: mnemo.EUNAUTHORIZED, 413: mnemo.ETOOLARGE, 429: mnemo.ERATELIMIT,
		400: mnemo.EINVALID, 404: mnemo.EINVALID, 500: mnemo.EINTERNAL, 502: mnemo.EINTERNAL, 302: mnemo.EINTERNAL,
	} {
		if got := Code(status); got != want {
			t.Errorf("%d: %s, want %s", status, got, want)
		}
	}
}

func TestMessage(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"error":{"message":"input is too long","type":"invalid_request_error"}}`, "input is too long"},
		{`{"error":"model \"nomic\" not found"}`, `model "nomic" not found`},
		{`{"message":"Bad credentials","documentation_url":"https://docs"}`, "Bad credentials"},
		{`{"error":{"code":7}}`, "map[code:7]"},
		{`{"detail":"Authentication credentials were not provided."}`, "Authentication credentials were not provided."},
		{"down\n  for\tmaintenance", "down for maintenance"},
		{"", "Bad Gateway"},
		{strings.Repeat("é", 400), strings.Repeat("é", 299) + "…"},
	} {
		if got := Message(502, []byte(c.body)); got != c.want {
			t.Errorf("%q: %q, want %q", c.body, got, c.want)
		}
	}
}

func TestDo(t *testing.T) {
	const secret = "sk-secret-123"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret || r.Header.Get("Accept") != "application/json" {
			http.Error(w, "headers "+r.Header.Get("Authorization"), 400)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "content type", 400)
			return
		}
		w.WriteHeader(418)
		_, _ = w.Write([]byte(`0123456789`))
	}))
	defer ts.Close()
	c := &Client{Secret: secret, Limit: 4, Header: Bearer(secret)}
	resp, data, err := c.Do(context.Background(), http.MethodPost, ts.URL, []byte(`{}`))
	if err != nil || resp.StatusCode != 418 || string(data) != "0123" {
		t.Fatalf("%v %v %q", resp, err, data)
	}
	// A failure to send names no credential.
	_, _, err = c.Do(context.Background(), http.MethodGet, "http://127.0.0.1:1/"+secret, nil)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("send failure: %v", err)
	}
}
