package mnemo

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
)

// Error codes. Every error that crosses a package boundary carries one of
// these, so each transport can map it to a status in a single table.
const (
	ECONFLICT     = "conflict"               // the write conflicts with stored state
	EINTERNAL     = "internal"               // a fault inside mnemo; details are never shown to clients
	EINVALID      = "invalid"                // the input failed validation
	ENOTFOUND     = "not_found"              // the record (or namespace) does not exist or is not visible
	EUNAUTHORIZED = "unauthorized"           // no or bad credentials
	EFORBIDDEN    = "forbidden"              // credentials valid, action not allowed
	ETOOLARGE     = "too_large"              // body or text over a configured limit
	ERATELIMIT    = "rate_limited"           // too many requests
	EMISMATCH     = "embedder_mismatch"      // store was built by another embedder
	EUNAVAILABLE  = "unavailable"            // the store cannot take writes now (disk full, read-only, unreachable)
	EMEDIATYPE    = "unsupported_media_type" // a request body that is not of the media type the route takes
)

// httpStatus maps every error code to its HTTP status.
var httpStatus = map[string]int{
	EINVALID:      http.StatusBadRequest,
	EUNAUTHORIZED: http.StatusUnauthorized,
	EFORBIDDEN:    http.StatusForbidden,
	ENOTFOUND:     http.StatusNotFound,
	ECONFLICT:     http.StatusConflict,
	ETOOLARGE:     http.StatusRequestEntityTooLarge,
	ERATELIMIT:    http.StatusTooManyRequests,
	EMISMATCH:     http.StatusInternalServerError, // a server configuration fault; its message is safe
	EUNAVAILABLE:  http.StatusServiceUnavailable,  // disk full, read-only or unreachable store
	EMEDIATYPE:    http.StatusUnsupportedMediaType,
	EINTERNAL:     http.StatusInternalServerError,
}

// HTTPStatus returns the HTTP status of an error code, the one table the
// REST API and the web console answer by (500 for an unknown code).
func HTTPStatus(code string) int {
	if s, ok := httpStatus[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// HTTPCode is HTTPStatus read backwards: the error code a status stands
// for, for an error answer without a JSON body (a proxy's); EINTERNAL for
// 500 and any status not in the table.
func HTTPCode(status int) string {
	for code, s := range httpStatus {
		if s == status && s != http.StatusInternalServerError {
			return code
		}
	}
	return EINTERNAL
}

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

// ErrorCode returns the code of the first *Error in err's chain,
// EUNAVAILABLE for a StorageFault, EINTERNAL for any other non-nil error,
// and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if StorageFault(err) {
		return EUNAVAILABLE
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
	if StorageFault(err) {
		return UnavailableMessage
	}
	return "internal error"
}

// UnavailableMessage is the message of a StorageFault.
const UnavailableMessage = "the store cannot take writes right now (disk full, read-only or unreachable): try again later"

// StorageFault reports whether err says the store cannot take writes right
// now: the disk is full, the file or file system is read-only, or the
// database refuses writes or connections. It recognises the operating
// system's errors and, without importing them, the errors of database
// drivers that expose a SQLite result code (Code() int) or a PostgreSQL
// SQLSTATE (SQLState() string).
func StorageFault(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff { // the primary result code
		case 8, 10, 13, 14: // SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
			return true
		}
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		st := pg.SQLState()
		// 53: insufficient resources (53100 disk full); 25006: read-only
		// transaction; 57P0x: shutdown, cannot connect now; 08: connection.
		return strings.HasPrefix(st, "53") || st == "25006" || strings.HasPrefix(st, "57P0") || strings.HasPrefix(st, "08")
	}
	return false
}
