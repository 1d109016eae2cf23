//go:build !unix

package thesaurus

import "os"

// mapOpen maps nothing here: files are read with ReadAt.
func mapOpen(f *os.File, path string) []byte { return nil }

// readCacheFile returns the bytes of the cache file at path.
func readCacheFile(path string) ([]byte, error) { return os.ReadFile(path) }
