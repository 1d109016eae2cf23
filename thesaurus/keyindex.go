package thesaurus

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
)

// keyIndex maps lookup keys to file offsets in a compact form: the keys
// in one byte slice and, once finished, one 9-byte entry per headword
// sorted by key (the key's start, the offset, the key's length,
// little-endian) — the layout of the cache file (cache.go), so a cached
// index is used where it was read, without decoding.
type keyIndex struct {
	keys []byte
	ent  []keyEntry // while building
	tab  []byte     // finished: entrySize bytes per entry
}

type keyEntry struct {
	k   uint32 // start of the key in keys
	off uint32 // what the resource stores: a file offset
	n   uint8  // key length
}

const entrySize = 9

// maxKey is the longest key an index holds, in bytes.
const maxKey = 255

// add records off under key; keys longer than maxKey are not indexed.
func (x *keyIndex) add(key string, off uint32) {
	if key == "" || len(key) > maxKey {
		return
	}
	x.ent = append(x.ent, keyEntry{k: uint32(len(x.keys)), off: off, n: uint8(len(key))})
	x.keys = append(x.keys, key...)
}

// finish sorts the entries by key, then offset (so offsets of one key keep
// file order), packs them into tab and trims spare capacity.
func (x *keyIndex) finish() {
	key := func(e keyEntry) []byte { return x.keys[e.k : e.k+uint32(e.n)] }
	slices.SortFunc(x.ent, func(a, b keyEntry) int {
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off)
	})
	tab := make([]byte, 0, entrySize*len(x.ent))
	for _, e := range x.ent {
		tab = binary.LittleEndian.AppendUint32(tab, e.k)
		tab = binary.LittleEndian.AppendUint32(tab, e.off)
		tab = append(tab, e.n)
	}
	x.tab, x.ent = tab, nil
	x.keys = slices.Clip(x.keys)
}

// len is the number of entries of a finished index.
func (x *keyIndex) len() int { return len(x.tab) / entrySize }

// entry returns entry i of a finished index.
func (x *keyIndex) entry(i int) keyEntry {
	r := x.tab[entrySize*i : entrySize*i+entrySize : entrySize*i+entrySize]
	return keyEntry{k: binary.LittleEndian.Uint32(r), off: binary.LittleEndian.Uint32(r[4:]), n: r[8]}
}

// key returns the key of entry i, or nil when it lies outside the keys
// (a damaged cache file: decodeCache refuses those).
func (x *keyIndex) key(i int) []byte {
	e := x.entry(i)
	if uint64(e.k)+uint64(e.n) > uint64(len(x.keys)) {
		return nil
	}
	return x.keys[e.k : e.k+uint32(e.n)]
}

// find returns the offsets stored under key, in file order.
func (x *keyIndex) find(key string) []uint32 {
	n := x.len()
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if string(x.key(m)) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	var out []uint32
	for ; lo < n && string(x.key(lo)) == key; lo++ {
		out = append(out, x.entry(lo).off)
	}
	return out
}

// size is the memory the index holds, in bytes.
func (x *keyIndex) size() int { return len(x.keys) + len(x.tab) + 12*len(x.ent) }

// dataFile is a thesaurus file read at offsets: from its mapping where
// the system maps it (no system call and no buffer per entry read),
// otherwise with ReadAt.
type dataFile struct {
	*os.File
	b []byte // the file's bytes when mapped
}

// openData opens the file at path for reading entries.
func openData(path string) (*dataFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &dataFile{File: f, b: mapOpen(f, path)}, nil
}

// readAll returns the whole file (its mapping when mapped; read-only for
// the caller either way).
func readAll(f *dataFile) ([]byte, error) {
	if f.b != nil {
		return f.b, nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, st.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && n < len(b) {
		return nil, err
	}
	return b[:n], nil
}

// maxRead bounds what readLines reads for one entry.
const maxRead = 1 << 20

var errTooLong = errors.New("entry longer than 1 MiB")

// readLines reads n lines from f at off and returns them without their
// line endings. Fewer come back only at the end of the file.
func readLines(f io.ReaderAt, off int64, n int) ([][]byte, error) {
	if d, ok := f.(*dataFile); ok && d.b != nil {
		return linesAt(d.b, off, n)
	}
	buf := make([]byte, 0, 4096)
	for {
		m, err := f.ReadAt(buf[len(buf):cap(buf)], off+int64(len(buf)))
		buf = buf[:len(buf)+m]
		if bytes.Count(buf, []byte{'\n'}) >= n || err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if cap(buf) >= maxRead {
			return nil, errTooLong
		}
		buf = slices.Grow(buf, cap(buf))
	}
	lines := bytes.Split(buf, []byte{'\n'})
	if len(lines) > n {
		lines = lines[:n]
	} else if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte{'\r'})
	}
	return lines, nil
}

// linesAt is readLines over a file's bytes b: the same lines, as
// slices of b (read-only for the caller), and the same bound.
func linesAt(b []byte, off int64, n int) ([][]byte, error) {
	if off < 0 || off >= int64(len(b)) || n <= 0 {
		return nil, nil
	}
	rest := b[off:]
	lines := make([][]byte, 0, n)
	read := 0
	for len(lines) < n && len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		l := rest
		if i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if read += len(l) + 1; read > maxRead {
			return nil, errTooLong
		}
		lines = append(lines, bytes.TrimSuffix(l, []byte{'\r'}))
	}
	return lines, nil
}
