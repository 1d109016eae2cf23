package mnemo

import (
	"errors"
	"fmt"
)

// Error codes. Every error that crosses a package boundary carries one of
// these, so each transport can map it to a status in a single table.
const (
	ECONFLICT     = "conflict"          // the write conflicts with stored state
	EINTERNAL     = "internal"          // a fault inside mnemo; details are never shown to clients
	EINVALID      = "invalid"           // the input failed validation
	ENOTFOUND     = "not_found"         // the record (or namespace) does not exist or is not visible
	EUNAUTHORIZED = "unauthorized"      // no or bad credentials
	EFORBIDDEN    = "forbidden"         // credentials valid, action not allowed
	ETOOLARGE     = "too_large"         // body or text over a configured limit
	ERATELIMIT    = "rate_limited"      // too many requests
	EMISMATCH     = "embedder_mismatch" // store was built by another embedder
)

// Error is mnemo's coded error. Message is safe to show to a user.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-safe message of err: the message of the
// first *Error in its chain, or a generic text for internal errors.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
