package server

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mnemo-dev/mnemo"
)

// statusOf maps every mnemo error code to its HTTP status. It is the only
// place where codes become statuses.
var statusOf = map[string]int{
	mnemo.EINVALID:      http.StatusBadRequest,
	mnemo.EUNAUTHORIZED: http.StatusUnauthorized,
	mnemo.EFORBIDDEN:    http.StatusForbidden,
	mnemo.ENOTFOUND:     http.StatusNotFound,
	mnemo.ECONFLICT:     http.StatusConflict,
	mnemo.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	mnemo.ERATELIMIT:    http.StatusTooManyRequests,
	mnemo.EMISMATCH:     http.StatusInternalServerError, // a server configuration fault; its message is safe
	mnemo.EINTERNAL:     http.StatusInternalServerError,
}

// StatusCode returns the HTTP status of an error code.
func StatusCode(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

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
	if code == mnemo.EINTERNAL {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error"
	}
	if code == mnemo.ERATELIMIT && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, StatusCode(code), ErrorBody{Error: ErrorDetail{Code: code, Message: msg}})
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
	switch {
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
