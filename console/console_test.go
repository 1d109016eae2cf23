package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/console"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/server"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// fixture is a real server (API and console) over a real SQLite file.
type fixture struct {
	store *sqlite.Store
	svc   *engine.Service
	ts    *httptest.Server
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	svc, st := enginetest.Open(t, nil)
	srv, err := server.New(server.Config{Service: svc, Keys: st, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: st, svc: svc, ts: httptest.NewServer(srv.Handler())}
	t.Cleanup(f.ts.Close)
	return f
}

// key creates an API key and returns its secret.
func (f *fixture) key(t testing.TB, role mnemo.Role, clearance int, nss ...string) string {
	t.Helper()
	id, secret, hash := mnemo.NewAPIKeySecret()
	if err := f.store.CreateKey(context.Background(), &mnemo.APIKey{ID: id, Name: string(role) + "-" + strings.Join(nss, "+"),
		Hash: hash, Namespaces: nss, Role: role, Clearance: clearance}); err != nil {
		t.Fatal(err)
	}
	return secret
}

// remember writes a record as the local user and returns its id.
func (f *fixture) remember(t testing.TB, ns string, r mnemo.NewRecord) string {
	t.Helper()
	out, err := f.svc.Remember(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: "test", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, ns),
		[]mnemo.NewRecord{r}, mnemo.WriteOptions{})

	if err != nil {
		t.Fatal(err)
	}
	return out[0].ID
}

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	t    testing.TB
	f    *fixture
	c    *http.Client
	csrf string
}

func (f *fixture) browser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, f: f, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(req *http.Request) (int, http.Header, string) {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := csrfRe.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return resp.StatusCode, resp.Header, string(body)
}

func (b *browser) get(path string) (int, http.Header, string) {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.f.ts.URL+path, nil)
	return b.do(req)
}

// post sends a form as a same-origin browser would, with the session's
// CSRF token unless the form names one.
func (b *browser) post(path string, form url.Values) (int, http.Header, string) {
	b.t.Helper()
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest("POST", b.f.ts.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.f.ts.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

// signIn signs in with a key and fails the test otherwise.
func (b *browser) signIn(secret string) {
	b.t.Helper()
	if st, _, _ := b.get("/login"); st != http.StatusOK {
		b.t.Fatalf("GET /login: %d", st)
	}
	st, h, body := b.post("/login", url.Values{"key": {secret}})
	if st != http.StatusSeeOther {
		b.t.Fatalf("sign-in: %d %s", st, body)
	}
	_ = h
	if st, _, body := b.get("/records"); st != http.StatusOK {
		b.t.Fatalf("after sign-in: %d %s", st, body)
	}
}

func TestSignInKeepsTheKeyInAStrictHttpOnlySession(t *testing.T) {
	f := newFixture(t)
	secret := f.key(t, mnemo.RoleWrite, 0, "a")
	b := f.browser(t)
	st, h, _ := b.get("/records")
	if st != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Fatalf("unsigned /records: %d %q", st, h.Get("Location"))
	}
	if st, _, _ := b.get("/login"); st != http.StatusOK {
		t.Fatal("login page")
	}
	if st, _, body := b.post("/login", url.Values{"key": {"mnemo_wrong"}}); st != http.StatusUnauthorized || !strings.Contains(body, "unknown or revoked") {
		t.Fatalf("wrong key: %d", st)
	}
	st, h, _ = b.post("/login", url.Values{"key": {secret}})
	if st != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", st)
	}
	ck := h.Get("Set-Cookie")
	for _, want := range []string{console.CookieName + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(strings.Join(h.Values("Set-Cookie"), "\n"), want) {
			t.Errorf("cookie %q lacks %s", ck, want)
		}
	}
	if strings.Contains(strings.Join(h.Values("Set-Cookie"), ""), secret) {
		t.Fatal("the key went into a cookie")
	}
	st, h, body := b.get("/records")
	if st != http.StatusOK || !strings.Contains(body, "clearance 0") {
		t.Fatalf("signed-in /records: %d", st)
	}
	for _, hdr := range []string{"Content-Security-Policy", "X-Frame-Options"} {
		if h.Get(hdr) == "" {
			t.Errorf("no %s header", hdr)
		}
	}
	// Signing out ends the session on the server.
	b.post("/logout", url.Values{})
	if st, _, _ := b.get("/records"); st != http.StatusSeeOther {
		t.Fatalf("after sign-out: %d", st)
	}
}

func TestRevokedKeyEndsTheSession(t *testing.T) {
	f := newFixture(t)
	secret := f.key(t, mnemo.RoleWrite, 0, "a")
	f.key(t, mnemo.RoleRead, 0, "a") // keeps the server keyed
	b := f.browser(t)
	b.signIn(secret)
	keys, _ := f.store.ListKeys(context.Background())
	for _, k := range keys {
		if k.Hash == mnemo.HashAPIKey(secret) {
			if err := f.store.RevokeKey(context.Background(), k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, h, _ := b.get("/records")
	if st != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Fatalf("revoked key: %d %s", st, h.Get("Location"))
	}
}

func TestEveryWriteNeedsTheCSRFTokenAndTheSameOrigin(t *testing.T) {
	f := newFixture(t)
	secret := f.key(t, mnemo.RoleWrite, 0, "a")
	id := f.remember(t, "a", mnemo.NewRecord{Text: "Uplink power above 200 W needs the RF officer"})
	b := f.browser(t)
	b.signIn(secret)
	edit := func(extra func(*http.Request), form url.Values) int {
		req, _ := http.NewRequest("POST", f.ts.URL+"/record/"+id, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if extra != nil {
			extra(req)
		}
		st, _, _ := b.do(req)
		return st
	}
	changed := url.Values{"action": {"edit"}, "text": {"changed"}}
	if st := edit(nil, changed); st != http.StatusForbidden {
		t.Errorf("no token: %d", st)
	}
	withWrong := url.Values{"action": {"edit"}, "text": {"changed"}, "csrf": {"forged"}}
	if st := edit(nil, withWrong); st != http.StatusForbidden {
		t.Errorf("wrong token: %d", st)
	}
	good := url.Values{"action": {"edit"}, "text": {"changed"}, "csrf": {b.csrf}}
	if st := edit(func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, good); st != http.StatusForbidden {
		t.Errorf("cross-site form post with the token: %d", st)
	}
	if st := edit(func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, good); st != http.StatusForbidden {
		t.Errorf("Sec-Fetch-Site cross-site: %d", st)
	}
	if st := edit(func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, good); st != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain post: %d", st)
	}
	if st := edit(func(r *http.Request) { r.Host = "evil.example" }, good); st != http.StatusForbidden {
		t.Errorf("foreign Host: %d", st)
	}
	rec, _ := f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Clearance: 0, Role: mnemo.RoleAdmin}, "a"), id)
	if rec.Text != "Uplink power above 200 W needs the RF officer" {
		t.Fatalf("a refused post changed the record: %q", rec.Text)
	}
	if st := edit(nil, good); st != http.StatusSeeOther {
		t.Fatalf("good post: %d", st)
	}
	rec, _ = f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Clearance: 0, Role: mnemo.RoleAdmin}, "a"), id)
	if rec.Text != "changed" {
		t.Fatalf("edit not applied: %q", rec.Text)
	}
	// The login form is guarded too.
	b2 := f.browser(t)
	if st, _, _ := b2.post("/login", url.Values{"key": {secret}, "csrf": {"x"}}); st != http.StatusForbidden {
		t.Errorf("login without the form's token: %d", st)
	}
}

func TestReadKeyGetsNoEditControlsAndCannotEdit(t *testing.T) {
	f := newFixture(t)
	secret := f.key(t, mnemo.RoleRead, 0, "a")
	id := f.remember(t, "a", mnemo.NewRecord{Text: "Night passes go through Svalbard"})
	b := f.browser(t)
	b.signIn(secret)
	_, _, body := b.get("/record/" + id)
	for _, ctl := range []string{`id="edit-form"`, `id="forget"`, `value="forget"`} {
		if strings.Contains(body, ctl) {
			t.Errorf("read key sees %s", ctl)
		}
	}
	if _, _, list := b.get("/records"); strings.Contains(list, "Forget selected") {
		t.Error("read key sees bulk forget")
	}
	for _, form := range []url.Values{{"action": {"edit"}, "text": {"x"}}, {"action": {"forget"}}} {
		if st, _, _ := b.post("/record/"+id, form); st != http.StatusForbidden {
			t.Errorf("%s by a read key: %d", form.Get("action"), st)
		}
	}
	if st, _, _ := b.post("/records/forget", url.Values{"id": {id}, "confirm": {"yes"}}); st != http.StatusForbidden {
		t.Errorf("bulk forget by a read key: %d", st)
	}
	rec, err := f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Role: mnemo.RoleAdmin}, "a"), id)
	if err != nil || rec.Text != "Night passes go through Svalbard" || rec.DeletedAt != nil {
		t.Fatalf("record changed by a read key: %+v %v", rec, err)
	}
}

func TestRecordTextIsEscapedEverywhere(t *testing.T) {
	f := newFixture(t)
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)> breach **bold** [x](javascript:alert(3))`
	id := f.remember(t, "default", mnemo.NewRecord{Text: evil, Kind: mnemo.KindDecision, Thread: "t<b>",
		Decision: &mnemo.Decision{Title: "<i>title</i>", Alternatives: []mnemo.Alternative{{Option: "<u>opt</u>", Reason: "<s>r</s>"}}}})
	b := f.browser(t) // keyless loopback server: no sign-in
	pages := []string{"/records", "/record/" + id, "/search?q=breach", "/digest?task=breach+script", "/threads", "/thread/t%3Cb%3E",
		"/handoff?go=1"}
	for _, p := range pages {
		st, _, body := b.get(p)
		if st != http.StatusOK {
			t.Fatalf("%s: %d", p, st)
		}
		for _, raw := range []string{"<script>alert", "<img src=x", "<i>title", "<u>opt", "<s>r", "href=\"javascript:", "<b>"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s carries unescaped %q", p, raw)
			}
		}
	}
	_, _, body := b.get("/digest?task=breach+script")
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the digest does not show the record's text escaped")
	}
}
