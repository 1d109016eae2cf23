//go:build unix

package capturewrite

import "path"

// File paths, spelt with the path package on Unix, where a file path is a
// slash-separated path and path's functions are path/filepath's. The
// difference is when each is ready: the os package imports path, so it is
// initialised before any package that reads a file, while path/filepath is
// initialised, in Go's lexical order of package initialisation, after most
// of the binary's other dependencies. `mnemo capture` runs from an init
// function of a package that imports this one (cmd/mnemo/internal/capturecli),
// before the binary's heavy dependencies initialise; importing
// path/filepath here would make it wait for them.
func joinPath(elem ...string) string { return path.Join(elem...) }
func dirPath(p string) string        { return path.Dir(p) }
func basePath(p string) string       { return path.Base(p) }
func cleanPath(p string) string      { return path.Clean(p) }
func isAbsPath(p string) bool        { return path.IsAbs(p) }
