package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/server"
)

// TestFilterSpellingsREST: the query parameters of GET /v1/records and the
// filters of /v1/recall and /v1/digest take the JSON spelling of
// mnemo.Filter and the older one alike, times as RFC 3339 or dates.
func TestFilterSpellingsREST(t *testing.T) {
	f := newFixture(t, nil)
	for _, body := range []string{
		`{"text":"Uplink power above 200 W needs the RF officer","scope":"/rules/rf","criticality":0.9,"tags":["rf"]}`,
		`{"text":"Uplink pass planned over Svalbard","kind":"decision","scope":"/plans"}`,
	} {
		if st, _, b := f.do(t, call{method: "POST", path: "/v1/records", body: body}); st != 201 {
			t.Fatalf("seed: %d %s", st, b)
		}
	}
	list := func(q string) []string {
		t.Helper()
		st, _, b := f.do(t, call{method: "GET", path: "/v1/records?" + q})
		if st != 200 {
			t.Fatalf("list ?%s: %d %s", q, st, b)
		}
		var out []string
		for _, r := range decode[server.ListResponse](t, b).Records {
			out = append(out, r.Text)
		}
		return out
	}
	for _, c := range [][2]string{
		{"scope_prefix=/rules", "scope=/rules"},
		{"layers=workflow", "layer=workflow"},
		{"kinds=decision", "kind=decision"},
		{"tags=rf", "tag=rf"},
		{"min_criticality=0.5", "criticality=0.5"},
		{"since=2000-01-01&until=2100-01-01", "since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z"},
	} {
		a, b := list(c[0]), list(c[1])
		if strings.Join(a, "|") != strings.Join(b, "|") || len(a) == 0 {
			t.Errorf("?%s gives %v, ?%s gives %v", c[0], a, c[1], b)
		}
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/records?colour=red"}); st != 400 || errCode(t, b) != "invalid" {
		t.Errorf("unknown parameter: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/records?since=yesterday"}); st != 400 || errCode(t, b) != "invalid" {
		t.Errorf("bad time: %d %s", st, b)
	}

	recall := func(filters string) string {
		t.Helper()
		st, _, b := f.do(t, call{method: "POST", path: "/v1/recall", body: `{"query":"uplink","filters":` + filters + `}`})
		if st != 200 {
			t.Fatalf("recall %s: %d %s", filters, st, b)
		}
		var hits []string
		for _, h := range decode[struct{ Hits []struct{ Text string } }](t, b).Hits {
			hits = append(hits, h.Text)
		}
		return strings.Join(hits, "|")
	}
	for _, c := range [][2]string{
		{`{"scope_prefix":"/rules"}`, `{"scope":"/rules"}`},
		{`{"kinds":["decision"]}`, `{"kind":["decision"]}`},
		{`{"since":"2000-01-01"}`, `{"since":"2000-01-01T00:00:00Z"}`},
	} {
		if a, b := recall(c[0]), recall(c[1]); a != b || a == "" {
			t.Errorf("%s gives %q, %s gives %q", c[0], a, c[1], b)
		}
	}
	for _, bad := range []string{`{"colour":"red"}`, `{"since":"yesterday"}`, `{"layers":"domain"}`} {
		st, _, b := f.do(t, call{method: "POST", path: "/v1/digest", body: `{"task_description":"uplink","filters":` + bad + `}`})
		if st != 400 || errCode(t, b) != "invalid" {
			t.Errorf("filters %s: %d %s", bad, st, b)
		}
	}
}

// TestErrorsAreJSON: what no handler answers (no route, another method, a
// body over the limit) is a JSON error too.
func TestErrorsAreJSON(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.MaxBody = 1024 })
	for _, c := range []struct {
		call   call
		status int
		code   string
	}{
		{call{method: "GET", path: "/v1/nothing"}, 404, "not_found"},
		{call{method: "GET", path: "/v2/records"}, 404, "not_found"},
		{call{method: "GET", path: "/v1/records/"}, 404, "not_found"},
		{call{method: "DELETE", path: "/v1/recall"}, 405, "invalid"},
		{call{method: "PUT", path: "/v1/records", body: `{}`}, 405, "invalid"},
		{call{method: "POST", path: "/v1/recall", body: `{"query":"` + strings.Repeat("x", 2048) + `"}`}, 413, "too_large"},
		{call{method: "POST", path: "/v1/recall", body: `{"query":`}, 400, "invalid"},
	} {
		st, hdr, b := f.do(t, c.call)
		if st != c.status || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || errCode(t, b) != c.code {
			t.Errorf("%s %s: %d %s %s, want %d %s", c.call.method, c.call.path, st, hdr.Get("Content-Type"), b, c.status, c.code)
		}
		if c.status == 405 && hdr.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", c.call.method, c.call.path)
		}
	}
}

// TestOptionalBodies: tune, expire and handoff take an empty body as {}.
func TestOptionalBodies(t *testing.T) {
	f := newFixture(t, nil)
	for _, path := range []string{"/v1/tune", "/v1/expire", "/v1/handoff"} {
		for _, c := range []call{
			{method: "POST", path: path, ctype: "-"},
			{method: "POST", path: path, ctype: "application/json"},
			{method: "POST", path: path, body: " \n"},
			{method: "POST", path: path, body: `{}`},
		} {
			if st, _, b := f.do(t, c); st != 200 {
				t.Errorf("POST %s body %q: %d %s", path, c.body, st, b)
			}
		}
		if st, _, b := f.do(t, call{method: "POST", path: path, body: `{"bogus":1}`}); st != 400 || errCode(t, b) != "invalid" {
			t.Errorf("POST %s with an unknown field: %d %s", path, st, b)
		}
	}
}
