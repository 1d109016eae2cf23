package thesaurus

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"slices"
)

// keyIndex maps lookup keys to file offsets in a compact form: the keys
// in one byte slice and one 12-byte entry per headword, sorted by key.
type keyIndex struct {
	keys []byte
	ent  []keyEntry
}

type keyEntry struct {
	k   uint32 // start of the key in keys
	off uint32 // what the resource stores: a file offset
	n   uint8  // key length
}

// add records off under key; keys longer than 255 bytes are not indexed.
func (x *keyIndex) add(key string, off uint32) {
	if key == "" || len(key) > 255 {
		return
	}
	x.ent = append(x.ent, keyEntry{k: uint32(len(x.keys)), off: off, n: uint8(len(key))})
	x.keys = append(x.keys, key...)
}

func (x *keyIndex) key(e keyEntry) []byte { return x.keys[e.k : e.k+uint32(e.n)] }

// finish sorts the entries by key, then offset (so offsets of one key keep
// file order)
// and trims spare capacity.
func (x *keyIndex) finish() {
	slices.SortFunc(x.ent, func(a, b keyEntry) int {
		if c := bytes.Compare(x.key(a), x.key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off)
	})
	x.ent = slices.Clip(x.ent)
	x.keys = slices.Clip(x.keys)
}

// find returns the offsets stored under key, in file order.
func (x *keyIndex) find(key string) []uint32 {
	i, _ := slices.BinarySearchFunc(x.ent, key, func(e keyEntry, k string) int { return bytes.Compare(x.key(e), []byte(k)) })
	var out []uint32
	for ; i < len(x.ent) && string(x.key(x.ent[i])) == key; i++ {
		out = append(out, x.ent[i].off)
	}
	return out
}

// size is the memory the index holds, in bytes.
func (x *keyIndex) size() int { return len(x.keys) + 12*len(x.ent) }

// maxRead bounds what readLines reads for one entry.
const maxRead = 1 << 20

var errTooLong = errors.New("entry longer than 1 MiB")

// readLines reads n lines from f at off and returns them without their
// line endings. Fewer come back only at the end of the file.
func readLines(f io.ReaderAt, off int64, n int) ([][]byte, error) {
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
