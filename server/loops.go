package server

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/tuning"
)

// The namespace's scoring configuration as versions, and the loops that
// keep its memory good (docs/LOOPS.md). Reading is open to every key of
// the namespace; whatever changes the configuration, runs a loop or
// decides a pending patch needs an admin key. A request acts in the key's
// namespace only, with the key's clearance.

// ConfigApplyRequest is the body of POST /v1/config.
type ConfigApplyRequest struct {
	Config *mnemo.ScoringConfig `json:"config"`           // the whole document
	Force  bool                 `json:"force,omitempty"`  // skip the Mentor's rules (still versioned)
	Reason string               `json:"reason,omitempty"` // recorded with the version
}

// ConfigHistory is the answer of GET /v1/config/history: every version
// (0, the default preset's, first) and the changes of the active one.
type ConfigHistory struct {
	Namespace string                  `json:"namespace"`
	Active    int                     `json:"active"`
	Versions  []*tuning.ConfigVersion `json:"versions"`
	Events    []mnemo.TuningEvent     `json:"events"`
}

// WarmRequest is the body of POST /v1/loops/warm (it may be empty).
type WarmRequest struct {
	Records  int  `json:"records,omitempty"`   // records probed (default 40)
	NoAdjust bool `json:"no_adjust,omitempty"` // measure only: adjust no importance
}

// ColdRequest is the body of POST /v1/loops/cold (it may be empty).
type ColdRequest struct {
	Approval  string  `json:"approval,omitempty"`  // auto (default) or manual
	Threshold float64 `json:"threshold,omitempty"` // default 0.80
}

// PendingList is the answer of GET /v1/loops/pending.
type PendingList struct {
	Namespace string          `json:"namespace"`
	Pending   []loops.Pending `json:"pending"`
}

// MaxLoopRecords bounds the records one warm run over REST probes.
const MaxLoopRecords = 1000

// decodeOptional decodes a body that may be empty (v keeps its zero value).
func (s *Server) decodeOptional(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := readBody(w, r, s.cfg.MaxBody, s.cfg.BodyTimeout)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return err
	}
	return decodeBytes(b, v)
}

// noQuery refuses query parameters other than allowed.
func noQuery(r *http.Request, allowed ...string) error {
	for k := range r.URL.Query() {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			if len(allowed) == 0 {
				return mnemo.Errorf(mnemo.EINVALID, "unknown query parameter %q: this route takes none", k)
			}
			return mnemo.Errorf(mnemo.EINVALID, "unknown query parameter %q (want %s)", k, allowed[0])
		}
	}
	return nil
}

// handleConfig returns a version of the namespace's configuration
// (?version=N; default the active one, 0 the default preset's).
func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	if err := noQuery(r, "version"); err != nil {
		s.writeError(w, r, err)
		return
	}
	v := -1
	if q := r.URL.Query().Get("version"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 0 {
			s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "version %q is not an integer >= 0", q))
			return
		}
		v = n
	}
	cv, err := s.svc.Config(r.Context(), v)
	s.reply(w, r, http.StatusOK, cv, err)
}

// handleConfigHistory returns every version of the namespace's
// configuration.
func (s *Server) handleConfigHistory(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	p := principal(r.Context())
	if err := noQuery(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	t, err := s.svc.Tuning(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := ConfigHistory{Namespace: p.Namespace, Active: t.Active, Events: t.Events}
	if h.Events == nil {
		h.Events = []mnemo.TuningEvent{}
	}
	versions := []int{0}
	for _, v := range t.Versions {
		versions = append(versions, v.Version)
	}
	for _, v := range versions {
		cv, err := s.svc.Config(r.Context(), v)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		h.Versions = append(h.Versions, cv)
	}
	writeJSON(w, http.StatusOK, h)
}

// handleConfigApply makes a document the namespace's active configuration
// (admin keys only; checked by the Mentor's rules unless forced).
func (s *Server) handleConfigApply(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	p, ok := s.admin(w, r, "applying a configuration")
	if !ok {
		return
	}
	var req ConfigApplyRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Config == nil {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "config is required: the whole configuration document (GET /v1/config gives the active one)"))
		return
	}
	if len(req.Reason) > 2000 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "reason is over 2000 bytes"))
		return
	}
	cv, err := loops.New(s.svc).Apply(r.Context(), p.Caller, p.Namespace, *req.Config, loops.ApplyOptions{Force: req.Force, Reason: req.Reason})
	s.reply(w, r, http.StatusCreated, cv, err)
}

// handleConfigRollback makes an earlier version active (admin keys only).
func (s *Server) handleConfigRollback(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	var req RollbackRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Version == nil || *req.Version < 0 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "version is required: a configuration version, or 0 for the default preset's"))
		return
	}
	if _, err := s.svc.Rollback(r.Context(), *req.Version); err != nil {
		s.writeError(w, r, err)
		return
	}
	cv, err := s.svc.Config(r.Context(), -1)
	s.reply(w, r, http.StatusOK, cv, err)
}

// handleLoopWarm runs the warm loop once (admin keys only): probes from
// the records the key may see, the validation score, importance
// adjustments unless no_adjust.
func (s *Server) handleLoopWarm(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	p, ok := s.admin(w, r, "running the warm loop")
	if !ok {
		return
	}
	var req WarmRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Records < 0 || req.Records > MaxLoopRecords {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "records must be within 1..%d (0: the default 40)", MaxLoopRecords))
		return
	}
	l := loops.New(s.svc)
	l.NoAdjust, l.Intern.Model = req.NoAdjust, s.cfg.Chat
	if req.Records > 0 {
		l.Intern.MaxRecords = req.Records
	}
	run, err := l.Warm(r.Context(), p.Caller, p.Namespace)
	s.reply(w, r, http.StatusOK, run, err)
}

// handleLoopCold runs the cold loop once (admin keys only): with approval
// manual an accepted patch waits in GET /v1/loops/pending.
func (s *Server) handleLoopCold(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	p, ok := s.admin(w, r, "running the cold loop")
	if !ok {
		return
	}
	var req ColdRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Approval != "" && req.Approval != "auto" && req.Approval != "manual" {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "approval %q: want auto or manual", req.Approval))
		return
	}
	if req.Threshold < 0 || req.Threshold > 1 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "threshold must be within (0, 1] (0: the default %.2f)", loops.DefaultThreshold))
		return
	}
	l := loops.New(s.svc)
	l.Manual, l.Threshold, l.Intern.Model = req.Approval == "manual", req.Threshold, s.cfg.Chat
	run, err := l.Cold(r.Context(), p.Caller, p.Namespace)
	s.reply(w, r, http.StatusOK, run, err)
}

// handleLoopStatus reports the validation trend, the last trigger and
// patch, and the pending approvals.
func (s *Server) handleLoopStatus(w http.ResponseWriter, r *http.Request) {
	if st, ok := s.loopStatus(w, r); ok {
		writeJSON(w, http.StatusOK, st)
	}
}

// handleLoopPending lists the patches that wait for approval.
func (s *Server) handleLoopPending(w http.ResponseWriter, r *http.Request) {
	if st, ok := s.loopStatus(w, r); ok {
		writeJSON(w, http.StatusOK, PendingList{Namespace: st.Namespace, Pending: st.Pending})
	}
}

// loopStatus reads the caller's namespace's loop status, or answers the
// error and reports false.
func (s *Server) loopStatus(w http.ResponseWriter, r *http.Request) (*loops.Status, bool) {
	deadline(w)
	p := principal(r.Context())
	if err := noQuery(r); err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	st, err := loops.New(s.svc).Status(r.Context(), p.Caller, p.Namespace)
	if err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	return st, true
}

// handleLoopApprove applies a pending patch as a version by the key
// (admin keys only); it must still pass the rules against the version
// active now.
func (s *Server) handleLoopApprove(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	p, ok := s.admin(w, r, "approving a patch")
	if !ok {
		return
	}
	cv, err := loops.New(s.svc).Approve(r.Context(), p.Caller, p.Namespace, r.PathValue("id"))
	s.reply(w, r, http.StatusOK, cv, err)
}

// handleLoopReject drops a pending patch (admin keys only).
func (s *Server) handleLoopReject(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	p, ok := s.admin(w, r, "rejecting a patch")
	if !ok {
		return
	}
	id := r.PathValue("id")
	if err := loops.New(s.svc).Reject(r.Context(), p.Namespace, id); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "rejected": true})
}
