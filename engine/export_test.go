package engine

import "hash/maphash"

// SetImportIDHash makes Import's first pass compare ids by h, and returns
// the function that restores the hash.
func SetImportIDHash(h func(id string) uint64) (restore func()) {
	old := importIDHash
	importIDHash = func(_ maphash.Seed, id string) uint64 { return h(id) }
	return func() { importIDHash = old }
}
