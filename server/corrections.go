package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// correctionRequest parses ?since=&until=&by= (times in RFC 3339 or
// YYYY-MM-DD, by = day, week or month).
func correctionRequest(r *http.Request) (mnemo.CorrectionRequest, error) {
	var req mnemo.CorrectionRequest
	q := r.URL.Query()
	for k := range q {
		switch k {
		case "since", "until", "by":
		default:
			return req, mnemo.Errorf(mnemo.EINVALID, "unknown query parameter %q (want since, until or by)", k)
		}
	}
	for name, dst := range map[string]*time.Time{"since": &req.Since, "until": &req.Until} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		t, err := mnemo.ParseTime(v)
		if err != nil {
			return req, mnemo.Errorf(mnemo.EINVALID, "%s: %s", name, mnemo.ErrorMessage(err))
		}
		*dst = t.UTC()
	}
	req.Bucket = q.Get("by")
	return req, nil
}

// handleCorrections serves the correction signal of the key's namespace.
func (s *Server) handleCorrections(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	req, err := correctionRequest(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rep, err := s.svc.Corrections(r.Context(), req)
	s.reply(w, r, http.StatusOK, rep, err)
}

// handleCorrectionTriples exports the (query, retrieved, missed) triples as
// JSONL. They hold other callers' queries, so an admin key is required.
func (s *Server) handleCorrectionTriples(w http.ResponseWriter, r *http.Request) {
	req, err := correctionRequest(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	n, err := s.svc.CorrectionTriples(r.Context(), req, func(t mnemo.CorrectionTriple) error {
		return enc.Encode(t)
	})

	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Mnemo-Triple-Count", strconv.Itoa(n))
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = buf.WriteTo(w)
}

// TuneRequest is the body of POST /v1/tune.
type TuneRequest struct {
	Since  time.Time `json:"since,omitzero"` // correction triples from (default 90 days before until)
	Until  time.Time `json:"until,omitzero"` // to (default now)
	DryRun bool      `json:"dry_run,omitempty"`
}

// RollbackRequest is the body of POST /v1/tune/rollback.
type RollbackRequest struct {
	Version *int `json:"version"` // 0 = the preset's own weights
}

func (s *Server) admin(w http.ResponseWriter, r *http.Request, what string) (mnemo.Principal, bool) {
	p := principal(r.Context())
	if p.Role != mnemo.RoleAdmin {
		s.writeError(w, r, mnemo.Errorf(mnemo.EFORBIDDEN, "this API key has role %s: %s needs an admin key", p.Role, what))
		return p, false
	}
	return p, true
}

// handleTune searches the namespace's weights against its correction
// triples and applies an accepted setting (admin keys only).
func (s *Server) handleTune(w http.ResponseWriter, r *http.Request) {
	var req TuneRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Tune(r.Context(), mnemo.CorrectionRequest{Since: req.Since, Until: req.Until}, req.DryRun)
	s.reply(w, r, http.StatusOK, res, err)
}

// handleTuning returns the namespace's tuning history.
func (s *Server) handleTuning(w http.ResponseWriter, r *http.Request) {
	t, err := s.svc.Tuning(r.Context())
	s.reply(w, r, http.StatusOK, t, err)
}

// handleRollback makes an earlier tuning version active (admin keys only).
func (s *Server) handleRollback(w http.ResponseWriter, r *http.Request) {
	var req RollbackRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Version == nil || *req.Version < 0 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "version is required: a tuning version, or 0 for the preset's own weights"))
		return
	}
	t, err := s.svc.Rollback(r.Context(), *req.Version)
	s.reply(w, r, http.StatusOK, t, err)
}
