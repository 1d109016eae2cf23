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

func withPrincipal(ctx context.Context, p mnemo.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// principal returns the authenticated caller of a request.
func principal(ctx context.Context) mnemo.Principal {
	p, _ := ctx.Value(principalKey{}).(mnemo.Principal)
	return p
}

// keyCountTTL is how long the number of active keys is cached: a key
// created by `mnemo keys create` while the server runs takes effect within it.
const keyCountTTL = 2 * time.Second

// authRequired reports whether at least one active API key exists.
func (s *Server) authRequired(ctx context.Context) bool {
	if s.keys == nil {
		return false
	}
	now := time.Now().UnixNano()
	if n := s.keyCount.Load(); n >= 0 && now-s.keyCheck.Load() < int64(keyCountTTL) {
		return n > 0
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	n, err := s.keys.ActiveKeys(ctx)
	if err != nil {
		s.log.Error("counting API keys", "err", err)
		return true // fail closed
	}
	s.keyCount.Store(int64(n))
	s.keyCheck.Store(now)
	return n > 0
}

// authenticate resolves the principal of a request from its Authorization
// and Mnemo-Namespace headers.
func (s *Server) authenticate(ctx context.Context, h http.Header) (mnemo.Principal, error) {
	requested := strings.TrimSpace(h.Get(NamespaceHeader))
	if err := mnemo.ValidateNamespace(requested); err != nil {
		return mnemo.Principal{}, err
	}
	authz := h.Get("Authorization")
	if authz == "" {
		if s.authRequired(ctx) {
			return mnemo.Principal{}, mnemo.Errorf(mnemo.EUNAUTHORIZED, "an API key is required: send Authorization: Bearer KEY")
		}
		ns := requested
		if ns == "" {
			ns = mnemo.DefaultNamespace
		}
		return mnemo.Principal{Caller: mnemo.Caller{Name: "local", Clearance: mnemo.MaxAccessLevel},
			Namespace: ns, Role: mnemo.RoleAdmin}, nil
	}
	scheme, secret, ok := strings.Cut(authz, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		return mnemo.Principal{}, mnemo.Errorf(mnemo.EUNAUTHORIZED, "malformed Authorization header: want Bearer KEY")
	}
	if s.keys == nil {
		return mnemo.Principal{}, mnemo.Errorf(mnemo.EUNAUTHORIZED, "this server has no API keys")
	}
	k, err := s.keys.LookupKey(ctx, mnemo.HashAPIKey(secret))
	if err != nil {
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
			return mnemo.Principal{}, mnemo.Errorf(mnemo.EUNAUTHORIZED, "unknown or revoked API key")
		}
		return mnemo.Principal{}, err
	}
	ns, err := k.ResolveNamespace(requested)
	if err != nil {
		return mnemo.Principal{}, err
	}
	name := k.Name
	if name == "" {
		name = k.ID
	}
	return mnemo.Principal{Caller: mnemo.Caller{Name: name, Clearance: k.Clearance}, Namespace: ns, Role: k.Role, KeyID: k.ID}, nil
}

// identifyMCP resolves the principal of an MCP tool call made over HTTP.
func (s *Server) identifyMCP(ctx context.Context, h http.Header) (mnemo.Principal, error) {
	if h == nil {
		h = http.Header{}
	}
	return s.authenticate(ctx, h)
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
	return s.limiter.take(id, time.Now())
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
