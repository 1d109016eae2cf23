package server

import "net/http"

// ConsolidateRequest is the body of POST /v1/consolidate.
type ConsolidateRequest struct {
	DryRun bool `json:"dry_run,omitempty"` // list the pairs, change nothing
}

// handleConsolidate merges the namespace's near-duplicates by the write
// path's rules, reversibly (admin keys only).
func (s *Server) handleConsolidate(w http.ResponseWriter, r *http.Request) {
	var req ConsolidateRequest
	if err := s.decodeOptional(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Consolidate(r.Context(), req.DryRun)
	s.reply(w, r, http.StatusOK, res, err)
}
