package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/server"
)

// FuzzRequestDecoding sends arbitrary bodies, media types and namespace
// headers to every route that decodes a body: the server never answers
// 5xx, every error is a coded JSON error, and nothing panics. Its seeds run
// in every go test.
func FuzzRequestDecoding(f *testing.F) {
	routes := []struct{ method, path string }{
		{"POST", "/v1/records"}, {"POST", "/v1/records/batch"}, {"PATCH", "/v1/records/01J0000000000000000000000A"},
		{"POST", "/v1/recall"}, {"POST", "/v1/digest"}, {"POST", "/v1/import"}, {"POST", "/v1/expire"},
		{"POST", "/v1/purge"}, {"POST", "/v1/handoff"}, {"POST", "/v1/tune/rollback"}, {"POST", "/v1/episodes"},
		{"GET", "/v1/records?kind=fact&limit=3"}, {"POST", "/mcp"},
	}
	for i, body := range []string{
		`{"text":"GDPR breach notification is due within 72 hours","importance":0.9}`,
		`{"records":[{"text":"a"},{"text":"b","thread":"t"}]}`,
		`{"importance":0.95}`,
		`{"query":"breach deadline","k":5,"filters":{"scope_prefix":"/reg"}}`,
		`{"task_description":"handle a data breach","token_budget":2000}`,
		"{\"text\":\"imported\"}\n{\"text\":\"second\"}\n",
		`{"max_importance":0.1,"dry_run":true}`,
		`{"older_than_days":1e308}`,
		`{"from":"kim","budget":-1}`,
		`{"version":-5}`,
		`{"thread":"","budget":99999999}`,
		``,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		"{\"text\":\"\xff\"}", `[1,2,3]`, `{"text":"x"}{"text":"y"}`, `{"text":null,"tags":{}}`, `"just a string"`,
	} {
		f.Add(uint8(i), body, "application/json", "")
	}
	f.Add(uint8(0), `{"text":"x"}`, "text/plain", "")
	f.Add(uint8(1), `{"text":"x"}`, "application/json; charset=latin1", "ns-2")
	f.Add(uint8(3), `{"query":"x"}`, "application/json", "bad namespace!")

	fx := newFixture(f, func(c *server.Config) { c.MaxBody = 64 << 10; c.MaxImportBody = 64 << 10 })
	h := fx.srv.Handler()
	f.Fuzz(func(t *testing.T, route uint8, body, ctype, ns string) {
		rt := routes[int(route)%len(routes)]
		req := httptest.NewRequest(rt.method, "http://127.0.0.1"+rt.path, strings.NewReader(body))
		req.RemoteAddr = "127.0.0.1:50000"
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if ns != "" && !strings.ContainsAny(ns, "\r\n\x00") {
			req.Header.Set("Mnemo-Namespace", ns)
		}
		if rt.path == "/mcp" {
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q (%s): %d %s", rt.method, rt.path, body, ctype, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && rt.path != "/mcp" {
			var e server.ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Fatalf("%s %s %q: %d, not a coded error: %s", rt.method, rt.path, body, rec.Code, rec.Body)
			}
		}
	})
}
