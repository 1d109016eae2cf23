package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// latencyBuckets are the upper bounds (seconds) of the latency histograms.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	count  uint64
}

func (h *histogram) observe(sec float64) {
	if h.counts == nil {
		h.counts = make([]uint64, len(latencyBuckets))
	}
	for i, b := range latencyBuckets {
		if sec <= b {
			h.counts[i]++
			break
		}
	}
	h.sum += sec
	h.count++
}

// metrics holds request and tool counters and latency histograms, written
// in the Prometheus text exposition format by hand.
type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]uint64 // route, status
	reqLat   map[string]*histogram
	tools    map[[2]string]uint64 // tool, code
	toolLat  map[string]*histogram
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, reqLat: map[string]*histogram{},
		tools: map[[2]string]uint64{}, toolLat: map[string]*histogram{}}
}

func (m *metrics) observeRequest(route string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{route, strconv.Itoa(status)}]++
	h := m.reqLat[route]
	if h == nil {
		h = &histogram{}
		m.reqLat[route] = h
	}
	h.observe(d.Seconds())
}

func (m *metrics) observeTool(tool string, d time.Duration, code string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools[[2]string{tool, code}]++
	h := m.toolLat[tool]
	if h == nil {
		h = &histogram{}
		m.toolLat[tool] = h
	}
	h.observe(d.Seconds())
}

// handleMetrics serves the metrics. With keys it needs a key of role
// metrics or admin; an admin key sees the record counts of its own
// namespaces only. Counts come from a cache (MetricsTTL), so scrapes cost
// the store nothing most of the time.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	p, k, err := s.authenticateRequest(r, false)
	if err == nil && !p.Role.CanReadMetrics() {
		err = mnemo.Errorf(mnemo.EFORBIDDEN, "this API key has role %s: /metrics needs role metrics or admin", p.Role)
	}
	if err != nil {
		if mnemo.ErrorCode(err) == mnemo.EUNAUTHORIZED {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
		}
		s.refuse(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	counts, err := s.counts.get(ctx, s)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	s.metrics.write(w)
	fmt.Fprintln(w, "# HELP mnemo_records Live records per namespace.")
	fmt.Fprintln(w, "# TYPE mnemo_records gauge")
	total := 0
	for _, c := range counts {
		if k != nil && k.Role != mnemo.RoleMetrics && !k.Allows(c.ns) {
			continue
		}
		total += c.n
		fmt.Fprintf(w, "mnemo_records{namespace=%s} %d\n", quote(c.ns), c.n)
	}
	fmt.Fprintln(w, "# HELP mnemo_records_total_live Live records in the namespaces shown.")
	fmt.Fprintln(w, "# TYPE mnemo_records_total_live gauge")
	fmt.Fprintf(w, "mnemo_records_total_live %d\n", total)
	if s.cfg.LoopMetrics != nil {
		lm := s.cfg.LoopMetrics()
		nss := make([]string, 0, len(lm))
		for ns := range lm {
			if k == nil || k.Role == mnemo.RoleMetrics || k.Allows(ns) {
				nss = append(nss, ns)
			}
		}
		slices.Sort(nss)
		fmt.Fprintln(w, "# HELP mnemo_loop_runs_total Scheduled loop runs per namespace (serve --loops).")
		fmt.Fprintln(w, "# TYPE mnemo_loop_runs_total counter")
		for _, ns := range nss {
			fmt.Fprintf(w, "mnemo_loop_runs_total{namespace=%s,loop=\"warm\"} %d\n", quote(ns), lm[ns].WarmRuns)
			fmt.Fprintf(w, "mnemo_loop_runs_total{namespace=%s,loop=\"cold\"} %d\n", quote(ns), lm[ns].ColdRuns)
		}
		fmt.Fprintln(w, "# HELP mnemo_loop_failures_total Failed scheduled loop runs per namespace.")
		fmt.Fprintln(w, "# TYPE mnemo_loop_failures_total counter")
		for _, ns := range nss {
			fmt.Fprintf(w, "mnemo_loop_failures_total{namespace=%s} %d\n", quote(ns), lm[ns].Failures)
		}
		fmt.Fprintln(w, "# HELP mnemo_loop_accepted_patches_total Configuration patches the Mentor accepted per namespace.")
		fmt.Fprintln(w, "# TYPE mnemo_loop_accepted_patches_total counter")
		for _, ns := range nss {
			fmt.Fprintf(w, "mnemo_loop_accepted_patches_total{namespace=%s} %d\n", quote(ns), lm[ns].Accepted)
		}
		fmt.Fprintln(w, "# HELP mnemo_loop_validation The validation score of the last warm run per namespace.")
		fmt.Fprintln(w, "# TYPE mnemo_loop_validation gauge")
		for _, ns := range nss {
			fmt.Fprintf(w, "mnemo_loop_validation{namespace=%s} %g\n", quote(ns), lm[ns].Validation)
		}
	}
}

type nsCount struct {
	ns string
	n  int
}

// countCache holds the per-namespace record counts of /metrics.
type countCache struct {
	mu     sync.Mutex
	at     time.Time
	counts []nsCount
}

// get returns the counts, recounting when they are older than MetricsTTL;
// concurrent scrapes share one recount.
func (c *countCache) get(ctx context.Context, s *Server) ([]nsCount, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.cfg.Now()
	if c.counts != nil && now.Sub(c.at) < s.cfg.MetricsTTL && !now.Before(c.at) {
		return c.counts, nil
	}
	st := s.svc.Store()
	nss, err := st.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("metrics: namespaces: %w", err)
	}
	out := make([]nsCount, 0, len(nss))
	for _, ns := range nss {
		n, err := st.Count(ctx, ns)
		if err != nil {
			return nil, fmt.Errorf("metrics: count %s: %w", ns, err)
		}
		out = append(out, nsCount{ns, n})
	}
	c.counts, c.at = out, now
	return out, nil
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintln(w, "# HELP mnemo_http_requests_total HTTP requests by route and status.")
	fmt.Fprintln(w, "# TYPE mnemo_http_requests_total counter")
	for _, k := range sortedKeys(m.requests) {
		method, path := splitRoute(k[0])
		fmt.Fprintf(w, "mnemo_http_requests_total{method=%s,route=%s,status=%s} %d\n", quote(method), quote(path), quote(k[1]), m.requests[k])
	}
	writeHistograms(w, "mnemo_http_request_duration_seconds", "HTTP request latency by route.", m.reqLat, func(route string) string {
		method, path := splitRoute(route)
		return "method=" + quote(method) + ",route=" + quote(path)
	})
	fmt.Fprintln(w, "# HELP mnemo_mcp_tool_calls_total MCP tool calls by tool and result code.")
	fmt.Fprintln(w, "# TYPE mnemo_mcp_tool_calls_total counter")
	for _, k := range sortedKeys(m.tools) {
		fmt.Fprintf(w, "mnemo_mcp_tool_calls_total{tool=%s,code=%s} %d\n", quote(k[0]), quote(k[1]), m.tools[k])
	}
	writeHistograms(w, "mnemo_mcp_tool_duration_seconds", "MCP tool call latency by tool.", m.toolLat, func(tool string) string {
		return "tool=" + quote(tool)
	})
}

func writeHistograms(w io.Writer, name, help string, hs map[string]*histogram, labels func(string) string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	keys := make([]string, 0, len(hs))
	for k := range hs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h, l := hs[k], labels(k)
		var cum uint64
		for i, b := range latencyBuckets {
			cum += h.counts[i]
			fmt.Fprintf(w, "%s_bucket{%s,le=\"%s\"} %d\n", name, l, strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		fmt.Fprintf(w, "%s_bucket{%s,le=\"+Inf\"} %d\n", name, l, h.count)
		fmt.Fprintf(w, "%s_sum{%s} %s\n", name, l, strconv.FormatFloat(h.sum, 'g', -1, 64))
		fmt.Fprintf(w, "%s_count{%s} %d\n", name, l, h.count)
	}
}

func sortedKeys(m map[[2]string]uint64) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

func splitRoute(route string) (method, path string) {
	if m, p, ok := strings.Cut(route, " "); ok {
		return m, p
	}
	return "", route
}

// quote escapes a Prometheus label value.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
