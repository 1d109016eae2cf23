package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/episodes"
)

// searchPage is the number of hits a search page shows; maxSearch bounds
// how deep a search pages.
const (
	searchPage = 20
	maxSearch  = 200
)

func (c *Console) handleSearch(w http.ResponseWriter, r *http.Request, q *req) {
	v := r.URL.Query()
	query := strings.TrimSpace(v.Get("q"))
	d := map[string]any{"Title": "Search", "F": v, "Query": query, "Layers": mnemo.Layers, "Kinds": mnemo.Kinds}
	if query == "" {
		c.render(w, r, http.StatusOK, "search", q, d)
		return
	}
	f, err := listFilter(v)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	off, _ := strconv.Atoi(v.Get("offset"))
	off = max(0, min(off, maxSearch-searchPage))
	res, err := c.svc.Recall(r.Context(), mnemo.RecallRequest{Query: query,
		K: off + searchPage, Filter: f, Preset: v.Get("preset"), Intent: v.Get("intent")})
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	hits := res.Hits
	if off < len(hits) {
		hits = hits[off:]
	} else {
		hits = nil
	}
	if len(res.Hits) == off+searchPage && off+searchPage < maxSearch {
		d["Next"] = withQuery(v, "offset", strconv.Itoa(off+searchPage))
	}
	if off > 0 {
		d["Prev"] = withQuery(v, "offset", strconv.Itoa(max(0, off-searchPage)))
	}
	d["Res"], d["Hits"], d["Offset"] = res, hits, off
	c.render(w, r, http.StatusOK, "search", q, d)
}

func (c *Console) handleDigest(w http.ResponseWriter, r *http.Request, q *req) {
	v := r.URL.Query()
	task := strings.TrimSpace(v.Get("task"))
	scope := v.Get("scope")
	budget := mnemo.DefaultTokenBudget
	if s := strings.TrimSpace(v.Get("budget")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			c.fail(w, r, q, mnemo.Errorf(mnemo.EINVALID, "budget %q is not an integer", s))
			return
		}
		budget = n
	}
	d := map[string]any{"Title": "Digest playground", "Task": task, "Scope": scope, "Budget": budget}
	if task != "" {
		dg, err := c.svc.Digest(r.Context(), mnemo.DigestRequest{Task: task, Scope: scope, Budget: budget})
		if err != nil {
			c.fail(w, r, q, err)
			return
		}
		d["D"] = dg
		if dg.Budget > 0 {
			d["Fill"] = float64(dg.UsedTokens) / float64(dg.Budget)
		}
	}
	c.render(w, r, http.StatusOK, "digest", q, d)
}

// retrievalPage is the number of retrievals a log page shows.
const retrievalPage = 25

func (c *Console) handleRetrievals(w http.ResponseWriter, r *http.Request, q *req) {
	off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	off = max(0, off)
	logs, more, err := c.svc.RecentRetrievals(r.Context(), off, retrievalPage)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	d := map[string]any{"Title": "Retrievals", "Logs": logs, "All": q.seesAllRetrievals()}
	if more {
		d["Next"] = strconv.Itoa(off + retrievalPage)
	}
	if off > 0 {
		d["Prev"] = strconv.Itoa(max(0, off-retrievalPage))
	}
	c.render(w, r, http.StatusOK, "retrievals", q, d)
}

// seesAllRetrievals says, for the page's title, what the service shows:
// admin keys and the local user see every caller's retrievals (as they may
// read the correction triples); others their own.
func (q *req) seesAllRetrievals() bool { return q.p.Role == mnemo.RoleAdmin }

func (c *Console) handleRetrieval(w http.ResponseWriter, r *http.Request, q *req) {
	l, err := c.svc.Retrieval(r.Context(), r.PathValue("id"))
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	d := map[string]any{"Title": "Retrieval " + shortID(l.ID), "L": l}
	// Candidates for the record that should have come: the operator's own
	// search, run only when asked.
	if find := strings.TrimSpace(r.URL.Query().Get("find")); find != "" {
		res, err := c.svc.Recall(r.Context(), mnemo.RecallRequest{Query: find, K: 20})
		if err != nil {
			c.fail(w, r, q, err)
			return
		}
		got := map[string]bool{}
		for _, id := range l.IDs {
			got[id] = true
		}
		var cands []mnemo.RecallHit
		for _, h := range res.Hits {
			if !got[h.ID] {
				cands = append(cands, h)
			}
		}
		d["Find"], d["Candidates"] = find, cands
	}
	c.render(w, r, http.StatusOK, "retrieval", q, d)
}

// handleMissed writes the correction the API would: kind correction,
// naming the retrieval, missing context, and the record that should have
// come as record:<id> provenance.
func (c *Console) handleMissed(w http.ResponseWriter, r *http.Request, q *req) {
	ctx := r.Context()
	l, err := c.svc.Retrieval(ctx, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	missed := strings.TrimSpace(q.form.Get("record"))
	if missed == "" {
		c.fail(w, r, q, mnemo.Errorf(mnemo.EINVALID, "pick the record that should have come"))
		return
	}
	if _, err := c.svc.Get(ctx, missed); err != nil {
		c.fail(w, r, q, err)
		return
	}
	summary := strings.TrimSpace(q.form.Get("summary"))
	if summary == "" {
		summary = fmt.Sprintf("Missing context: record %s should have come for %q", missed, l.Query)
	}
	nr := mnemo.NewRecord{Text: summary, Kind: mnemo.KindCorrection, Source: "operator",
		Component:  strings.TrimSpace(q.form.Get("component")),
		Provenance: []string{mnemo.MissedRef + missed, "operator:" + q.p.Caller.Name},
		Correction: &mnemo.Correction{Category: strings.TrimSpace(q.form.Get("category")), Component: strings.TrimSpace(q.form.Get("component")),
			Outcome: mnemo.OutcomeModified, Summary: summary, RetrievalID: l.ID, MissingContext: true}}
	out, err := c.svc.Remember(ctx, []mnemo.NewRecord{nr}, mnemo.WriteOptions{})
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	c.flash(q, "Correction %s recorded: missing context for retrieval %s.", out[0].ID, shortID(l.ID))
	http.Redirect(w, r, "/corrections", http.StatusSeeOther)
}

// correctionRequest reads ?by=&since=&until= (dates).
func correctionRequest(r *http.Request) (mnemo.CorrectionRequest, error) {
	v := r.URL.Query()
	req := mnemo.CorrectionRequest{Bucket: v.Get("by")}
	if req.Bucket == "" {
		req.Bucket = mnemo.BucketWeek
	}
	for name, dst := range map[string]*time.Time{"since": &req.Since, "until": &req.Until} {
		if s := strings.TrimSpace(v.Get(name)); s != "" {
			t, err := parseWhen(name, s)
			if err != nil {
				return req, err
			}
			*dst = t
		}
	}
	return req, nil
}

func (c *Console) handleCorrections(w http.ResponseWriter, r *http.Request, q *req) {
	creq, err := correctionRequest(r)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	rep, err := c.svc.Corrections(r.Context(), creq)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	c.render(w, r, http.StatusOK, "corrections", q, map[string]any{"Title": "Corrections", "Rep": rep,
		"Chart": correctionChart(rep.Periods, rep.Bucket), "Query": r.URL.RawQuery,
		"ByCategory": sortedCounts(rep.ByCategory), "ByComponent": sortedCounts(rep.ByComponent)})
}

// handleTriples downloads the correction triples as JSONL: admin keys
// only, as on the API (they hold other callers' queries; the service
// refuses the others).
func (c *Console) handleTriples(w http.ResponseWriter, r *http.Request, q *req) {
	creq, err := correctionRequest(r)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	n, err := c.svc.CorrectionTriples(r.Context(), creq, func(t mnemo.CorrectionTriple) error { return enc.Encode(t) })
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="triples-`+q.p.Namespace+`.jsonl"`)
	w.Header().Set("Mnemo-Triple-Count", strconv.Itoa(n))
	_, _ = buf.WriteTo(w)
}

type namedCounts struct {
	Name string
	mnemo.CorrectionCounts
}

func sortedCounts(m map[string]mnemo.CorrectionCounts) []namedCounts {
	out := make([]namedCounts, 0, len(m))
	for k, v := range m {
		if k == "" {
			k = "(none)"
		}
		out = append(out, namedCounts{k, v})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].Corrections > out[j-1].Corrections ||
			out[j].Corrections == out[j-1].Corrections && out[j].Name < out[j-1].Name); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (c *Console) handleHandoff(w http.ResponseWriter, r *http.Request, q *req) {
	v := r.URL.Query()
	d := map[string]any{"Title": "Handoff", "From": v.Get("from"), "Since": v.Get("since"), "Budget": v.Get("budget")}
	if v.Get("go") == "" {
		c.render(w, r, http.StatusOK, "handoff", q, d)
		return
	}
	hreq := mnemo.HandoffRequest{From: strings.TrimSpace(v.Get("from"))}
	if s := strings.TrimSpace(v.Get("since")); s != "" {
		t, err := parseWhen("since", s)
		if err != nil {
			c.fail(w, r, q, err)
			return
		}
		hreq.Since = t
	}
	if s := strings.TrimSpace(v.Get("budget")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			c.fail(w, r, q, mnemo.Errorf(mnemo.EINVALID, "budget %q is not an integer", s))
			return
		}
		hreq.Budget = n
	}
	h, err := c.svc.Handoff(r.Context(), hreq)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	d["H"] = h
	c.render(w, r, http.StatusOK, "handoff", q, d)
}

func (c *Console) handleThreads(w http.ResponseWriter, r *http.Request, q *req) {
	ts, err := c.svc.Threads(r.Context())
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	off = max(0, min(off, len(ts)))
	end := min(off+pageSize, len(ts))
	d := map[string]any{"Title": "Threads", "Threads": ts[off:end], "Total": len(ts)}
	if end < len(ts) {
		d["Next"] = strconv.Itoa(end)
	}
	if off > 0 {
		d["Prev"] = strconv.Itoa(max(0, off-pageSize))
	}
	c.render(w, r, http.StatusOK, "threads", q, d)
}

func (c *Console) handleThread(w http.ResponseWriter, r *http.Request, q *req) {
	name := r.PathValue("name")
	if strings.TrimSpace(name) == "" || len(name) > mnemo.MaxThreadBytes {
		c.fail(w, r, q, mnemo.Errorf(mnemo.EINVALID, "thread must be named, in at most %d bytes", mnemo.MaxThreadBytes))
		return
	}
	after := r.URL.Query().Get("after")
	recs, err := c.svc.List(r.Context(), mnemo.ListOptions{Filter: mnemo.Filter{Thread: name}, Limit: pageSize, After: after})
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	d := map[string]any{"Title": "Thread " + name, "Name": name, "Records": recs}
	if len(recs) == pageSize {
		d["Next"] = recs[len(recs)-1].ID
	}
	if ep, err := c.svc.Get(r.Context(), episodes.EpisodeID(q.p.Namespace, name)); err == nil && ep.DeletedAt == nil {
		d["Episode"] = ep
	}
	c.render(w, r, http.StatusOK, "thread", q, d)
}

func (c *Console) handleHealth(w http.ResponseWriter, r *http.Request, q *req) {
	ctx := r.Context()
	d := map[string]any{"Title": "Health", "Uptime": time.Since(c.start).Round(time.Second).String(), "Go": runtime.Version(),
		"Tokenizer": c.svc.Tokenizer().Name(), "Embedder": c.svc.Embedder().Info()}
	c.mu.Lock()
	d["Sessions"] = len(c.sess)
	c.mu.Unlock()
	if info, err := c.svc.Store().Embedder(ctx); err == nil {
		d["StoreEmbedder"] = info
	} else {
		d["StoreErr"] = "the store does not answer"
	}
	// Record counts cover every clearance: shown to admin keys only, as
	// /metrics is.
	if q.p.Role == mnemo.RoleAdmin {
		if n, err := c.svc.Store().Count(ctx, q.p.Namespace); err == nil {
			d["Count"] = n
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	d["HeapMB"] = m.HeapAlloc >> 20
	if c.cfg.Health != nil {
		d["Jobs"] = c.cfg.Health()
	}
	c.render(w, r, http.StatusOK, "health", q, d)
}
