//go:build unix

package thesaurus

import (
	"os"
	"sync"
	"syscall"
)

// mapped holds the files this process has mapped, by path, with the
// identity of the file each mapping is of. A mapping is never unmapped:
// what is read from it (a cached key index, the lines of an entry) uses
// its bytes for as long as it lives, and opening the same file again
// (another Thesaurus in the process) takes the same mapping. The files
// mapped are never written in place: a cache file is replaced by renaming
// a new one over it, and the thesauri are the system's. Mappings are
// private and writable, so a write through a slice of one would change
// this process's copy only.
var mapped struct {
	sync.Mutex
	m map[string]mapping
}

type mapping struct {
	dev, ino uint64
	size     int64
	mtime    int64
	b        []byte
}

// mapOpen returns the bytes of the open file f (at path), mapped, or nil
// when it cannot be mapped (empty, over 1 GiB, or the mapping fails).
func mapOpen(f *os.File, path string) []byte {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	size := fi.Size()
	if !ok || size <= 0 || size > 1<<30 {
		return nil
	}
	id := mapping{dev: uint64(st.Dev), ino: uint64(st.Ino), size: size, mtime: fi.ModTime().UnixNano()}
	mapped.Lock()
	defer mapped.Unlock()
	if m, ok := mapped.m[path]; ok && m.dev == id.dev && m.ino == id.ino && m.size == id.size && m.mtime == id.mtime {
		return m.b
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	if mapped.m == nil {
		mapped.m = map[string]mapping{}
	}
	id.b = b
	mapped.m[path] = id
	return b
}

// readCacheFile returns the bytes of the cache file at path, mapped
// (os.ReadFile where mapping fails).
func readCacheFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if b := mapOpen(f, path); b != nil {
		return b, nil
	}
	return os.ReadFile(path)
}
