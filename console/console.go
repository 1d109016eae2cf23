// Package console is mnemo's web console: an operator's view of a
// namespace's memory — records, search with score breakdowns, corrections,
// digests — served by `mnemo serve` at /. It is a transport like REST and
// MCP: it authenticates as the API does (a key, kept in a server-side
// session behind an HttpOnly, SameSite=Strict cookie), checks a CSRF token
// on every write, and calls engine.Service with the key's caller, so it
// shows and changes only what that key may. Templates and assets are
// embedded; nothing is loaded from elsewhere.
package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// CookieName names the console's session cookie.
const CookieName = "mnemo_console"

// Config configures a Console.
type Config struct {
	Service *engine.Service // required
	// Authenticate resolves the caller of a request as the API does, from a
	// key secret ("" when the operator gave none) and a namespace ("" for
	// the key's default): a principal and the key (nil for the local user
	// of a keyless server), or a coded error (EUNAUTHORIZED, EFORBIDDEN).
	// When only the namespace is refused, the key still comes back.
	Authenticate func(r *http.Request, secret, namespace string) (mnemo.Principal, *mnemo.APIKey, error)
	// Keyed reports whether the server needs a key.
	Keyed func(ctx context.Context) bool
	// Health, when set, reports the server's background jobs and recent
	// errors for the health page.
	Health  func() []Job
	Logger  *slog.Logger
	Version string
	// SessionIdle is how long an unused session lives (default 12 hours).
	SessionIdle time.Duration
	Now         func() time.Time
}

// Job is the state of one background job of the server.
type Job struct {
	Name    string
	Every   time.Duration
	LastRun time.Time
	LastErr string
	Done    string // what the last run did, e.g. "3 archived"
}

// Console serves the web console.
type Console struct {
	cfg   Config
	svc   *engine.Service
	log   *slog.Logger
	pages map[string]*template.Template
	mu    sync.Mutex
	sess  map[string]*session
	start time.Time
}

// session is one signed-in browser. The key secret stays on the server;
// the browser holds only the random session id.
type session struct {
	id       string
	secret   string // "" on a keyless server
	ns       string // the namespace chosen, "" for the key's default
	csrf     string
	lastSeen time.Time
	flash    string
}

// maxSessions bounds the sessions kept; the least recently used go first.
const maxSessions = 10000

// New builds a Console.
func New(cfg Config) (*Console, error) {
	if cfg.Service == nil || cfg.Authenticate == nil || cfg.Keyed == nil {
		return nil, errors.New("console: a service, Authenticate and Keyed are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = 12 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Console{cfg: cfg, svc: cfg.Service, log: cfg.Logger, sess: map[string]*session{}, start: cfg.Now()}
	if err := c.parseTemplates(); err != nil {
		return nil, err
	}
	return c, nil
}

// paths are the console's top-level paths; Owns matches them.
var paths = []string{"/login", "/logout", "/namespace", "/records", "/records/", "/record/", "/search", "/digest",
	"/retrievals", "/retrieval/", "/corrections", "/corrections/", "/handoff", "/threads", "/thread/", "/health", "/assets/"}

// Owns reports whether a request path belongs to the console (which takes
// form posts, guarded by its CSRF token, where the API takes JSON).
func Owns(path string) bool {
	if path == "/" {
		return true
	}
	for _, p := range paths {
		if path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// Register registers the console's routes with handle (e.g. a ServeMux's
// HandleFunc).
func (c *Console) Register(handle func(pattern string, h func(http.ResponseWriter, *http.Request))) {
	assets, _ := fs.Sub(assetFS, "assets")
	static := http.StripPrefix("/assets/", http.FileServerFS(assets))
	handle("GET /assets/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		securityHeaders(w)
		static.ServeHTTP(w, r)
	})
	handle("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/records", http.StatusSeeOther)
	})
	handle("GET /login", c.handleLoginPage)
	handle("POST /login", c.handleLogin)
	handle("POST /logout", c.page(c.handleLogout))
	handle("POST /namespace", c.page(c.handleNamespace))
	handle("GET /records", c.page(c.handleRecords))
	handle("POST /records/forget", c.page(c.writer(c.handleBulkForget)))
	handle("GET /record/{id...}", c.page(c.handleRecord))
	handle("POST /record/{id...}", c.page(c.writer(c.handleRecordAction)))
	handle("GET /search", c.page(c.handleSearch))
	handle("GET /digest", c.page(c.handleDigest))
	handle("GET /retrievals", c.page(c.handleRetrievals))
	handle("GET /retrieval/{id}", c.page(c.handleRetrieval))
	handle("POST /retrieval/{id}", c.page(c.writer(c.handleMissed)))
	handle("GET /corrections", c.page(c.handleCorrections))
	handle("GET /corrections/triples.jsonl", c.page(c.handleTriples))
	handle("GET /handoff", c.page(c.handleHandoff))
	handle("GET /threads", c.page(c.handleThreads))
	handle("GET /thread/{name...}", c.page(c.handleThread))
	handle("GET /health", c.page(c.handleHealth))
}

// req is what a page handler gets: the caller and its session.
type req struct {
	p          mnemo.Principal
	key        *mnemo.APIKey
	s          *session
	namespaces []string
	form       url.Values // the posted form (POST only), CSRF checked
}

// canWrite reports whether the caller may change records.
func (q *req) canWrite() bool { return q.p.CanWrite() }

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newSession stores a fresh session and sets its cookie.
func (c *Console) newSession(w http.ResponseWriter, r *http.Request, secret, ns string) *session {
	s := &session{id: randomToken(), secret: secret, ns: ns, csrf: randomToken(), lastSeen: c.cfg.Now()}
	c.mu.Lock()
	if len(c.sess) >= maxSessions {
		var oldest *session
		for _, x := range c.sess {
			if oldest == nil || x.lastSeen.Before(oldest.lastSeen) {
				oldest = x
			}
		}
		delete(c.sess, oldest.id)
	}
	c.sess[s.id] = s
	c.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	return s
}

// session returns the request's live session, or nil.
func (c *Console) session(r *http.Request) *session {
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return nil
	}
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sess[ck.Value]
	if s == nil {
		return nil
	}
	if now.Sub(s.lastSeen) > c.cfg.SessionIdle {
		delete(c.sess, s.id)
		return nil
	}
	s.lastSeen = now
	return s
}

func (c *Console) dropSession(w http.ResponseWriter, s *session) {
	if s != nil {
		c.mu.Lock()
		delete(c.sess, s.id)
		c.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// maxForm bounds a posted form.
const maxForm = 1 << 20

// readForm parses a posted form: only application/x-www-form-urlencoded,
// within maxForm, UTF-8.
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, mnemo.Errorf(mnemo.EMEDIATYPE, "the console takes form posts only")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return nil, mnemo.Errorf(mnemo.EMEDIATYPE, "form posts are UTF-8")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "cannot read the form")
	}
	return r.PostForm, nil
}

// checkCSRF compares the form's token with the session's.
func checkCSRF(s *session, form url.Values) error {
	if s == nil || subtle.ConstantTimeCompare([]byte(form.Get("csrf")), []byte(s.csrf)) != 1 {
		return mnemo.Errorf(mnemo.EFORBIDDEN, "the form's CSRF token is missing or stale: reload the page and try again")
	}
	return nil
}

// page wraps a handler: it finds the session (on a keyless server it makes
// one), authenticates its key as the API does, checks the CSRF token of a
// post and sends the operator to sign in when needed.
func (c *Console) page(h func(w http.ResponseWriter, r *http.Request, q *req)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w)
		s := c.session(r)
		keyed := c.cfg.Keyed(r.Context())
		if s == nil || (keyed && s.secret == "") {
			if r.Method != http.MethodGet {
				c.fail(w, r, nil, mnemo.Errorf(mnemo.EUNAUTHORIZED, "sign in first"))
				return
			}
			if keyed {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			s = c.newSession(w, r, "", "")
		}
		p, key, err := c.cfg.Authenticate(r, s.secret, s.ns)
		if err != nil && key != nil && mnemo.ErrorCode(err) == mnemo.EFORBIDDEN && s.ns != "" {
			s.ns = "" // the key lost that namespace: fall back to its default
			p, key, err = c.cfg.Authenticate(r, s.secret, "")
		}
		if err != nil {
			if mnemo.ErrorCode(err) == mnemo.EUNAUTHORIZED && s.secret != "" {
				c.dropSession(w, s)
				if r.Method == http.MethodGet {
					http.Redirect(w, r, "/login?expired=1", http.StatusSeeOther)
					return
				}
			}
			c.fail(w, r, nil, err)
			return
		}
		q := &req{p: p, key: key, s: s}
		r = r.WithContext(mnemo.WithPrincipal(r.Context(), p)) // the service acts as the key
		if key != nil {
			q.namespaces = key.Namespaces
		} else {
			q.namespaces = c.localNamespaces(r.Context(), p.Namespace)
		}
		if r.Method == http.MethodPost {
			form, err := readForm(w, r)
			if err == nil {
				err = checkCSRF(s, form)
			}
			if err != nil {
				c.fail(w, r, q, err)
				return
			}
			q.form = form
		}
		h(w, r, q)
	}
}

// writer refuses, before the handler runs, a caller that cannot write.
func (c *Console) writer(h func(w http.ResponseWriter, r *http.Request, q *req)) func(w http.ResponseWriter, r *http.Request, q *req) {
	return func(w http.ResponseWriter, r *http.Request, q *req) {
		if err := q.p.CheckWrite(); err != nil {
			c.fail(w, r, q, err)
			return
		}
		h(w, r, q)
	}
}

// localNamespaces lists the namespaces a keyless server's local user may
// pick: those holding records, the current one and the default.
func (c *Console) localNamespaces(ctx context.Context, cur string) []string {
	nss, err := c.svc.Store().Namespaces(ctx)
	if err != nil {
		c.log.Warn("console: listing namespaces", "err", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, ns := range append([]string{cur, mnemo.DefaultNamespace}, nss...) {
		if ns != "" && !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	return out
}

// securityHeaders keeps the console's pages to their own origin: no
// framing, no scripts, styles or images from elsewhere, no referrer to
// other sites.
func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: with no-referrer browsers send
	// "Origin: null" on form posts, which the origin check refuses.
	h.Set("Referrer-Policy", "same-origin")
}

// loginCookie holds the sign-in form's CSRF token (double submit): no
// server state exists for a browser until it signs in, so unsigned
// visitors cannot crowd out the sessions of signed-in ones.
const loginCookie = CookieName + "_login"

func (c *Console) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	if !c.cfg.Keyed(r.Context()) {
		http.Redirect(w, r, "/records", http.StatusSeeOther)
		return
	}
	token := randomToken()
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: token, Path: "/login", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	msg := ""
	if r.URL.Query().Get("expired") != "" {
		msg = "Your session ended or its key was revoked: sign in again."
	}
	c.render(w, r, http.StatusOK, "login", nil, map[string]any{"CSRF": token, "Next": safeNext(r.URL.Query().Get("next")), "Error": msg})
}

// safeNext keeps a post-login redirect on this console.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || !Owns(strings.SplitN(next, "?", 2)[0]) {
		return "/records"
	}
	return next
}

func (c *Console) handleLogin(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	form, err := readForm(w, r)
	if err == nil {
		ck, cerr := r.Cookie(loginCookie)
		if cerr != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(form.Get("csrf"))) != 1 {
			err = mnemo.Errorf(mnemo.EFORBIDDEN, "the sign-in form's CSRF token is missing or stale: reload the page and try again")
		}
	}
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	secret := strings.TrimSpace(form.Get("key"))
	next := safeNext(form.Get("next"))
	fail := func(msg string) {
		c.render(w, r, http.StatusUnauthorized, "login", nil, map[string]any{"CSRF": form.Get("csrf"), "Next": next, "Error": msg})
	}
	if secret == "" {
		fail("Enter an API key.")
		return
	}
	_, key, err := c.cfg.Authenticate(r, secret, "")
	if key == nil {
		fail("That key is unknown or revoked.")
		return
	}
	if key.Role == mnemo.RoleMetrics {
		fail("A metrics key reads /metrics only: it cannot open the console.")
		return
	}
	ns := ""
	if err != nil && len(key.Namespaces) > 0 {
		ns = key.Namespaces[0] // the key has no default namespace: start in its first
	}
	// A new session on sign-in: an id planted before is never reused.
	c.dropSession(w, c.session(r))
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: "", Path: "/login", MaxAge: -1})
	c.newSession(w, r, secret, ns)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (c *Console) handleLogout(w http.ResponseWriter, r *http.Request, q *req) {
	c.dropSession(w, q.s)
	if c.cfg.Keyed(r.Context()) {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/records", http.StatusSeeOther)
}

func (c *Console) handleNamespace(w http.ResponseWriter, r *http.Request, q *req) {
	ns := strings.TrimSpace(q.form.Get("ns"))
	if _, _, err := c.cfg.Authenticate(r, q.s.secret, ns); err != nil {
		c.fail(w, r, q, err)
		return
	}
	q.s.ns = ns
	http.Redirect(w, r, "/records", http.StatusSeeOther)
}
