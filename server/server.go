// Package server is mnemo's HTTP surface: the REST API under /v1, MCP over
// streamable HTTP at /mcp, /metrics (Prometheus text format), /healthz,
// /readyz and /openapi.json. It is a thin adapter over engine.Service: it
// authenticates, resolves the namespace, decodes, calls the engine and maps
// coded errors to statuses in one table (errors.go).
package server

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/console"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/mcpserver"
)

// OpenAPI is the OpenAPI 3.1 document of the REST API, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// NamespaceHeader names the namespace of a request.
const NamespaceHeader = "Mnemo-Namespace"

// Config configures a Server.
type Config struct {
	Service *engine.Service // required
	// Keys holds the API keys. With at least one active key every request
	// needs a valid one; with none (or nil) requests act as the local user.
	Keys   mnemo.KeyStore
	Logger *slog.Logger // nil discards logs
	// MaxBody bounds a JSON request body (default 4 MiB); MaxImportBody
	// bounds a JSONL import (default 256 MiB). Larger bodies get 413.
	MaxBody       int64
	MaxImportBody int64
	// Rate is the sustained requests per second allowed per key (per client
	// IP without keys); 0 disables rate limiting. Burst defaults to 2×Rate.
	Rate  float64
	Burst int
	// ShutdownTimeout bounds how long Run waits for in-flight requests (default 30s).
	ShutdownTimeout time.Duration
	Version         string

	// AllowedHosts are the Host names (or HOST:PORT) accepted besides
	// localhost, loopback addresses and the address a request arrived on;
	// a name starting with "." also accepts its subdomains, and "*" accepts
	// any Host. Any other Host is refused (403), which defeats DNS rebinding.
	AllowedHosts []string
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// cross-origin requests are accepted, with CORS headers. Any other
	// cross-origin browser request is refused (403).
	AllowedOrigins []string
	// BodyTimeout bounds reading a request body (default 30s; JSONL imports
	// get ImportTimeout, default 5 minutes). A slower client gets its
	// connection closed.
	BodyTimeout   time.Duration
	ImportTimeout time.Duration
	// MaxExports bounds the exports one key (one client address without
	// keys) runs at once (default 2); more get 429 with Retry-After.
	MaxExports int
	// MetricsTTL is how long /metrics reuses its per-namespace record counts
	// (default 15s); ReadyTTL how long /readyz reuses its write probe (default 10s).
	MetricsTTL time.Duration
	ReadyTTL   time.Duration
	// Now is the clock of the caches above and of the rate limit (default
	// time.Now).
	Now func() time.Time
	// NoConsole leaves the web console (served at /) out.
	NoConsole bool
	// Chat, when set, is the optional chat model the loops run over REST
	// use to write paraphrase probes.
	Chat llm.Model
	// LoopMetrics, when set, gives the scheduled loops' counters per
	// namespace for /metrics.
	LoopMetrics func() map[string]loops.NamespaceMetrics
	// Jobs, when set, reports the background jobs for the console's health page.
	Jobs func() []console.Job
}

// Server serves mnemo over HTTP.
type Server struct {
	svc     *engine.Service
	keys    mnemo.KeyStore
	log     *slog.Logger
	cfg     Config
	mux     *http.ServeMux
	routes  []string
	metrics *metrics
	limiter *limiter

	keyCount  atomic.Int64 // cached number of active keys
	keyCheck  atomic.Int64 // unix nanos of the last refresh
	keyed     atomic.Bool  // set once a key was seen: the server never serves without one again
	keyMu     sync.Mutex
	stopping  atomic.Bool
	streamsMu sync.Mutex
	streams   map[*streamCancel]struct{}

	hosts   hostList
	origins map[string]bool
	exports *slots
	counts  countCache
	ready   readiness
	console bool
}

type streamCancel struct{ cancel context.CancelFunc }

// New builds a Server and registers every route.
func New(cfg Config) (*Server, error) {
	if cfg.Service == nil {
		return nil, errors.New("server: a service is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 4 << 20
	}
	if cfg.MaxImportBody <= 0 {
		cfg.MaxImportBody = 256 << 20
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 30 * time.Second
	}
	if cfg.ImportTimeout <= 0 {
		cfg.ImportTimeout = 5 * time.Minute
	}
	if cfg.MaxExports <= 0 {
		cfg.MaxExports = 2
	}
	if cfg.MetricsTTL <= 0 {
		cfg.MetricsTTL = 15 * time.Second
	}
	if cfg.ReadyTTL <= 0 {
		cfg.ReadyTTL = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{svc: cfg.Service, keys: cfg.Keys, log: cfg.Logger, cfg: cfg, mux: http.NewServeMux(),
		metrics: newMetrics(), streams: map[*streamCancel]struct{}{}, exports: newSlots(cfg.MaxExports)}
	var err error
	if s.hosts, err = parseHosts(cfg.AllowedHosts); err != nil {
		return nil, err
	}
	if s.origins, err = parseOrigins(cfg.AllowedOrigins); err != nil {
		return nil, err
	}
	s.keyCount.Store(-1)
	// A server that starts with keys stays keyed, whatever happens to them.
	if cfg.Keys != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		n, err := cfg.Keys.ActiveKeys(ctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("server: counting API keys: %w", err)
		}
		s.keyed.Store(n > 0)
	}
	if cfg.Rate > 0 {
		s.limiter = newLimiter(cfg.Rate, cfg.Burst)
	}
	s.routesV1()
	s.handle("GET /v1/config", true, s.handleConfig)
	s.handle("GET /v1/config/history", true, s.handleConfigHistory)
	s.handle("POST /v1/config", true, s.handleConfigApply)
	s.handle("POST /v1/config/rollback", true, s.handleConfigRollback)
	s.handle("POST /v1/loops/warm", true, s.handleLoopWarm)
	s.handle("POST /v1/loops/cold", true, s.handleLoopCold)
	s.handle("GET /v1/loops/status", true, s.handleLoopStatus)
	s.handle("GET /v1/loops/pending", true, s.handleLoopPending)
	s.handle("POST /v1/loops/pending/{id}/approve", true, s.handleLoopApprove)
	s.handle("POST /v1/loops/pending/{id}/reject", true, s.handleLoopReject)
	s.handle("GET /openapi.json", false, s.handleOpenAPI)
	s.handle("GET /metrics", false, s.handleMetrics)
	s.handle("GET /healthz", false, s.handleHealth)
	s.handle("GET /readyz", false, s.handleReady)

	mcpSrv := mcpserver.New(cfg.Service, mcpserver.Options{
		Identify: s.identifyMCP,
		Observe:  s.metrics.observeTool,
		Logger:   cfg.Logger,
		Version:  cfg.Version,
	})
	// Host, Origin and Content-Type are checked for every route in Handler;
	// the SDK binds each session to the key that opened it.
	mh := mcpserver.NewHTTPHandler(mcpSrv, mcpserver.HTTPOptions{Logger: cfg.Logger, MaxBody: cfg.MaxBody,
		Owner: func(r *http.Request) string { return owner(principal(r.Context())) }})
	for _, m := range []string{"POST", "GET", "DELETE"} {
		s.handle(m+" /mcp", true, s.mcpHandler(mh))
	}
	if !cfg.NoConsole {
		con, err := console.New(console.Config{Service: cfg.Service, Authenticate: s.consoleAuth, Keyed: s.authRequired,
			Health: cfg.Jobs, Logger: cfg.Logger, Version: cfg.Version, Now: cfg.Now})
		if err != nil {
			return nil, err
		}
		con.Register(s.mux.HandleFunc)
		s.console = true
	}
	return s, nil
}

// consoleAuth authenticates a console request as the API would a request
// bearing the key secret and naming the namespace. When only the namespace
// is refused, the key comes back with the error.
func (s *Server) consoleAuth(r *http.Request, secret, ns string) (mnemo.Principal, *mnemo.APIKey, error) {
	r2 := r.Clone(r.Context())
	r2.Header = http.Header{}
	if secret != "" {
		r2.Header.Set("Authorization", "Bearer "+secret)
	}
	if ns != "" {
		r2.Header.Set(NamespaceHeader, ns)
	}
	p, k, err := s.authenticateRequest(r2, false)
	if err != nil {
		return p, k, err
	}
	if wait, ok := s.allow(p, r); !ok { // the API's rate limit holds for the console too
		return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.ERATELIMIT, "too many requests: retry in %s", wait.Round(time.Millisecond))
	}
	if k == nil {
		return p, nil, nil
	}
	if k.Role == mnemo.RoleMetrics {
		return mnemo.Principal{}, k, mnemo.Errorf(mnemo.EFORBIDDEN, "this API key has role metrics: it may read /metrics only")
	}
	p.Namespace, err = k.ResolveNamespace(ns)
	return p, k, err
}

// guardConsole checks a console request as guard does an API request, but
// for its media type (the console takes form posts, each with the
// session's CSRF token) and with no cross-origin exception: the console
// answers its own pages only.
func (s *Server) guardConsole(w http.ResponseWriter, r *http.Request) bool {
	if !s.hostAllowed(r) {
		s.refuse(w, r, mnemo.Errorf(mnemo.EFORBIDDEN,
			"Host %q does not name this server: use localhost or its address, or allow the name with --allowed-hosts", r.Host))
		return false
	}
	if err := crossOrigin(r, r.Header.Get("Origin")); err != nil {
		s.refuse(w, r, err)
		return false
	}
	return true
}

// owner names the holder of an MCP session: the key, or the local user.
func owner(p mnemo.Principal) string {
	if p.KeyID == "" {
		return "local"
	}
	return p.KeyID
}

// Routes returns every registered route pattern ("METHOD /path").
func (s *Server) Routes() []string { return append([]string(nil), s.routes...) }

// Handler returns the root HTTP handler (host, origin and media type
// checks, routes, auth, limits, metrics, logs).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		if hasBody(r) {
			// Bound the time to read a body; readBody lifts the bound once
			// the body is in, so long answers (MCP streams) are not cut.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
		}
		ok := false
		if s.console && console.Owns(r.URL.Path) {
			ok = s.guardConsole(sw, r)
		} else {
			ok = s.guard(sw, r)
		}
		if ok {
			s.serveMux(sw, r)
		}
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		d := time.Since(start)
		s.metrics.observeRequest(route, sw.status, d)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Int("status", sw.status), slog.Duration("dur", d),
			slog.String("remote", r.RemoteAddr))
	})
}

// handle registers a route. Authenticated routes get the principal.
func (s *Server) handle(pattern string, auth bool, h http.HandlerFunc) {
	s.routes = append(s.routes, pattern)
	if !auth {
		s.mux.HandleFunc(pattern, h)
		return
	}
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		// Authentication reads headers only: a refused request never has
		// its body read.
		p, k, err := s.authenticateRequest(r, true)
		if err != nil {
			if mnemo.ErrorCode(err) == mnemo.EUNAUTHORIZED {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
			}
			s.refuse(w, r, err)
			return
		}
		if wait, ok := s.allow(p, r); !ok {
			w.Header().Set("Retry-After", fmt.Sprint(int(wait/time.Second)+1))
			s.refuse(w, r, mnemo.Errorf(mnemo.ERATELIMIT, "too many requests: retry in %s", wait.Round(time.Millisecond)))
			return
		}
		h(w, r.WithContext(withKey(withPrincipal(r.Context(), p), k)))
	})
}

// mcpHandler adapts the MCP handler: long-lived GET streams end on shutdown.
func (s *Server) mcpHandler(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			// The SDK would silently turn invalid UTF-8 into U+FFFD: refuse it.
			body, err := readBody(w, r, s.cfg.MaxBody, s.cfg.BodyTimeout)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		sc := &streamCancel{cancel}
		s.streamsMu.Lock()
		s.streams[sc] = struct{}{}
		s.streamsMu.Unlock()
		defer func() {
			s.streamsMu.Lock()
			delete(s.streams, sc)
			s.streamsMu.Unlock()
			cancel()
		}()
		if s.stopping.Load() {
			cancel()
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	}
}

// Run serves on ln until ctx is cancelled, then shuts down gracefully:
// it stops accepting connections, lets in-flight requests finish (within
// ShutdownTimeout), and flushes the engine's background work.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second, // bodies: BodyTimeout, per request
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("mnemo serving", "addr", ln.Addr().String(), "auth", s.authRequired(ctx))
	select {
	case err := <-errc:
		s.svc.Close()
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down: finishing in-flight requests")
	s.stopping.Store(true)
	s.streamsMu.Lock()
	for sc := range s.streams {
		sc.cancel()
	}
	s.streamsMu.Unlock()
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if cerr := s.svc.Close(); err == nil {
		err = cerr
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	s.log.Info("stopped")
	return err
}

// CheckBind refuses to serve on a non-loopback address when no API key
// exists: anyone on the network could read and write every namespace.
func CheckBind(ctx context.Context, addr string, keys mnemo.KeyStore) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return mnemo.Errorf(mnemo.EINVALID, "address %q is not HOST:PORT", addr)
	}
	if isLoopbackHost(host) {
		return nil
	}
	n := 0
	if keys != nil {
		if n, err = keys.ActiveKeys(ctx); err != nil {
			return err
		}
	}
	if n == 0 {
		return mnemo.Errorf(mnemo.EFORBIDDEN,
			"refusing to listen on %s without API keys: anyone who can reach it could read and change every namespace. "+
				"Create a key first (mnemo keys create --namespaces NS --role write) or bind to 127.0.0.1", addr)
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// statusWriter records the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Flush supports streaming responses (MCP, export).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPI)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if s.stopping.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if _, err := s.svc.Store().Embedder(ctx); err != nil {
		s.log.Error("readiness check failed", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "store unavailable"})
		return
	}
	if err := s.ready.check(ctx, s); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "store cannot write"})
		return
	}
	// Which lexical resources expand queries, so an operator can tell a
	// machine without thesauri from one with them.
	lex := []string{}
	for _, src := range s.svc.Thesaurus().Sources() {
		lex = append(lex, src.Name)
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "lexical_resources": lex})
}
