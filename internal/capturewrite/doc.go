// Package capturewrite is the write path of prompt capture (package
// capture): reading a Claude Code hook's input and storing the prompt as an
// orphan commit in a bare git repository. Package capture re-exports it and
// adds the read path (listing prompts, loose and packed objects).
//
// It is apart, and written with so little of the standard library, for the
// start of `mnemo capture`, which runs on every prompt an operator sends.
// A Go program initialises every package it links before main: in dependency
// order and, among the packages whose imports are ready, in lexical order of
// import path. cmd/mnemo/internal/capturecli runs the command from its init
// and exits, so the command costs only the packages initialised before that
// init. The lexical order makes reflect initialise before strings (both wait
// for unicode), and once reflect is ready fmt, encoding/gob, encoding/json,
// the regexp engines and, through them, most of the binary's dependencies
// become ready ahead of any github.com/mnemo-dev package. So this package
// imports no package that needs strings or reflect: not strings, fmt,
// encoding/json, encoding/hex, encoding/binary, compress/zlib or crypto/sha1
// (whose FIPS module imports strings). It hashes with its own SHA-1
// (sha1.go, checked against crypto/sha1), reads the hook's JSON and writes
// prompt.json with its own code (json.go, checked against encoding/json on
// every input the fuzzer finds), and stores objects as stored (uncompressed)
// zlib streams, which git reads like any other (it writes them itself with
// core.looseCompression=0; `git gc` packs them compressed). What that buys:
// 23 packages initialised before the capture ends instead of 151 (0.65 ms
// of their initialisation instead of 3.5), and a whole `mnemo capture`
// within about a millisecond of a 3.7 MB program that does only the capture
// (docs/BENCHMARKS.md). TestImports holds the import list, and cmd/mnemo's
// TestCaptureRunsBeforeHeavyPackages the order.
package capturewrite

import "errors"

// The kinds of error this package returns for bad input and a missing
// repository: each such error wraps one of them (errors.Is), and its message
// is safe to show. Callers give these kinds their codes.
var (
	ErrInvalid  = errors.New("capture: invalid input")
	ErrNotFound = errors.New("capture: no prompt repository")
	ErrTooLarge = errors.New("capture: input too large")
)

// kindError is an error of one of the kinds above.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func newError(kind error, msg string) error { return &kindError{kind: kind, msg: msg} }

// wrapError is err with what was being done when it happened.
type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg + ": " + e.err.Error() }
func (e *wrapError) Unwrap() error { return e.err }

func wrap(msg string, err error) error { return &wrapError{msg: msg, err: err} }
