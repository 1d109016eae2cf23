// Package client is a Go client of mnemo's REST API. A Client is a
// mnemo.Service: it speaks the service's types (mnemo.Record,
// mnemo.RecallResult, mnemo.Digest, ...) and turns error responses back
// into *mnemo.Error with the server's code.
//
// The server acts for the caller of the client's API key, whatever caller
// a context carries. A call acts in the namespace its context carries
// (mnemo.WithNamespace) when that is not empty, else in the client's own
// (Options.Namespace, WithNamespace); with neither the server chooses (the
// key's only namespace, else the default).
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.Service = (*Client)(nil)

// Client calls one mnemo server. It is safe for concurrent use.
type Client struct {
	base      string
	apiKey    string
	namespace string
	hc        *http.Client
}

// Options configures New.
type Options struct {
	APIKey    string       // sent as Authorization: Bearer
	Namespace string       // sent as Mnemo-Namespace; "" lets the server choose
	HTTP      *http.Client // default: a client with a 5 minute timeout
}

// New returns a client of the server at baseURL (e.g. http://127.0.0.1:7077).
func New(baseURL string, opt Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "server URL %q is not http(s)://HOST[:PORT]", baseURL)
	}
	hc := opt.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Minute}
	}
	return &Client{base: u.String(), apiKey: opt.APIKey, namespace: opt.Namespace, hc: hc}, nil
}

// WithNamespace returns a copy of c that acts in namespace ns.
func (c *Client) WithNamespace(ns string) *Client {
	cc := *c
	cc.namespace = ns
	return &cc
}

// namespaceOf is the namespace a call acts in: the context's, else the
// client's ("" lets the server choose).
func (c *Client) namespaceOf(ctx context.Context) string {
	if ns, _ := mnemo.NamespaceFrom(ctx); ns != "" {
		return ns
	}
	return c.namespace
}

// do sends a request and decodes a JSON answer into out (when non-nil).
func (c *Client) do(ctx context.Context, method, path string, in any, out any) error {
	var body io.Reader
	ctype := ""
	switch v := in.(type) {
	case nil:
	case io.Reader:
		body, ctype = v, "application/x-ndjson"
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("client: encode: %w", err)
		}
		body, ctype = bytes.NewReader(b), "application/json"
	}
	resp, err := c.send(ctx, method, path, body, ctype)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("client: %s %s: decode: %w", method, path, err)
	}
	return nil
}

// send performs a request and returns the response of a 2xx status; any
// other status becomes an error carrying the server's code.
func (c *Client) send(ctx context.Context, method, path string, body io.Reader, ctype string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	if ns := c.namespaceOf(ctx); ns != "" {
		req.Header.Set("Mnemo-Namespace", ns)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: cannot reach the mnemo server at %s: %w", c.base, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, responseError(resp)
}

// responseError decodes {"error":{"code","message"}} into a *mnemo.Error.
func responseError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var eb struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &eb); err == nil && eb.Error.Code != "" {
		return &mnemo.Error{Code: eb.Error.Code, Message: eb.Error.Message}
	}
	return mnemo.Errorf(mnemo.HTTPCode(resp.StatusCode), "server answered %s", resp.Status)
}

// Remember stores records (one request per call: POST /v1/records for one
// record, /v1/records/batch for several).
func (c *Client) Remember(ctx context.Context, in []mnemo.NewRecord, opt mnemo.WriteOptions) ([]mnemo.Written, error) {
	if len(in) == 1 {
		var w mnemo.Written
		req := struct {
			mnemo.NewRecord
			NoDedup bool `json:"no_dedup,omitempty"`
		}{in[0], !opt.Dedup}
		if err := c.do(ctx, "POST", "/v1/records", req, &w); err != nil {
			return nil, err
		}
		return []mnemo.Written{w}, nil
	}
	var resp struct {
		IDs    []string `json:"ids"`
		Merged []bool   `json:"merged"`
	}
	req := struct {
		Records []mnemo.NewRecord `json:"records"`
		NoDedup bool              `json:"no_dedup,omitempty"`
	}{in, !opt.Dedup}
	if err := c.do(ctx, "POST", "/v1/records/batch", req, &resp); err != nil {
		return nil, err
	}
	out := make([]mnemo.Written, len(resp.IDs))
	for i, id := range resp.IDs {
		out[i] = mnemo.Written{Record: &mnemo.Record{ID: id}, Merged: i < len(resp.Merged) && resp.Merged[i]}
	}
	return out, nil
}

// Get returns one record.
func (c *Client) Get(ctx context.Context, id string) (*mnemo.Record, error) {
	var r mnemo.Record
	return &r, c.do(ctx, "GET", "/v1/records/"+url.PathEscape(id), nil, &r)
}

// Update changes fields of a record.
func (c *Client) Update(ctx context.Context, id string, p mnemo.RecordPatch) (*mnemo.Record, error) {
	var r mnemo.Record
	return &r, c.do(ctx, "PATCH", "/v1/records/"+url.PathEscape(id), p, &r)
}

// Forget forgets a record (restorable).
func (c *Client) Forget(ctx context.Context, id string) (*mnemo.Record, error) {
	var r mnemo.Record
	return &r, c.do(ctx, "DELETE", "/v1/records/"+url.PathEscape(id), nil, &r)
}

// Restore restores a forgotten record.
func (c *Client) Restore(ctx context.Context, id string) (*mnemo.Record, error) {
	var r mnemo.Record
	return &r, c.do(ctx, "POST", "/v1/records/"+url.PathEscape(id)+"/restore", nil, &r)
}

// History returns a record's revisions, oldest first.
func (c *Client) History(ctx context.Context, id string) ([]mnemo.Revision, error) {
	var revs []mnemo.Revision
	return revs, c.do(ctx, "GET", "/v1/records/"+url.PathEscape(id)+"/history", nil, &revs)
}

// List returns one page of records, newest first. Filter fields that the
// REST route does not take (time range, criticality, outcome, as_of) are an
// EINVALID error rather than silently ignored.
func (c *Client) List(ctx context.Context, opt mnemo.ListOptions) ([]*mnemo.Record, error) {
	f := opt.Filter
	q := url.Values{}
	for name, t := range map[string]*time.Time{"since": f.Since, "until": f.Until, "as_of": f.AsOf, "as_known_at": f.AsKnownAt} {
		if t != nil {
			q.Set(name, t.UTC().Format(time.RFC3339Nano))
		}
	}
	if f.MinCriticality != 0 {
		q.Set("criticality", strconv.FormatFloat(f.MinCriticality, 'g', -1, 64))
	}
	if f.Outcome != "" {
		q.Set("outcome", f.Outcome)
	}
	for _, l := range f.Layers {
		q.Add("layer", string(l))
	}
	for _, k := range f.Kinds {
		q.Add("kind", string(k))
	}
	for _, t := range f.Tags {
		q.Add("tag", t)
	}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("scope", f.ScopePrefix)
	set("component", f.Component)
	set("mission", f.Mission)
	set("thread", f.Thread)
	set("operator", f.Operator)
	set("after", opt.After)
	if opt.Limit != 0 {
		q.Set("limit", strconv.Itoa(opt.Limit))
	}
	if opt.IncludeDeleted || opt.IncludeHistory {
		q.Set("all", "true")
	}
	path := "/v1/records"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var resp struct {
		Records []*mnemo.Record `json:"records"`
	}
	if err := c.do(ctx, "GET", path, nil, &resp); err != nil {
		return nil, err
	}
	return resp.Records, nil
}

// Recall ranks the k best records for a query.
func (c *Client) Recall(ctx context.Context, req mnemo.RecallRequest) (*mnemo.RecallResult, error) {
	var res mnemo.RecallResult
	return &res, c.do(ctx, "POST", "/v1/recall", req, &res)
}

// Digest answers workflow_memory_query.
func (c *Client) Digest(ctx context.Context, req mnemo.DigestRequest) (*mnemo.Digest, error) {
	var d mnemo.Digest
	return &d, c.do(ctx, "POST", "/v1/digest", req, &d)
}

// Export copies the namespace's JSONL export to w and returns the number of records.
func (c *Client) Export(ctx context.Context, w io.Writer) (int, error) {
	resp, err := c.send(ctx, "GET", "/v1/export", nil, "")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	cw := &lineCounter{w: w}
	if _, err := io.Copy(cw, resp.Body); err != nil {
		return cw.n, fmt.Errorf("client: export: %w", err)
	}
	// The server streams the export and sends its count as a trailer: a
	// count that differs means the export was cut.
	if want := resp.Trailer.Get("Mnemo-Record-Count"); want != "" && want != strconv.Itoa(cw.n) {
		return cw.n, fmt.Errorf("client: export: %d records received, the server sent %s", cw.n, want)
	}
	return cw.n, nil
}

// Import sends JSONL records to the server, which writes them all or
// none; progress, when set, is called once, when they are written.
func (c *Client) Import(ctx context.Context, r io.Reader, progress func(done, total int)) (mnemo.ImportResult, error) {
	var res mnemo.ImportResult
	err := c.do(ctx, "POST", "/v1/import", r, &res)
	if err == nil && progress != nil && res.Read > 0 {
		progress(res.Read, res.Read)
	}
	return res, err
}

// correctionQuery encodes a correction request as query parameters.
func correctionQuery(req mnemo.CorrectionRequest) string {
	q := url.Values{}
	if !req.Since.IsZero() {
		q.Set("since", req.Since.UTC().Format(time.RFC3339Nano))
	}
	if !req.Until.IsZero() {
		q.Set("until", req.Until.UTC().Format(time.RFC3339Nano))
	}
	if req.Bucket != "" {
		q.Set("by", req.Bucket)
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Corrections returns the correction signal of the namespace.
func (c *Client) Corrections(ctx context.Context, req mnemo.CorrectionRequest) (*mnemo.CorrectionReport, error) {
	var rep mnemo.CorrectionReport
	return &rep, c.do(ctx, "GET", "/v1/corrections"+correctionQuery(req), nil, &rep)
}

// CorrectionTriples calls fn with each of the namespace's correction
// triples, as the server streams them (an admin key is needed), and
// returns how many there were.
func (c *Client) CorrectionTriples(ctx context.Context, req mnemo.CorrectionRequest, fn func(mnemo.CorrectionTriple) error) (int, error) {
	resp, err := c.send(ctx, "GET", "/v1/corrections/triples"+correctionQuery(req), nil, "")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	n := 0
	for {
		var t mnemo.CorrectionTriple
		if err := dec.Decode(&t); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, fmt.Errorf("client: correction triples: %w", err)
		}
		if err := fn(t); err != nil {
			return n, err
		}
		n++
	}
}

// Expire archives the namespace's unimportant, unused records (an admin
// key is needed); opt.Idle is sent in days.
func (c *Client) Expire(ctx context.Context, opt mnemo.ExpireOptions) (*mnemo.ExpireResult, error) {
	body := map[string]any{"dry_run": opt.DryRun}
	if opt.MaxImportance != 0 {
		body["max_importance"] = opt.MaxImportance
	}
	if opt.Idle != 0 {
		body["idle_days"] = opt.Idle.Hours() / 24
	}
	var res mnemo.ExpireResult
	return &res, c.do(ctx, "POST", "/v1/expire", body, &res)
}

// Purge hard-deletes the namespace's records forgotten or archived more
// than olderThan ago (an admin key is needed).
func (c *Client) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	var res struct {
		Purged int `json:"purged"`
	}
	err := c.do(ctx, "POST", "/v1/purge", map[string]any{"older_than_days": olderThan.Hours() / 24}, &res)
	return res.Purged, err
}

// Consolidate merges the namespace's near-duplicates by the write path's
// rules, reversibly (an admin key is needed); dryRun changes nothing.
func (c *Client) Consolidate(ctx context.Context, dryRun bool) (mnemo.ConsolidateResult, error) {
	var res mnemo.ConsolidateResult
	return res, c.do(ctx, "POST", "/v1/consolidate", map[string]bool{"dry_run": dryRun}, &res)
}

// Handoff returns the brief for an incoming operator of the namespace.
func (c *Client) Handoff(ctx context.Context, req mnemo.HandoffRequest) (*mnemo.Handoff, error) {
	var h mnemo.Handoff
	return &h, c.do(ctx, "POST", "/v1/handoff", req, &h)
}

// Tune searches the namespace's weights against its correction triples
// (an admin key is needed).
func (c *Client) Tune(ctx context.Context, req mnemo.CorrectionRequest, dryRun bool) (*mnemo.TuneResult, error) {
	body := map[string]any{"dry_run": dryRun}
	if !req.Since.IsZero() {
		body["since"] = req.Since
	}
	if !req.Until.IsZero() {
		body["until"] = req.Until
	}
	var res mnemo.TuneResult
	return &res, c.do(ctx, "POST", "/v1/tune", body, &res)
}

// Tuning returns the namespace's tuning history.
func (c *Client) Tuning(ctx context.Context) (*mnemo.Tuning, error) {
	var t mnemo.Tuning
	return &t, c.do(ctx, "GET", "/v1/tune", nil, &t)
}

// Rollback makes an earlier tuning version active (0: the preset's own
// weights; an admin key is needed).
func (c *Client) Rollback(ctx context.Context, version int) (*mnemo.Tuning, error) {
	var t mnemo.Tuning
	return &t, c.do(ctx, "POST", "/v1/tune/rollback", map[string]int{"version": version}, &t)
}

// Summarize writes (or rewrites) the episode summarising a thread.
func (c *Client) Summarize(ctx context.Context, thread string, budget int) (*mnemo.EpisodeResult, error) {
	var res mnemo.EpisodeResult
	return &res, c.do(ctx, "POST", "/v1/episodes", map[string]any{"thread": thread, "budget": budget}, &res)
}

// Threads lists the namespace's threads, most recently active first.
func (c *Client) Threads(ctx context.Context) ([]mnemo.ThreadInfo, error) {
	var ts []mnemo.ThreadInfo
	return ts, c.do(ctx, "GET", "/v1/threads", nil, &ts)
}

// Principles lists the principle registry: each principle the caller may
// see with the decisions that apply it.
func (c *Client) Principles(ctx context.Context) ([]mnemo.Principle, error) {
	var ps []mnemo.Principle
	return ps, c.do(ctx, "GET", "/v1/principles", nil, &ps)
}

// Health reports whether the server answers /readyz.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, "GET", "/readyz", nil, nil)
}

type lineCounter struct {
	w io.Writer
	n int
}

func (l *lineCounter) Write(b []byte) (int, error) {
	l.n += bytes.Count(b, []byte{'\n'})
	return l.w.Write(b)
}
