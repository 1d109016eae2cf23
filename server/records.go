package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// RememberRequest is the body of POST /v1/records: a new record plus write options.
type RememberRequest struct {
	mnemo.NewRecord
	NoDedup bool `json:"no_dedup,omitempty"` // store even if a near-duplicate exists
}

// BatchRequest is the body of POST /v1/records/batch.
type BatchRequest struct {
	Records []mnemo.NewRecord `json:"records"`
	NoDedup bool              `json:"no_dedup,omitempty"`
}

// BatchResponse is the answer of POST /v1/records/batch.
type BatchResponse struct {
	IDs    []string `json:"ids"`
	Merged []bool   `json:"merged"`
}

// ListResponse is the answer of GET /v1/records.
type ListResponse struct {
	Records []*mnemo.Record `json:"records"`
	// Next is the cursor of the next page (pass it as ?after=), "" on the last page.
	Next string `json:"next,omitempty"`
}

// MaxBatch bounds the records of one batch write.
const MaxBatch = 1000

func (s *Server) routesV1() {
	s.handle("POST /v1/records", true, s.handleRemember)
	s.handle("POST /v1/records/batch", true, s.handleBatch)
	s.handle("GET /v1/records", true, s.handleList)
	s.handle("GET /v1/records/{id}", true, s.handleGet)
	s.handle("PATCH /v1/records/{id}", true, s.handleUpdate)
	s.handle("DELETE /v1/records/{id}", true, s.handleForget)
	s.handle("POST /v1/records/{id}/restore", true, s.handleRestore)
	s.handle("GET /v1/records/{id}/history", true, s.handleHistory)
	s.handle("POST /v1/recall", true, s.handleRecall)
	s.handle("POST /v1/digest", true, s.handleDigest)
	s.handle("GET /v1/export", true, s.handleExport)
	s.handle("POST /v1/import", true, s.handleImport)
	s.handle("GET /v1/corrections", true, s.handleCorrections)
	s.handle("GET /v1/corrections/triples", true, s.handleCorrectionTriples)
	s.handle("POST /v1/expire", true, s.handleExpire)
	s.handle("POST /v1/purge", true, s.handlePurge)
	s.handle("POST /v1/consolidate", true, s.handleConsolidate)
	s.handle("POST /v1/handoff", true, s.handleHandoff)
	s.handle("POST /v1/tune", true, s.handleTune)
	s.handle("GET /v1/tune", true, s.handleTuning)
	s.handle("POST /v1/tune/rollback", true, s.handleRollback)
	s.handle("POST /v1/episodes", true, s.handleEpisode)
	s.handle("GET /v1/threads", true, s.handleThreads)
	s.handle("GET /v1/principles", true, s.handlePrinciples)
}

// readBody reads a body up to limit bytes within timeout and checks that it
// is UTF-8; once it is read, the connection has no read deadline left.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(timeout))
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, mnemo.Errorf(mnemo.ETOOLARGE, "request body is over the limit of %d bytes", limit)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, mnemo.Errorf(mnemo.EINVALID, "the request body did not arrive within %s", timeout)
		}
		return nil, mnemo.Errorf(mnemo.EINVALID, "cannot read the request body")
	}
	_ = rc.SetReadDeadline(time.Time{})
	if !utf8.Valid(b) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "request body is not valid UTF-8")
	}
	return b, nil
}

// decode reads a strict JSON body into v: unknown fields, trailing data,
// invalid UTF-8 and oversized bodies are errors.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := readBody(w, r, s.cfg.MaxBody, s.cfg.BodyTimeout)
	if err != nil {
		return err
	}
	return decodeBytes(b, v)
}

// decodeBytes reads one strict JSON value from b into v.
func decodeBytes(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeErr(err)
	}
	if dec.More() {
		return mnemo.Errorf(mnemo.EINVALID, "request body holds more than one JSON value")
	}
	return nil
}

// lazyBody reads a request body whole (readBody) on its first Read: the
// service checks the caller's role before it reads, so a refused request
// never has its body read.
type lazyBody struct {
	read func() ([]byte, error)
	r    *bytes.Reader
	err  error
}

func (l *lazyBody) Read(p []byte) (int, error) {
	if err := l.load(); err != nil {
		return 0, err
	}
	return l.r.Read(p)
}

// A lazyBody seeks, so that the import reads the body, held in memory, a
// second time without copying it to a file.
var _ io.ReadSeeker = (*lazyBody)(nil)

// Seek loads the body first, as Read does.
func (l *lazyBody) Seek(offset int64, whence int) (int64, error) {
	if err := l.load(); err != nil {
		return 0, err
	}
	return l.r.Seek(offset, whence)
}

func (l *lazyBody) load() error {
	if l.r == nil && l.err == nil {
		b, err := l.read()
		l.r, l.err = bytes.NewReader(b), err
	}
	return l.err
}

// deadline bounds writing a non-streaming response.
func deadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(60 * time.Second))
}

func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	var req RememberRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.svc.Remember(r.Context(), []mnemo.NewRecord{req.NewRecord}, mnemo.WriteOptions{Dedup: !req.NoDedup})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/records/"+out[0].ID)
	writeJSON(w, http.StatusCreated, out[0])
}

func (s *Server) handleBatch(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	var req BatchRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(req.Records) == 0 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "records is empty"))
		return
	}
	if len(req.Records) > MaxBatch {
		s.writeError(w, r, mnemo.Errorf(mnemo.ETOOLARGE, "%d records in one batch, over the limit of %d", len(req.Records), MaxBatch))
		return
	}
	out, err := s.svc.Remember(r.Context(), req.Records, mnemo.WriteOptions{Dedup: !req.NoDedup})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	resp := BatchResponse{IDs: make([]string, len(out)), Merged: make([]bool, len(out))}
	for i, o := range out {
		resp.IDs[i], resp.Merged[i] = o.ID, o.Merged
	}
	writeJSON(w, http.StatusCreated, resp)
}

// listOptions parses GET /v1/records query parameters: the filter keys
// (either spelling, see mnemo.Filter.Set; list keys repeat), limit, after
// and all.
func listOptions(r *http.Request) (mnemo.ListOptions, error) {
	q := r.URL.Query()
	var opt mnemo.ListOptions
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "limit", "after", "all":
			continue
		}
		if _, ok := mnemo.CanonicalFilterKey(k); !ok || k != strings.ToLower(k) {
			return opt, mnemo.Errorf(mnemo.EINVALID, "unknown query parameter %q (want %s, limit, after or all)", k, strings.Join(mnemo.FilterKeys, ", "))
		}
		vs := q[k]
		switch c, _ := mnemo.CanonicalFilterKey(k); c {
		case "layers", "kinds", "tags":
		default:
			vs = vs[:1] // a repeated single-valued key: the first one counts
		}
		for _, v := range vs {
			if v == "" {
				continue
			}
			if err := opt.Filter.Set(k, v); err != nil {
				return opt, err
			}
		}
	}
	opt.After = q.Get("after")
	opt.Limit = 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return opt, mnemo.Errorf(mnemo.EINVALID, "limit %q is not an integer", v)
		}
		opt.Limit = n
	}
	if v := q.Get("all"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return opt, mnemo.Errorf(mnemo.EINVALID, "all %q is not a boolean", v)
		}
		opt.IncludeDeleted, opt.IncludeHistory = b, b
	}
	return opt, nil
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	opt, err := listOptions(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	recs, err := s.svc.List(r.Context(), opt)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	resp := ListResponse{Records: recs}
	if resp.Records == nil {
		resp.Records = []*mnemo.Record{}
	}
	limit := opt.Limit
	if limit == 0 {
		limit = 100
	}
	if len(recs) == limit {
		resp.Next = recs[len(recs)-1].ID
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	rec, err := s.svc.Get(r.Context(), r.PathValue("id"))
	s.reply(w, r, http.StatusOK, rec, err)
}

func (s *Server) handleUpdate(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	var patch mnemo.RecordPatch
	if err := s.decode(w, r, &patch); err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, err := s.svc.Update(r.Context(), r.PathValue("id"), patch)
	s.reply(w, r, http.StatusOK, rec, err)
}

func (s *Server) handleForget(w http.ResponseWriter, r *http.Request) {
	s.lifecycle(w, r, s.svc.Forget)
}

func (s *Server) handleRestore(w http.ResponseWriter, r *http.Request) {
	s.lifecycle(w, r, s.svc.Restore)
}

func (s *Server) lifecycle(w http.ResponseWriter, r *http.Request,
	op func(context.Context, string) (*mnemo.Record, error)) {
	deadline(w)
	rec, err := op(r.Context(), r.PathValue("id"))
	s.reply(w, r, http.StatusOK, rec, err)
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	revs, err := s.svc.History(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if revs == nil {
		revs = []mnemo.Revision{}
	}
	writeJSON(w, http.StatusOK, revs)
}

func (s *Server) handleRecall(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	var req mnemo.RecallRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Recall(r.Context(), req)
	s.reply(w, r, http.StatusOK, res, err)
}

func (s *Server) handleDigest(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	var req mnemo.DigestRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	d, err := s.svc.Digest(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The digest encodes itself (same bytes as writeJSON, about 2.7 times
	// faster): it is the largest answer on the hot path.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(d.AppendJSON(nil), '\n'))
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	if len(r.URL.Query()) > 0 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "export takes no query parameters"))
		return
	}
	release, ok := s.exports.acquire(exporter(p, r))
	if !ok {
		w.Header().Set("Retry-After", "5")
		s.writeError(w, r, mnemo.Errorf(mnemo.ERATELIMIT,
			"%d exports of this key are running: retry when one has finished", s.cfg.MaxExports))
		return
	}
	defer release()
	s.streamExport(w, r, p)
}

func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	body := &lazyBody{read: func() ([]byte, error) { return readBody(w, r, s.cfg.MaxImportBody, s.cfg.ImportTimeout) }}
	res, err := s.svc.Import(r.Context(), body, nil)
	s.reply(w, r, http.StatusOK, res, err)
}
