//go:build unix

package thesaurus

import (
	"os"
	"sync"
	"syscall"
)

// mapped holds the cache files this process has mapped, by path, with the
// identity of the file each mapping is of. A mapping is never unmapped:
// the indexes read from it use its bytes for as long as they live, and
// reading the same file again (another Thesaurus in the process) takes the
// same mapping. A cache file is only ever replaced by renaming a new one
// over it, never written in place, so a mapped file does not change.
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

// readCacheFile returns the bytes of the cache file at path, mapped
// read-only (os.ReadFile where mapping fails).
func readCacheFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	size := fi.Size()
	if !ok || size <= 0 || size > 1<<30 {
		return os.ReadFile(path)
	}
	id := mapping{dev: uint64(st.Dev), ino: uint64(st.Ino), size: size, mtime: fi.ModTime().UnixNano()}
	mapped.Lock()
	defer mapped.Unlock()
	if m, ok := mapped.m[path]; ok && m.dev == id.dev && m.ino == id.ino && m.size == id.size && m.mtime == id.mtime {
		return m.b, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return os.ReadFile(path)
	}
	if mapped.m == nil {
		mapped.m = map[string]mapping{}
	}
	id.b = b
	mapped.m[path] = id
	return b, nil
}
