package push

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/httpjson"
)

// Defaults of a tracker's HTTP client.
const (
	DefaultTrackerTimeout = 30 * time.Second
	DefaultRateWait       = time.Minute
	maxTrackerResponse    = 32 << 20
)

// HTTPOptions configures how a tracker calls its API.
type HTTPOptions struct {
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
	// RateWait is the longest a cycle waits for a rate limit to lift; a
	// longer wait skips the tracker until the next cycle (default 1 min;
	// negative: never wait).
	RateWait time.Duration
	// Client sends the requests (default: http.DefaultClient).
	Client *http.Client
	// Now and Sleep are the clock (defaults: the real one).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// apiClient is the part the GitHub and Plane trackers share: GET a JSON
// document with a timeout, classify failures, honour rate limits, never
// show the token.
type apiClient struct {
	name     string
	base     *url.URL
	api      httpjson.Client
	opt      HTTPOptions
	requests atomic.Int64
}

// newAPIClient returns the client of the API at base; header sets the
// authentication and protocol headers of every request.
func newAPIClient(name, base, token string, opt HTTPOptions, header func(http.Header)) (*apiClient, error) {
	u, ok := httpjson.BaseURL(base)
	if !ok {
		return nil, mnemo.Errorf(mnemo.EINVALID, "%s: %q is not an absolute http(s) URL", name, base)
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = strings.TrimRight(u.Path, "/"), "", "", ""
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTrackerTimeout
	}
	if opt.RateWait == 0 {
		opt.RateWait = DefaultRateWait
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Sleep == nil {
		opt.Sleep = httpjson.Wait
	}
	api := httpjson.Client{HTTP: opt.Client, Secret: token, Limit: maxTrackerResponse, Header: header}
	return &apiClient{name: name, base: u, api: api, opt: opt}, nil
}

// Requests returns the number of HTTP requests made so far.
func (c *apiClient) Requests() int64 { return c.requests.Load() }

// url joins the base URL, path segments (escaped; an empty last segment
// gives a trailing slash) and a query.
func (c *apiClient) url(q url.Values, segments ...string) string {
	var b strings.Builder
	b.WriteString(c.base.String())
	for _, s := range segments {
		b.WriteString("/")
		b.WriteString(url.PathEscape(s))
	}
	if len(q) > 0 {
		b.WriteString("?")
		b.WriteString(q.Encode())
	}
	return b.String()
}

// sameOrigin reports whether a URL the API handed back (a Link header)
// points at the configured host, so the token is never sent elsewhere.
func (c *apiClient) sameOrigin(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == c.base.Scheme && u.Host == c.base.Host
}

// get fetches one JSON document into out and returns the response headers.
// A rate limit within RateWait is waited out once; a longer one is a
// *RateLimitError.
func (c *apiClient) get(ctx context.Context, rawURL string, out any) (http.Header, error) {
	for attempt := 0; ; attempt++ {
		h, wait, err := c.once(ctx, rawURL, out)
		if wait == nil {
			return h, err
		}
		if attempt > 0 || c.opt.RateWait < 0 || wait.d > c.opt.RateWait {
			return nil, &RateLimitError{Tracker: c.name, Reset: c.opt.Now().Add(wait.d)}
		}
		if err := c.opt.Sleep(ctx, wait.d); err != nil {
			return nil, err
		}
	}
}

type rateWait struct{ d time.Duration }

func (c *apiClient) once(ctx context.Context, rawURL string, out any) (http.Header, *rateWait, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	c.requests.Add(1)
	resp, data, err := c.api.Do(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, nil, mnemo.Errorf(mnemo.EINTERNAL, "%s: GET %s: %s", c.name, c.path(rawURL), err)
	}
	if d, limited := c.rateLimited(resp); limited {
		return nil, &rateWait{d}, nil
	}
	if resp.StatusCode != http.StatusOK {
		code := httpjson.Code(resp.StatusCode)
		if resp.StatusCode == http.StatusNotFound {
			code = mnemo.ENOTFOUND
		}
		return nil, nil, mnemo.Errorf(code, "%s: GET %s returned %d: %s", c.name, c.path(rawURL), resp.StatusCode,
			c.api.Redact(httpjson.Message(resp.StatusCode, data)))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, nil, mnemo.Errorf(mnemo.EINTERNAL, "%s: GET %s: malformed response: %v", c.name, c.path(rawURL), err)
	}
	return resp.Header, nil, nil
}

// rateLimited reads GitHub's and Plane's rate-limit signals: 429, or 403
// with x-ratelimit-remaining 0 or a Retry-After. It returns how long to
// wait: Retry-After, else until x-ratelimit-reset (epoch seconds), else a
// minute.
func (c *apiClient) rateLimited(resp *http.Response) (time.Duration, bool) {
	h := resp.Header
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode == http.StatusForbidden &&
		(strings.TrimSpace(h.Get("X-RateLimit-Remaining")) == "0" || h.Get("Retry-After") != ""):
	default:
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second, true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(c.opt.Now()), 0), true
		}
	}
	if v := strings.TrimSpace(h.Get("X-RateLimit-Reset")); v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
			return max(time.Unix(secs, 0).Sub(c.opt.Now()), 0), true
		}
	}
	return time.Minute, true
}

// path is the URL without scheme and host, for error messages.
func (c *apiClient) path(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.RequestURI()
	}
	return "?"
}
