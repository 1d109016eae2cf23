package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/console"
)

// ErrorBody is the JSON body of every error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is a coded, user-safe error.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeError writes err as {"error":{"code","message"}}. Internal errors are
// logged in full and shown only as a generic message.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := mnemo.ErrorCode(err)
	msg := mnemo.ErrorMessage(err)
	switch code {
	case mnemo.EINTERNAL:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error"
	case mnemo.EUNAVAILABLE:
		s.log.Error("store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		s.ready.failed(s.cfg.Now())
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "30")
		}
	}
	if code == mnemo.ERATELIMIT && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, mnemo.HTTPStatus(code), ErrorBody{Error: ErrorDetail{Code: code, Message: msg}})
}

// reply answers v with status, or err when it is not nil.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, status, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// decodeErr turns a JSON decoding error into a coded error.
func decodeErr(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	var me *mnemo.Error
	switch {
	case errors.As(err, &me): // from a type's own decoder, e.g. a filter's time
		return me
	case errors.As(err, &mbe):
		return mnemo.Errorf(mnemo.ETOOLARGE, "request body is over the limit of %d bytes", mbe.Limit)
	case errors.As(err, &se):
		return mnemo.Errorf(mnemo.EINVALID, "malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "(body)"
		}
		return mnemo.Errorf(mnemo.EINVALID, "field %s has the wrong type: got %s, want %s", field, te.Value, te.Type)
	}
	if err.Error() == "EOF" || err.Error() == "unexpected EOF" {
		return mnemo.Errorf(mnemo.EINVALID, "request body is empty or truncated JSON")
	}
	// json: unknown field "x", and other decoder messages, are safe to show.
	return mnemo.Errorf(mnemo.EINVALID, "bad request body: %s", trimJSONPrefix(err.Error()))
}

func trimJSONPrefix(s string) string {
	const p = "json: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// readiness remembers whether the store takes writes: a write that failed
// for want of disk or permission makes /readyz false until a probe write
// (at most one per ReadyTTL) succeeds again.
type readiness struct {
	mu  sync.Mutex
	at  time.Time
	err error
	set bool
}

func (rd *readiness) failed(now time.Time) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	rd.at, rd.err, rd.set = now, mnemo.Errorf(mnemo.EUNAVAILABLE, "%s", mnemo.UnavailableMessage), true
}

// check returns the last outcome, probing with a small write when it is
// older than ReadyTTL.
func (rd *readiness) check(ctx context.Context, s *Server) error {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	now := s.cfg.Now()
	if rd.set && now.Sub(rd.at) < s.cfg.ReadyTTL && !now.Before(rd.at) {
		return rd.err
	}
	err := s.svc.Store().SetSetting(ctx, "server/ready-probe", now.UTC().Format(time.RFC3339Nano))
	if err != nil {
		s.log.Error("readiness: the store cannot write", "err", err)
	}
	rd.at, rd.err, rd.set = now, err, true
	return err
}

// serveMux routes r. What the mux answers by itself, a path no route
// serves (404) or a route of another method (405, with Allow), is a JSON
// error like every other answer of the API; the console's pages keep
// their own.
func (s *Server) serveMux(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern != "" || (s.console && console.Owns(r.URL.Path)) {
		s.mux.ServeHTTP(w, r)
		return
	}
	cw := &statusOnly{ResponseWriter: w}
	s.mux.ServeHTTP(cw, r)
	w.Header().Del("Content-Type")
	if cw.status == http.StatusMethodNotAllowed {
		// No code of its own: the method is the invalid part of the request.
		writeJSON(w, http.StatusMethodNotAllowed, ErrorBody{Error: ErrorDetail{Code: mnemo.EINVALID,
			Message: fmt.Sprintf("%s %s is not a route: this path takes %s", r.Method, r.URL.Path, w.Header().Get("Allow"))}})
		return
	}
	s.writeError(w, r, mnemo.Errorf(mnemo.ENOTFOUND, "no route %s %s (see /openapi.json)", r.Method, r.URL.Path))
}

// statusOnly keeps the status a handler writes and drops its body.
type statusOnly struct {
	http.ResponseWriter
	status int
}

func (w *statusOnly) WriteHeader(code int)        { w.status = code }
func (w *statusOnly) Write(b []byte) (int, error) { return len(b), nil }
