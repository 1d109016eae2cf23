//go:build !unix

package thesaurus

import "os"

// readCacheFile returns the bytes of the cache file at path.
func readCacheFile(path string) ([]byte, error) { return os.ReadFile(path) }
