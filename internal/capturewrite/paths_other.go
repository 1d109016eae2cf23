//go:build !unix

package capturewrite

import "path/filepath"

// File paths with path/filepath, where a file path is not a slash-separated
// path (see paths_unix.go for why Unix uses the path package). joinPath
// also turns the slashes of a slash-separated element into separators.
func joinPath(elem ...string) string { return filepath.Join(elem...) }
func dirPath(p string) string        { return filepath.Dir(p) }
func basePath(p string) string       { return filepath.Base(p) }
func cleanPath(p string) string      { return filepath.Clean(p) }
func isAbsPath(p string) bool        { return filepath.IsAbs(p) }
