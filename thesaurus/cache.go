package thesaurus

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The key indexes a resource builds on first use (a pass over WordNet's
// index files, or a MyThes .idx and, for some, the whole .dat) cost a
// process about a quarter of a second of CPU: too much for a hook that
// runs on every prompt. They are kept in a cache file per resource, in
// Config.CacheDir (the command line's default is DefaultCacheDir), and read back while the source files keep their size and
// modification time. A cache file that is damaged, cut short, of another
// format or of other sources is ignored and written again; one that
// cannot be written leaves the index in memory only.
//
// Layout (little-endian): magic, format version, the sources' stamp (a
// SHA-256 of their paths, sizes and modification times, and whether a
// reverse index is kept), the path of the first source, the entry count,
// each key index (key bytes, then its entries: key start, offset, key
// length), and a CRC-32C of all that precedes it. Writing a cache file
// removes those whose first source is gone (a thesaurus uninstalled, or
// one a test wrote to a temporary directory), so the directory does not
// grow with them.

const (
	cacheMagic   = "MNTHKI01"
	cacheVersion = 2
	cacheHead    = 8 + 4 + 32 // magic, version, stamp
)

var errCache = errors.New("thesaurus cache: not usable")

// DefaultCacheDir is the usual place of the cache files: mnemo/thesaurus
// in the user's cache directory ("" when there is none).
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "mnemo", "thesaurus")
}

// sourceStamp identifies the state of a resource's source files (and
// what the index built from them holds): the files' paths, sizes and
// modification times. ok is false when one cannot be read.
func sourceStamp(extra string, files ...string) (stamp [32]byte, ok bool) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", extra)
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return stamp, false
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", f, st.Size(), st.ModTime().UnixNano())
	}
	copy(stamp[:], h.Sum(nil))
	return stamp, true
}

// cachePath names the cache file of the resource whose first source is
// file.
func cachePath(dir, file string) string {
	sum := sha256.Sum256([]byte(file))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".ki")
}

// encodeCache writes the key indexes xs and the entry count n under stamp.
func encodeCache(stamp [32]byte, source string, n int64, xs ...*keyIndex) []byte {
	size := cacheHead + 4 + len(source) + 8 + 4
	for _, x := range xs {
		size += 8 + len(x.keys) + len(x.tab)
	}
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	b = append(b, cacheMagic...)
	b = le.AppendUint32(b, cacheVersion)
	b = append(b, stamp[:]...)
	b = le.AppendUint32(b, uint32(len(source)))
	b = append(b, source...)
	b = le.AppendUint64(b, uint64(n))
	for _, x := range xs {
		b = le.AppendUint32(b, uint32(len(x.keys)))
		b = append(b, x.keys...)
		b = le.AppendUint32(b, uint32(x.len()))
		b = append(b, x.tab...)
	}
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// castagnoli is the CRC-32C table, made on first use (not at start: a
// process that never reads a cache, such as a prompt capture, skips it).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// decodeCache reads what encodeCache wrote, checking the magic, version,
// stamp and checksum, and that every entry's key lies within the keys. It
// fills xs, whose keys are b's own bytes (b must not change afterwards).
// The order of the entries, which find depends on, is not checked again:
// encodeCache writes finished indexes only, and the checksum says the file
// is what it wrote (a forged one could make lookups miss, never read out
// of bounds). Checking it cost a process about as much as the rest of the
// decoding.
func decodeCache(b []byte, stamp [32]byte, xs ...*keyIndex) (n int64, err error) {
	if len(b) < cacheHead+4+8+4 || string(b[:8]) != cacheMagic {
		return 0, errCache
	}
	le := binary.LittleEndian
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli()) != le.Uint32(b[len(b)-4:]) {
		return 0, fmt.Errorf("%w: checksum", errCache)
	}
	if le.Uint32(b[8:]) != cacheVersion || !bytes.Equal(b[12:44], stamp[:]) {
		return 0, fmt.Errorf("%w: another version or other sources", errCache)
	}
	p := body[cacheHead:]
	take := func(k int) ([]byte, bool) {
		if k < 0 || k > len(p) {
			return nil, false
		}
		out := p[:k:k]
		p = p[k:]
		return out, true
	}
	h, ok := take(4)
	if !ok {
		return 0, fmt.Errorf("%w: cut short", errCache)
	}
	if _, ok = take(int(le.Uint32(h))); !ok {
		return 0, fmt.Errorf("%w: cut short", errCache)
	}
	if h, ok = take(8); !ok {
		return 0, fmt.Errorf("%w: cut short", errCache)
	}
	n = int64(le.Uint64(h))
	for _, x := range xs {
		h, ok := take(4)
		if !ok {
			return 0, fmt.Errorf("%w: cut short", errCache)
		}
		keys, ok := take(int(le.Uint32(h)))
		if !ok {
			return 0, fmt.Errorf("%w: cut short", errCache)
		}
		h, ok = take(4)
		if !ok {
			return 0, fmt.Errorf("%w: cut short", errCache)
		}
		m := int(le.Uint32(h))
		tab, ok := take(entrySize * m)
		if !ok || m < 0 {
			return 0, fmt.Errorf("%w: cut short", errCache)
		}
		nx := keyIndex{keys: keys, tab: tab}
		for i := range m {
			if nx.key(i) == nil {
				return 0, fmt.Errorf("%w: key out of bounds", errCache)
			}
		}
		*x = nx
	}
	if len(p) != 0 {
		return 0, fmt.Errorf("%w: trailing bytes", errCache)
	}
	return n, nil
}

// cached fills xs (and returns the entry count) from the cache file in
// dir ("" for none) of the resource whose sources are files, when it is current; otherwise it
// calls build, which fills xs, and writes the cache file. extra names
// what the index holds beyond the sources (a reverse index, say).
func cached(dir, extra string, files []string, build func() (int64, error), xs ...*keyIndex) (int64, error) {
	stamp, ok := sourceStamp(extra, files...)
	if dir == "" || !ok {
		return build()
	}
	path := cachePath(dir, files[0])
	if b, err := readCacheFile(path); err == nil {
		if n, err := decodeCache(b, stamp, xs...); err == nil {
			return n, nil
		}
	}
	n, err := build()
	if err != nil {
		return n, err
	}
	writeCache(dir, path, encodeCache(stamp, files[0], n, xs...))
	return n, nil
}

// writeCache writes b to path through a temporary file renamed into
// place, so a reader never sees half a file; failures are ignored (the
// index stays in memory).
func writeCache(dir, path string, b []byte) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".ki-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
		return
	}
	prune(dir, path)
}

// prune removes the cache files of dir, but keep, whose first source is
// gone, reading only their heads.
func prune(dir, keep string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.ki"))
	for _, f := range files {
		if f == keep {
			continue
		}
		if src, ok := cacheSource(f); ok {
			if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
				os.Remove(f)
			}
		}
	}
}

// cacheSource reads the first source's path from the head of a cache file.
func cacheSource(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, cacheHead+4+4096)
	k, _ := io.ReadFull(f, head)
	head = head[:k]
	if len(head) < cacheHead+4 || string(head[:8]) != cacheMagic {
		return "", false
	}
	n := int(binary.LittleEndian.Uint32(head[cacheHead:]))
	if n == 0 || cacheHead+4+n > len(head) {
		return "", false
	}
	return string(head[cacheHead+4 : cacheHead+4+n]), true
}
