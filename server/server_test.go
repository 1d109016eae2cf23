package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/client"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/server"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// fixture is a real server over a real SQLite file.
type fixture struct {
	store *sqlite.Store
	svc   *engine.Service
	srv   *server.Server
	ts    *httptest.Server
	path  string
}

func newFixture(t testing.TB, mod func(*server.Config)) *fixture {
	t.Helper()
	f := &fixture{path: filepath.Join(t.TempDir(), "m.db")}
	f.open(t, mod)
	f.ts = httptest.NewServer(f.srv.Handler())
	t.Cleanup(f.ts.Close)
	return f
}

func (f *fixture) open(t testing.TB, mod func(*server.Config)) {
	t.Helper()
	svc, st := enginetest.OpenAt(t, f.path, nil)
	cfg := server.Config{Service: svc, Keys: st}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.store, f.svc, f.srv = st, svc, srv
}

// key creates an API key in the fixture's store and returns its secret.
func (f *fixture) key(t testing.TB, role mnemo.Role, clearance int, nss ...string) string {
	t.Helper()
	id, secret, hash := mnemo.NewAPIKeySecret()
	if err := f.store.CreateKey(context.Background(), &mnemo.APIKey{ID: id, Hash: hash, Namespaces: nss, Role: role, Clearance: clearance}); err != nil {
		t.Fatal(err)
	}
	return secret
}

type call struct {
	method, path, key, ns, ctype string
	body                         string
}

func (f *fixture) do(t testing.TB, c call) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(c.method, f.ts.URL+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.ns != "" {
		req.Header.Set("Mnemo-Namespace", c.ns)
	}
	switch {
	case c.ctype == "-": // none
	case c.ctype != "":
		req.Header.Set("Content-Type", c.ctype)
	case c.body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for k, v := range resp.Trailer { // e.g. Mnemo-Record-Count of an export
		resp.Header[k] = v
	}
	return resp.StatusCode, resp.Header, b
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, b)
	}
	return v
}

func errCode(t testing.TB, b []byte) string {
	t.Helper()
	return decode[server.ErrorBody](t, b).Error.Code
}

// total counts every record of every namespace, forgotten and superseded included.
func (f *fixture) total(t testing.TB) int {
	t.Helper()
	n := 0
	if err := f.store.EachRecord(context.Background(), func(*mnemo.Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRecordLifeCycle(t *testing.T) {
	f := newFixture(t, nil)
	st, hdr, b := f.do(t, call{method: "POST", path: "/v1/records", body: `{"text":"GDPR breach notification is due within 72 hours","scope":"/regulations/gdpr","importance":0.9,"tags":["gdpr"],"provenance":["doc:gdpr.pdf"]}`})
	if st != 201 {
		t.Fatalf("remember: %d %s", st, b)
	}
	rec := decode[mnemo.Record](t, b)
	if rec.ID == "" || hdr.Get("Location") != "/v1/records/"+rec.ID || rec.Namespace != "default" {
		t.Fatalf("remember: %+v %v", rec, hdr)
	}
	st, _, b = f.do(t, call{method: "POST", path: "/v1/records/batch", body: `{"records":[{"text":"We chose PostgreSQL for the ledger","kind":"decision","decision":{"title":"ledger store","alternatives":[{"option":"MongoDB","reason":"no transactions"}]}},{"text":"Operators prefer short answers","kind":"preference"}]}`})
	if st != 201 {
		t.Fatalf("batch: %d %s", st, b)
	}
	batch := decode[server.BatchResponse](t, b)
	if len(batch.IDs) != 2 {
		t.Fatalf("batch ids: %s", b)
	}

	st, _, b = f.do(t, call{method: "GET", path: "/v1/records/" + rec.ID})
	if st != 200 || decode[mnemo.Record](t, b).Text != rec.Text {
		t.Fatalf("get: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "PATCH", path: "/v1/records/" + rec.ID, body: `{"importance":0.95,"text":"GDPR breach notification is due within 72 hours of awareness"}`})
	if st != 200 || decode[mnemo.Record](t, b).Importance != 0.95 {
		t.Fatalf("update: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "GET", path: "/v1/records?kind=decision"})
	list := decode[server.ListResponse](t, b)
	if st != 200 || len(list.Records) != 1 || list.Records[0].ID != batch.IDs[0] {
		t.Fatalf("list kind=decision: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "GET", path: "/v1/records?limit=2"})
	list = decode[server.ListResponse](t, b)
	if st != 200 || len(list.Records) != 2 || list.Next == "" {
		t.Fatalf("list page 1: %d %s", st, b)
	}
	_, _, b = f.do(t, call{method: "GET", path: "/v1/records?limit=2&after=" + list.Next})
	if page2 := decode[server.ListResponse](t, b); len(page2.Records) != 1 || page2.Next != "" {
		t.Fatalf("list page 2: %s", b)
	}

	st, _, b = f.do(t, call{method: "POST", path: "/v1/recall", body: `{"query":"breach notification deadline","k":2}`})
	res := decode[mnemo.RecallResult](t, b)
	if st != 200 || len(res.Hits) == 0 || res.Hits[0].ID != rec.ID || len(res.Hits[0].Factors) == 0 {
		t.Fatalf("recall: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "POST", path: "/v1/digest", body: `{"task_description":"handle a data breach","token_budget":500}`})
	d := decode[mnemo.Digest](t, b)
	if st != 200 || d.UsedTokens > 500 || !strings.Contains(d.Markdown, "72 hours") || d.Budget != 500 {
		t.Fatalf("digest: %d %s", st, b)
	}

	st, _, b = f.do(t, call{method: "DELETE", path: "/v1/records/" + rec.ID})
	if st != 200 || decode[mnemo.Record](t, b).DeletedAt == nil {
		t.Fatalf("forget: %d %s", st, b)
	}
	_, _, b = f.do(t, call{method: "POST", path: "/v1/recall", body: `{"query":"breach notification deadline"}`})
	for _, h := range decode[mnemo.RecallResult](t, b).Hits {
		if h.ID == rec.ID {
			t.Fatal("a forgotten record was recalled")
		}
	}
	st, _, b = f.do(t, call{method: "PATCH", path: "/v1/records/" + rec.ID, body: `{"importance":0.1}`})
	if st != 409 || errCode(t, b) != mnemo.ECONFLICT {
		t.Fatalf("update forgotten: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "POST", path: "/v1/records/" + rec.ID + "/restore"})
	if st != 200 || decode[mnemo.Record](t, b).DeletedAt != nil {
		t.Fatalf("restore: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "GET", path: "/v1/records/" + rec.ID + "/history"})
	var actions []string
	for _, r := range decode[[]mnemo.Revision](t, b) {
		actions = append(actions, r.Action)
	}
	if st != 200 || !slices.Equal(actions, []string{"create", "update", "forget", "restore"}) {
		t.Fatalf("history: %d %v", st, actions)
	}

	st, hdr, export := f.do(t, call{method: "GET", path: "/v1/export"})
	if st != 200 || hdr.Get("Mnemo-Record-Count") != "3" || bytes.Count(export, []byte("\n")) != 3 {
		t.Fatalf("export: %d %v %s", st, hdr, export)
	}
	f2 := newFixture(t, nil)
	st, _, b = f2.do(t, call{method: "POST", path: "/v1/import", ns: "copy", ctype: "application/x-ndjson", body: string(export)})
	if imp := decode[mnemo.ImportResult](t, b); st != 200 || imp.Imported != 3 {
		t.Fatalf("import: %d %s", st, b)
	}
	if _, _, b := f2.do(t, call{method: "GET", path: "/v1/records/" + rec.ID, ns: "copy"}); decode[mnemo.Record](t, b).Importance != 0.95 {
		t.Fatalf("imported record: %s", b)
	}
	st, _, b = f2.do(t, call{method: "POST", path: "/v1/import", ns: "copy", body: string(export)})
	if imp := decode[mnemo.ImportResult](t, b); st != 200 || imp.Imported != 0 || imp.Skipped != 3 {
		t.Fatalf("re-import: %d %s", st, b)
	}
	st, _, _ = f.do(t, call{method: "GET", path: "/v1/records/nope"})
	if st != 404 {
		t.Fatalf("missing record: %d", st)
	}
	for _, p := range []string{"/healthz", "/readyz", "/openapi.json"} {
		if st, _, b := f.do(t, call{method: "GET", path: p}); st != 200 {
			t.Fatalf("%s: %d %s", p, st, b)
		}
	}
	// /readyz names the lexical resources in use (none in this fixture).
	if _, _, b := f.do(t, call{method: "GET", path: "/readyz"}); !strings.Contains(string(b), `"lexical_resources":[]`) {
		t.Fatalf("/readyz lacks the lexical resources: %s", b)
	}
	_, _, b = f.do(t, call{method: "GET", path: "/metrics"})
	for _, want := range []string{
		`mnemo_http_requests_total{method="POST",route="/v1/digest",status="200"} 1`,
		`mnemo_http_request_duration_seconds_bucket{method="POST",route="/v1/recall",le="+Inf"} 2`,
		`mnemo_records{namespace="default"} 3`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %q:\n%s", want, b)
		}
	}
}

func TestThreadWriteAndList(t *testing.T) {
	f := newFixture(t, nil)
	// A conversation's turns name their thread; list by thread.
	st, _, b := f.do(t, call{method: "POST", path: "/v1/records/batch", body: `{"records":[{"text":"Did the pass over Svalbard close the gap?","thread":"shift-42"},{"text":"Yes, telemetry is back above 99.7%","thread":"shift-42"}]}`})
	if st != 201 {
		t.Fatalf("batch with thread: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "GET", path: "/v1/records?thread=shift-42"})
	list := decode[server.ListResponse](t, b)
	if st != 200 || len(list.Records) != 2 || list.Records[0].Thread != "shift-42" {
		t.Fatalf("list thread=shift-42: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/records?thread=other"}); st != 200 || len(decode[server.ListResponse](t, b).Records) != 0 {
		t.Fatalf("list thread=other: %d %s", st, b)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.MaxBody = 4096; c.MaxImportBody = 8192 })
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/records", body: `{"text":"a record that exists"}`}); st != 201 {
		t.Fatalf("seed: %d %s", st, b)
	}
	before := f.total(t)
	id := decode[server.ListResponse](t, func() []byte { _, _, b := f.do(t, call{method: "GET", path: "/v1/records"}); return b }()).Records[0].ID
	huge := `{"text":"` + strings.Repeat("x", 5000) + `"}`
	cases := []struct {
		name   string
		c      call
		status int
		code   string
	}{
		{"malformed JSON", call{method: "POST", path: "/v1/records", body: `{"text":`}, 400, mnemo.EINVALID},
		{"not JSON", call{method: "POST", path: "/v1/records", body: `hello`}, 400, mnemo.EINVALID},
		{"empty body", call{method: "POST", path: "/v1/records"}, 400, mnemo.EINVALID},
		{"wrong type", call{method: "POST", path: "/v1/records", body: `{"text":42}`}, 400, mnemo.EINVALID},
		{"wrong nested type", call{method: "POST", path: "/v1/records", body: `{"text":"x","tags":"a"}`}, 400, mnemo.EINVALID},
		{"unknown field", call{method: "POST", path: "/v1/records", body: `{"text":"x","colour":"red"}`}, 400, mnemo.EINVALID},
		{"two values", call{method: "POST", path: "/v1/records", body: `{"text":"x"}{"text":"y"}`}, 400, mnemo.EINVALID},
		{"invalid UTF-8", call{method: "POST", path: "/v1/records", body: "{\"text\":\"bad \xff\xfe bytes\"}"}, 400, mnemo.EINVALID},
		{"huge body", call{method: "POST", path: "/v1/records", body: huge}, 413, mnemo.ETOOLARGE},
		{"out of range", call{method: "POST", path: "/v1/records", body: `{"text":"x","importance":7}`}, 400, mnemo.EINVALID},
		{"bad kind", call{method: "POST", path: "/v1/records", body: `{"text":"x","kind":"gossip"}`}, 400, mnemo.EINVALID},
		{"thread too long", call{method: "POST", path: "/v1/records", body: `{"text":"x","thread":"` + strings.Repeat("t", 300) + `"}`}, 413, mnemo.ETOOLARGE},
		{"batch with one bad record", call{method: "POST", path: "/v1/records/batch", body: `{"records":[{"text":"fine"},{"text":""}]}`}, 400, mnemo.EINVALID},
		{"empty batch", call{method: "POST", path: "/v1/records/batch", body: `{"records":[]}`}, 400, mnemo.EINVALID},
		{"patch unknown field", call{method: "PATCH", path: "/v1/records/" + id, body: `{"txt":"y"}`}, 400, mnemo.EINVALID},
		{"patch wrong type", call{method: "PATCH", path: "/v1/records/" + id, body: `{"importance":"high"}`}, 400, mnemo.EINVALID},
		{"patch invalid UTF-8", call{method: "PATCH", path: "/v1/records/" + id, body: "{\"text\":\"\xc3\x28\"}"}, 400, mnemo.EINVALID},
		{"recall empty query", call{method: "POST", path: "/v1/recall", body: `{"query":"  "}`}, 400, mnemo.EINVALID},
		{"recall unknown field", call{method: "POST", path: "/v1/recall", body: `{"query":"x","top":3}`}, 400, mnemo.EINVALID},
		{"digest bad scope", call{method: "POST", path: "/v1/digest", body: `{"task_description":"x","scope":"everything"}`}, 400, mnemo.EINVALID},
		{"digest negative budget", call{method: "POST", path: "/v1/digest", body: `{"task_description":"x","token_budget":-1}`}, 400, mnemo.EINVALID},
		{"digest budget as string", call{method: "POST", path: "/v1/digest", body: `{"task_description":"x","token_budget":"8000"}`}, 400, mnemo.EINVALID},
		{"import bad line", call{method: "POST", path: "/v1/import", body: "{\"id\":\"01J0000000000000000000000A\",\"text\":\"ok\",\"layer\":\"domain\",\"kind\":\"fact\"}\n{not json}\n"}, 400, mnemo.EINVALID},
		{"import huge", call{method: "POST", path: "/v1/import", body: strings.Repeat(`{"text":"x"}`+"\n", 1000)}, 413, mnemo.ETOOLARGE},
		{"list bad param", call{method: "GET", path: "/v1/records?colour=red"}, 400, mnemo.EINVALID},
		{"list bad limit", call{method: "GET", path: "/v1/records?limit=ten"}, 400, mnemo.EINVALID},
		{"mcp invalid UTF-8", call{method: "POST", path: "/mcp", ctype: "application/json", body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"x\":\"\xff\"}}"}, 400, mnemo.EINVALID},
		{"mcp huge body", call{method: "POST", path: "/mcp", ctype: "application/json", body: huge}, 413, mnemo.ETOOLARGE},
		{"bad namespace header", call{method: "GET", path: "/v1/records", ns: "no spaces allowed"}, 400, mnemo.EINVALID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, _, b := f.do(t, tc.c)
			if st != tc.status || errCode(t, b) != tc.code {
				t.Fatalf("got %d %s, want %d %s", st, b, tc.status, tc.code)
			}
			if msg := decode[server.ErrorBody](t, b).Error.Message; msg == "" {
				t.Fatal("empty error message")
			}
		})
	}
	if after := f.total(t); after != before {
		t.Fatalf("bad input changed the store: %d records before, %d after", before, after)
	}
	_, _, b := f.do(t, call{method: "GET", path: "/v1/records/" + id})
	if r := decode[mnemo.Record](t, b); r.Text != "a record that exists" || r.Importance != 0.5 {
		t.Fatalf("record changed: %+v", r)
	}
}

func TestIsolationByKeyNamespaceAndClearance(t *testing.T) {
	f := newFixture(t, nil)
	admin := f.key(t, mnemo.RoleAdmin, 5, "a", "b")
	keyA := f.key(t, mnemo.RoleWrite, 1, "a")
	readA := f.key(t, mnemo.RoleRead, 1, "a")

	// Without a key: 401 everywhere once keys exist.
	if st, hdr, b := f.do(t, call{method: "GET", path: "/v1/records"}); st != 401 || errCode(t, b) != mnemo.EUNAUTHORIZED || hdr.Get("WWW-Authenticate") == "" {
		t.Fatalf("no key: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/records", key: "mnemo_not_a_key"}); st != 401 {
		t.Fatalf("bad key: %d %s", st, b)
	}

	remember := func(key, ns, body string) string {
		st, _, b := f.do(t, call{method: "POST", path: "/v1/records", key: key, ns: ns, body: body})
		if st != 201 {
			t.Fatalf("remember in %s: %d %s", ns, st, b)
		}
		return decode[mnemo.Record](t, b).ID
	}
	idB := remember(admin, "b", `{"text":"namespace b secret launch codes for the orbital mission"}`)
	idA2 := remember(admin, "a", `{"text":"level two orbital mission secret in namespace a","access_level":2}`)
	idA1 := remember(keyA, "", `{"text":"level one orbital mission note in namespace a","access_level":1}`)

	// Key A never reaches namespace b: 403 by header, 404 by id in its own namespace.
	for _, c := range []call{
		{method: "GET", path: "/v1/records"}, {method: "GET", path: "/v1/records/" + idB},
		{method: "PATCH", path: "/v1/records/" + idB, body: `{"text":"pwned"}`}, {method: "DELETE", path: "/v1/records/" + idB},
		{method: "POST", path: "/v1/records/" + idB + "/restore"}, {method: "GET", path: "/v1/records/" + idB + "/history"},
		{method: "POST", path: "/v1/recall", body: `{"query":"launch codes"}`},
		{method: "POST", path: "/v1/digest", body: `{"task_description":"launch codes"}`},
		{method: "GET", path: "/v1/export"}, {method: "POST", path: "/v1/import", body: `{"text":"x"}`},
		{method: "POST", path: "/v1/records", body: `{"text":"x"}`},
	} {
		c.key, c.ns = keyA, "b"
		if st, _, b := f.do(t, c); st != 403 || errCode(t, b) != mnemo.EFORBIDDEN {
			t.Errorf("%s %s in b: %d %s", c.method, c.path, st, b)
		}
		c.ns = ""
		if strings.Contains(c.path, idB) {
			if st, _, b := f.do(t, c); st != 404 {
				t.Errorf("%s %s by id from a: %d %s", c.method, c.path, st, b)
			}
		}
	}
	// Clearance 1 never sees the level-2 record: get, list, recall, digest, export.
	if st, _, _ := f.do(t, call{method: "GET", path: "/v1/records/" + idA2, key: keyA}); st != 404 {
		t.Errorf("get level 2: %d", st)
	}
	surfaces := map[string]call{
		"list":   {method: "GET", path: "/v1/records?all=true"},
		"recall": {method: "POST", path: "/v1/recall", body: `{"query":"orbital mission secret","k":50}`},
		"digest": {method: "POST", path: "/v1/digest", body: `{"task_description":"orbital mission secret"}`},
		"export": {method: "GET", path: "/v1/export"},
	}
	for name, c := range surfaces {
		c.key = keyA
		st, _, b := f.do(t, c)
		if st != 200 || strings.Contains(string(b), idA2) || strings.Contains(string(b), idB) {
			t.Errorf("%s leaks: %d %s", name, st, b)
		}
		if !strings.Contains(string(b), idA1) {
			t.Errorf("%s misses the visible record: %s", name, b)
		}
	}
	// A write above the key's clearance is refused; so is an import of one.
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/records", key: keyA, body: `{"text":"x","access_level":3}`}); st != 403 {
		t.Errorf("write above clearance: %d %s", st, b)
	}
	// Role read cannot write.
	for _, c := range []call{
		{method: "POST", path: "/v1/records", body: `{"text":"x"}`}, {method: "POST", path: "/v1/records/batch", body: `{"records":[{"text":"x"}]}`},
		{method: "PATCH", path: "/v1/records/" + idA1, body: `{"text":"y"}`}, {method: "DELETE", path: "/v1/records/" + idA1},
		{method: "POST", path: "/v1/records/" + idA1 + "/restore"}, {method: "POST", path: "/v1/import", body: `{"text":"x"}`},
	} {
		c.key = readA
		if st, _, b := f.do(t, c); st != 403 || errCode(t, b) != mnemo.EFORBIDDEN {
			t.Errorf("read key %s %s: %d %s", c.method, c.path, st, b)
		}
	}
	if st, _, _ := f.do(t, call{method: "GET", path: "/v1/records/" + idA1, key: readA}); st != 200 {
		t.Errorf("read key cannot read: %d", st)
	}
	// Namespace b is untouched.
	_, _, b := f.do(t, call{method: "GET", path: "/v1/records/" + idB, key: admin, ns: "b"})
	if r := decode[mnemo.Record](t, b); r.Text != "namespace b secret launch codes for the orbital mission" || r.DeletedAt != nil {
		t.Fatalf("namespace b changed: %+v", r)
	}
	// A revoked key stops working.
	keys, _ := f.store.ListKeys(context.Background())
	for _, k := range keys {
		if k.Role == mnemo.RoleRead {
			if err := f.store.RevokeKey(context.Background(), k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if st, _, _ := f.do(t, call{method: "GET", path: "/v1/records", key: readA}); st != 401 {
		t.Errorf("revoked key: %d", st)
	}
}

func TestRateLimit(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *server.Config) { c.Rate = 1; c.Burst = 2; c.Now = func() time.Time { return now } })
	var got []int
	var retry string
	for range 4 {
		st, hdr, b := f.do(t, call{method: "GET", path: "/v1/records"})
		got = append(got, st)
		if st == 429 {
			retry = hdr.Get("Retry-After")
			if errCode(t, b) != mnemo.ERATELIMIT {
				t.Fatalf("429 body: %s", b)
			}
		}
	}
	wait, err := strconv.Atoi(retry)
	if !slices.Equal(got, []int{200, 200, 429, 429}) || err != nil || wait < 1 {
		t.Fatalf("statuses %v, Retry-After %q; want 200 200 429 429 and whole seconds", got, retry)
	}
	// Retry-After seconds later the bucket holds a token again; the clock
	// alone decides (it is the fixture's, not the machine's).
	now = now.Add(time.Duration(wait) * time.Second)
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/records"}); st != 200 {
		t.Fatalf("%d s later: %d %s", wait, st, b)
	}
}

// TestOpenAPICoversEveryRoute checks that the served document lists exactly
// the routes the server registers.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	f := newFixture(t, nil)
	_, _, b := f.do(t, call{method: "GET", path: "/openapi.json"})
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	var documented []string
	for p, ops := range doc.Paths {
		for m := range ops {
			documented = append(documented, strings.ToUpper(m)+" "+p)
		}
	}
	registered := f.srv.Routes()
	slices.Sort(documented)
	slices.Sort(registered)
	for _, r := range registered {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(registered, d) {
			t.Errorf("openapi.json documents %s, which the server does not register", d)
		}
	}
}

func TestRefusesPublicBindWithoutKeys(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	if err := server.CheckBind(ctx, "127.0.0.1:7077", f.store); err != nil {
		t.Fatalf("loopback: %v", err)
	}
	err := server.CheckBind(ctx, "0.0.0.0:7077", f.store)
	if mnemo.ErrorCode(err) != mnemo.EFORBIDDEN || !strings.Contains(err.Error(), "without API keys") {
		t.Fatalf("public bind without keys: %v", err)
	}
	f.key(t, mnemo.RoleRead, 0, "a")
	if err := server.CheckBind(ctx, "0.0.0.0:7077", f.store); err != nil {
		t.Fatalf("public bind with a key: %v", err)
	}
}

// TestShutdownLosesNoAcknowledgedWrite writes from several clients while the
// server shuts down; every write that got 201 must be in the store afterwards.
func TestShutdownLosesNoAcknowledgedWrite(t *testing.T) {
	f := &fixture{path: filepath.Join(t.TempDir(), "m.db")}
	f.open(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.Run(ctx, ln) }()
	c, err := client.New("http://"+ln.Addr().String(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	started := make(chan struct{})
	var once sync.Once
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				out, err := c.Remember(context.Background(), []mnemo.NewRecord{{Text: fmt.Sprintf("writer %d record %d about shutdown safety", w, i)}}, mnemo.WriteOptions{})
				if err != nil {
					return // the server is gone: unacknowledged
				}
				mu.Lock()
				acked = append(acked, out[0].ID)
				n := len(acked)
				mu.Unlock()
				if n >= 20 {
					once.Do(func() { close(started) })
				}
			}
		}()
	}
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	wg.Wait()
	f.store.Close()

	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: f.path})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.GetMany(context.Background(), mnemo.Scope{Namespace: "default", Clearance: mnemo.MaxAccessLevel}, acked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(acked) {
		t.Fatalf("%d writes acknowledged, %d found after shutdown", len(acked), len(got))
	}
	t.Logf("%d acknowledged writes survived shutdown", len(acked))
}
