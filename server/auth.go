package server

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mnemo-dev/mnemo"
)

type principalKey struct{}

type keyKey struct{}

// withPrincipal returns ctx carrying p, for the handlers, and p's caller
// and namespace, for the service (mnemo.WithPrincipal).
func withPrincipal(ctx context.Context, p mnemo.Principal) context.Context {
	return context.WithValue(mnemo.WithPrincipal(ctx, p), principalKey{}, p)
}

// principal returns the authenticated caller of a request.
func principal(ctx context.Context) mnemo.Principal {
	p, _ := ctx.Value(principalKey{}).(mnemo.Principal)
	return p
}

func withKey(ctx context.Context, k *mnemo.APIKey) context.Context {
	return context.WithValue(ctx, keyKey{}, k)
}

// apiKey returns the key of a request (nil for the local user).
func apiKey(ctx context.Context) *mnemo.APIKey {
	k, _ := ctx.Value(keyKey{}).(*mnemo.APIKey)
	return k
}

// keyCountTTL is how long the number of active keys is cached: a key
// created by `mnemo keys create` while the server runs takes effect within it.
const keyCountTTL = 2 * time.Second

// activeKeys returns the (cached) number of active API keys; once it was
// above zero the server is keyed for good.
func (s *Server) activeKeys(ctx context.Context) (int, error) {
	if s.keys == nil {
		return 0, nil
	}
	now := time.Now().UnixNano()
	if n := s.keyCount.Load(); n >= 0 && now-s.keyCheck.Load() < int64(keyCountTTL) {
		return int(n), nil
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	n, err := s.keys.ActiveKeys(ctx)
	if err != nil {
		return 0, err
	}
	s.keyCount.Store(int64(n))
	s.keyCheck.Store(now)
	if n > 0 {
		s.keyed.Store(true)
	}
	return n, nil
}

// authRequired reports whether requests need a key: at least one active key
// exists, or existed while the server ran (revoking the last key does not
// open the server).
func (s *Server) authRequired(ctx context.Context) bool {
	n, err := s.activeKeys(ctx)
	if err != nil {
		s.log.Error("counting API keys", "err", err)
		return true // fail closed
	}
	return n > 0 || s.keyed.Load()
}

// authenticateRequest authenticates r from its headers alone (its body is
// not read). Without keys only the local user is served, and only over
// loopback: a request from another address is refused.
func (s *Server) authenticateRequest(r *http.Request, needNamespace bool) (mnemo.Principal, *mnemo.APIKey, error) {
	p, k, err := s.authenticate(r.Context(), r.Header, needNamespace)
	if err != nil || k != nil {
		return p, k, err
	}
	if !loopbackConn(r) {
		return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.EUNAUTHORIZED,
			"this server has no API keys, so it answers only loopback clients: create a key (mnemo keys create) to serve others")
	}
	return p, nil, nil
}

// loopbackConn reports whether r came from, and arrived on, a loopback address.
func loopbackConn(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || !isLoopbackHost(host) {
		return false
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil {
		lh, _, err := net.SplitHostPort(la.String())
		return err == nil && isLoopbackHost(lh)
	}
	return true
}

// authenticate resolves the principal of a request from its Authorization
// and Mnemo-Namespace headers, and returns its key (nil for the local user).
// needNamespace is false for /metrics, which acts in no namespace.
func (s *Server) authenticate(ctx context.Context, h http.Header, needNamespace bool) (mnemo.Principal, *mnemo.APIKey, error) {
	requested := strings.TrimSpace(h.Get(NamespaceHeader))
	if err := mnemo.ValidateNamespace(requested); err != nil {
		return mnemo.Principal{}, nil, err
	}
	authz := h.Get("Authorization")
	if authz == "" {
		if s.authRequired(ctx) {
			if n, err := s.activeKeys(ctx); err == nil && n == 0 {
				return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.EUNAUTHORIZED,
					"every API key of this server is revoked: it refuses all requests until a key is created (mnemo keys create)")
			}
			return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.EUNAUTHORIZED, "an API key is required: send Authorization: Bearer KEY")
		}
		ns := requested
		if ns == "" {
			ns = mnemo.DefaultNamespace
		}
		return mnemo.Principal{Caller: mnemo.Caller{Name: "local", Role: mnemo.RoleAdmin, Clearance: mnemo.MaxAccessLevel},
			Namespace: ns}, nil, nil
	}
	scheme, secret, ok := strings.Cut(authz, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.EUNAUTHORIZED, "malformed Authorization header: want Bearer KEY")
	}
	if s.keys == nil {
		return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.EUNAUTHORIZED, "this server has no API keys")
	}
	k, err := s.keys.LookupKey(ctx, mnemo.HashAPIKey(secret))
	if err != nil {
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
			return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.EUNAUTHORIZED, "unknown or revoked API key")
		}
		return mnemo.Principal{}, nil, err
	}
	s.keyed.Store(true)
	name := k.Name
	if name == "" {
		name = k.ID
	}
	p := mnemo.Principal{Caller: mnemo.Caller{Name: name, Role: k.Role, Clearance: k.Clearance}, KeyID: k.ID}
	if !needNamespace {
		return p, k, nil
	}
	if k.Role == mnemo.RoleMetrics {
		return mnemo.Principal{}, nil, mnemo.Errorf(mnemo.EFORBIDDEN, "this API key has role metrics: it may read /metrics only")
	}
	if p.Namespace, err = k.ResolveNamespace(requested); err != nil {
		return mnemo.Principal{}, nil, err
	}
	return p, k, nil
}

// identifyMCP resolves the principal of an MCP tool call made over HTTP
// (the request itself was authenticated by the route).
func (s *Server) identifyMCP(ctx context.Context, h http.Header) (mnemo.Principal, error) {
	if h == nil {
		h = http.Header{}
	}
	p, _, err := s.authenticate(ctx, h, true)
	return p, err
}

// limiter is a token bucket per key (or per client IP without keys).
type limiter struct {
	mu      sync.Mutex
	r       rate.Limit
	burst   int
	buckets map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(perSec float64, burst int) *limiter {
	if burst <= 0 {
		burst = max(1, int(2*perSec))
	}
	return &limiter{r: rate.Limit(perSec), burst: burst, buckets: map[string]*bucket{}}
}

// allow takes one token for the principal; when none is left it returns how
// long to wait.
func (s *Server) allow(p mnemo.Principal, r *http.Request) (time.Duration, bool) {
	if s.limiter == nil {
		return 0, true
	}
	id := p.KeyID
	if id == "" {
		id, _, _ = net.SplitHostPort(r.RemoteAddr)
	}
	return s.limiter.take(id, s.cfg.Now())
}

func (l *limiter) take(id string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	b := l.buckets[id]
	if b == nil {
		if len(l.buckets) > 10000 { // forget idle clients
			for k, v := range l.buckets {
				if now.Sub(v.seen) > 10*time.Minute {
					delete(l.buckets, k)
				}
			}
		}
		b = &bucket{lim: rate.NewLimiter(l.r, l.burst)}
		l.buckets[id] = b
	}
	b.seen = now
	l.mu.Unlock()
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d, false
	}
	return 0, true
}
