package server

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// hostList holds the configured Host names beyond the built-in ones.
type hostList struct {
	any     bool
	exact   map[string]bool // lower-case host or host:port
	suffixs []string        // ".example.com"
}

func parseHosts(list []string) (hostList, error) {
	h := hostList{exact: map[string]bool{}}
	for _, x := range list {
		x = strings.ToLower(strings.TrimSpace(x))
		switch {
		case x == "":
		case x == "*":
			h.any = true
		case strings.HasPrefix(x, "."):
			h.suffixs = append(h.suffixs, x)
		case strings.ContainsAny(x, "/ @?#"):
			return h, mnemo.Errorf(mnemo.EINVALID, "allowed host %q is not a HOST or HOST:PORT", x)
		default:
			h.exact[x] = true
		}
	}
	return h, nil
}

// parseOrigins normalises scheme://host[:port] origins.
func parseOrigins(list []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, o := range list {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
			u.RawQuery != "" || u.User != nil {
			return nil, mnemo.Errorf(mnemo.EINVALID, "allowed origin %q is not scheme://host[:port]", o)
		}
		out[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return out, nil
}

// hostAllowed reports whether the Host header of r names this server:
// localhost or a loopback address, the address the request arrived on, or a
// configured name. Any other name may be an attacker's domain rebound to
// this address (DNS rebinding).
func (s *Server) hostAllowed(r *http.Request) bool {
	if s.hosts.any {
		return true
	}
	hostport := strings.ToLower(r.Host)
	if hostport == "" {
		return false
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if isLoopbackHost(host) || s.hosts.exact[hostport] || s.hosts.exact[host] {
		return true
	}
	for _, suf := range s.hosts.suffixs {
		if strings.HasSuffix(host, suf) {
			return true
		}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil {
		return true // no connection to compare with (in-process use): an address is no rebinding
	}
	ap, err := netip.ParseAddrPort(la.String())
	return err == nil && ap.Addr().Unmap() == ip.Unmap()
}

// corsHeaders lists what a configured origin may send and read.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Mnemo-Namespace, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
	corsExposeHeaders = "Location, Retry-After, Mnemo-Record-Count, Mnemo-Triple-Count, Mcp-Session-Id, WWW-Authenticate"
	corsAllowMethods  = "GET, POST, PATCH, DELETE"
)

// guard checks what every route needs before routing: a Host that names
// this server, no cross-origin browser request unless its origin is
// configured (then with CORS headers), and a JSON media type on bodies. It
// answers refused requests (and CORS preflights) itself and returns false.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	if !s.hostAllowed(r) {
		s.refuse(w, r, mnemo.Errorf(mnemo.EFORBIDDEN,
			"Host %q does not name this server: use localhost or its address, or allow the name with --allowed-hosts", r.Host))
		return false
	}
	origin := r.Header.Get("Origin")
	if origin != "" && s.origins[strings.ToLower(origin)] {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return false
		}
	} else if err := crossOrigin(r, origin); err != nil {
		s.refuse(w, r, err)
		return false
	}
	if err := checkMediaType(r); err != nil {
		s.refuse(w, r, err)
		return false
	}
	return true
}

// crossOrigin refuses a browser request from another site: Sec-Fetch-Site
// other than same-origin or none, or an Origin whose host is not the
// request's Host. Clients that are not browsers send neither header.
func crossOrigin(r *http.Request, origin string) error {
	refused := mnemo.Errorf(mnemo.EFORBIDDEN,
		"cross-origin browser requests are refused: allow the origin with --allowed-origins")
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return refused
	}
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
		return refused
	}
	return nil
}

// hasBody reports whether r carries a body.
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// checkMediaType requires a JSON media type on every request that sends a
// body or names a media type with a method that changes state: browsers
// send text/plain and form bodies across sites without asking first.
func checkMediaType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if !hasBody(r) {
			return nil
		}
	default:
		if ct == "" && !hasBody(r) {
			return nil
		}
	}
	want := []string{"application/json"}
	if r.URL.Path == "/v1/import" {
		want = []string{"application/x-ndjson", "application/jsonl", "application/json"}
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil {
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			err = mnemo.Errorf(mnemo.EMEDIATYPE, "charset %q: request bodies are UTF-8", cs)
		}
	}
	for _, m := range want {
		if err == nil && mt == m {
			return nil
		}
	}
	if ct == "" {
		ct = "none"
	}
	return mnemo.Errorf(mnemo.EMEDIATYPE, "Content-Type %s: send Content-Type: %s", ct, want[0])
}

// refuse answers a request without reading its body: the connection is
// closed after the answer, so a slow or unwanted body holds nothing.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if hasBody(r) {
		w.Header().Set("Connection", "close")
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
	s.writeError(w, r, err)
}
