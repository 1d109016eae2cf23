package server

import (
	"net/http"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// ExpireRequest is the body of POST /v1/expire.
type ExpireRequest struct {
	MaxImportance float64 `json:"max_importance,omitempty"` // default 0.1
	IdleDays      float64 `json:"idle_days,omitempty"`      // default 120
	DryRun        bool    `json:"dry_run,omitempty"`
}

// handleExpire archives the namespace's unimportant, unused records (admin
// keys only: it changes records the key did not write).
func (s *Server) handleExpire(w http.ResponseWriter, r *http.Request) {
	var req ExpireRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	idle, err := days("idle_days", req.IdleDays, true)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Expire(r.Context(), mnemo.ExpireOptions{MaxImportance: req.MaxImportance,
		Idle: idle, DryRun: req.DryRun})

	s.reply(w, r, http.StatusOK, res, err)
}

// PurgeRequest is the body of POST /v1/purge.
type PurgeRequest struct {
	OlderThanDays float64 `json:"older_than_days"` // required, at least 1
}

// handlePurge hard-deletes the namespace's records forgotten or archived
// more than older_than_days ago (admin keys only: they cannot be restored).
func (s *Server) handlePurge(w http.ResponseWriter, r *http.Request) {
	var req PurgeRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	keep, err := days("older_than_days", req.OlderThanDays, false)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	n, err := s.svc.Purge(r.Context(), keep)
	s.reply(w, r, http.StatusOK, map[string]int{"purged": n}, err)
}

// handleHandoff serves the brief for an incoming operator.
func (s *Server) handleHandoff(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	var req mnemo.HandoffRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	h, err := s.svc.Handoff(r.Context(), req)
	s.reply(w, r, http.StatusOK, h, err)
}

// EpisodeRequest is the body of POST /v1/episodes.
type EpisodeRequest struct {
	Thread string `json:"thread"`
	Budget int    `json:"budget,omitempty"` // tokens, default 200
}

// handleEpisode writes (or rewrites) the episode summarising a thread.
func (s *Server) handleEpisode(w http.ResponseWriter, r *http.Request) {
	var req EpisodeRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Summarize(r.Context(), req.Thread, req.Budget)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	writeJSON(w, status, res)
}

// handleThreads lists the namespace's threads.
func (s *Server) handleThreads(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	if len(r.URL.Query()) > 0 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "threads takes no query parameters"))
		return
	}
	ts, err := s.svc.Threads(r.Context())
	s.reply(w, r, http.StatusOK, ts, err)
}

// handlePrinciples lists the principle registry: each principle with the
// decisions that apply it.
func (s *Server) handlePrinciples(w http.ResponseWriter, r *http.Request) {
	deadline(w)
	if len(r.URL.Query()) > 0 {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "principles takes no query parameters"))
		return
	}
	ps, err := s.svc.Principles(r.Context())
	s.reply(w, r, http.StatusOK, ps, err)
}

// days converts a number of days from a request body into a duration: 1 to
// 36,500 days, or 0 (the engine's default) when zeroOK.
func days(name string, d float64, zeroOK bool) (time.Duration, error) {
	if zeroOK && d == 0 {
		return 0, nil
	}
	if !(d >= 1 && d <= 100*365) {
		return 0, mnemo.Errorf(mnemo.EINVALID, "%s %v is outside 1..36500", name, d)
	}
	return time.Duration(d * float64(24*time.Hour)), nil
}
