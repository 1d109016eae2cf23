package capture

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Git object storage, read with the standard library (internal/capturewrite
// writes it): loose objects (objects/xx/yyyy…, a zlib stream of
// "<type> <size>\x00<content>") and the pack files `git gc` makes
// (objects/pack/*.idx version 2 and *.pack version 2 or 3, with their delta
// objects).

// hashLen is the length of a SHA-1 object name.
const hashLen = 20

// objectName is the name of a git object.
type objectName [hashLen]byte

func (h objectName) String() string { return hex.EncodeToString(h[:]) }

func parseName(s string) (objectName, bool) {
	var h objectName
	if len(s) != 2*hashLen {
		return h, false
	}
	_, err := hex.Decode(h[:], []byte(s))
	return h, err == nil
}

// readObject returns the content of the object h, which must be of type
// kind, from a loose object or a pack.
func (r *Repo) readObject(kind string, h objectName) ([]byte, error) {
	hx := h.String()
	f, err := os.Open(filepath.Join(r.Path(), "objects", hx[:2], hx[2:]))
	if err == nil {
		defer f.Close()
		t, data, err := readLooseFile(f)
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", hx, err)
		}
		if t != kind {
			return nil, fmt.Errorf("object %s is a %s, not a %s", hx, t, kind)
		}
		return data, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	t, data, err := r.readPacked(h)
	if err != nil {
		return nil, err
	}
	if t != kind {
		return nil, fmt.Errorf("object %s is a %s, not a %s", hx, t, kind)
	}
	return data, nil
}

func readLooseFile(f io.Reader) (kind string, content []byte, err error) {
	zr, err := zlib.NewReader(f)
	if err != nil {
		return "", nil, err
	}
	defer zr.Close()
	raw, err := io.ReadAll(io.LimitReader(zr, MaxHookInput*4))
	if err != nil {
		return "", nil, err
	}
	nul := bytes.IndexByte(raw, 0)
	if nul < 0 {
		return "", nil, errors.New("loose object without a header")
	}
	kind, size, ok := strings.Cut(string(raw[:nul]), " ")
	n, err := strconv.Atoi(size)
	if !ok || err != nil || n != len(raw)-nul-1 {
		return "", nil, errors.New("loose object with a bad header")
	}
	return kind, raw[nul+1:], nil
}

// packTypes are the object types of a pack entry's header.
var packTypes = [8]string{1: "commit", 2: "tree", 3: "blob", 4: "tag"}

const (
	packOfsDelta = 6
	packRefDelta = 7
)

// readPacked finds h in the repository's packs and returns its type and
// content.
func (r *Repo) readPacked(h objectName) (string, []byte, error) {
	idxs, err := fs.Glob(os.DirFS(r.Path()), "objects/pack/pack-*.idx")
	if err != nil {
		return "", nil, err
	}
	for _, rel := range idxs {
		idx := filepath.Join(r.Path(), rel)
		off, ok, err := idxLookup(idx, h)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", filepath.Base(idx), err)
		}
		if !ok {
			continue
		}
		pack := strings.TrimSuffix(idx, ".idx") + ".pack"
		f, err := os.Open(pack)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		t, data, err := r.packEntry(f, off, 0)
		if err != nil {
			return "", nil, fmt.Errorf("%s at %d: %w", filepath.Base(pack), off, err)
		}
		return t, data, nil
	}
	return "", nil, fmt.Errorf("object %s: %w", h, os.ErrNotExist)
}

// idxLookup returns the offset of h in the pack of the version 2 index
// file name.
func idxLookup(name string, h objectName) (int64, bool, error) {
	idx, err := os.ReadFile(name)
	if err != nil {
		return 0, false, err
	}
	if len(idx) < 8+256*4 || !bytes.Equal(idx[:4], []byte("\xfftOc")) || binary.BigEndian.Uint32(idx[4:]) != 2 {
		return 0, false, errors.New("not a version 2 pack index")
	}
	fan := idx[8:]
	n := int(binary.BigEndian.Uint32(fan[255*4:]))
	names := 8 + 256*4
	crcs := names + n*hashLen
	offs := crcs + n*4
	bigs := offs + n*4
	if len(idx) < bigs {
		return 0, false, errors.New("truncated pack index")
	}
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(fan[(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(fan[int(h[0])*4:]))
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := bytes.Compare(idx[names+mid*hashLen:names+(mid+1)*hashLen], h[:]); {
		case c == 0:
			off := binary.BigEndian.Uint32(idx[offs+mid*4:])
			if off&0x80000000 == 0 {
				return int64(off), true, nil
			}
			at := bigs + int(off&0x7fffffff)*8
			if len(idx) < at+8 {
				return 0, false, errors.New("truncated pack index")
			}
			return int64(binary.BigEndian.Uint64(idx[at:])), true, nil
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

// maxDeltaDepth bounds a delta chain (git's own default depth is 50).
const maxDeltaDepth = 10000

// packEntry returns the type and content of the pack entry at off,
// applying deltas.
func (r *Repo) packEntry(f *os.File, off int64, depth int) (string, []byte, error) {
	if depth > maxDeltaDepth {
		return "", nil, errors.New("delta chain too long")
	}
	var hdr [32]byte
	n, err := f.ReadAt(hdr[:], off)
	if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
		return "", nil, err
	}
	b := hdr[:n]
	typ := int(b[0]>>4) & 7
	size := int64(b[0] & 0x0f)
	i, shift := 1, 4
	for c := b[0]; c&0x80 != 0; i++ {
		if i >= len(b) || shift > 56 {
			return "", nil, errors.New("bad entry header")
		}
		c = b[i]
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	switch typ {
	case 1, 2, 3, 4:
		data, err := inflateAt(f, off+int64(i), size)
		return packTypes[typ], data, err
	case packOfsDelta:
		if i >= len(b) {
			return "", nil, errors.New("bad delta header")
		}
		c := b[i]
		i++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) {
				return "", nil, errors.New("bad delta offset")
			}
			c = b[i]
			i++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return "", nil, errors.New("bad delta offset")
		}
		delta, err := inflateAt(f, off+int64(i), size)
		if err != nil {
			return "", nil, err
		}
		t, base, err := r.packEntry(f, off-rel, depth+1)
		if err != nil {
			return "", nil, err
		}
		out, err := applyDelta(base, delta)
		return t, out, err
	case packRefDelta:
		if len(b) < i+hashLen {
			return "", nil, errors.New("bad delta header")
		}
		var bh objectName
		copy(bh[:], b[i:i+hashLen])
		delta, err := inflateAt(f, off+int64(i+hashLen), size)
		if err != nil {
			return "", nil, err
		}
		t, base, err := r.anyObject(bh, depth+1)
		if err != nil {
			return "", nil, err
		}
		out, err := applyDelta(base, delta)
		return t, out, err
	}
	return "", nil, fmt.Errorf("unknown entry type %d", typ)
}

// anyObject returns the type and content of h, loose or packed (the base
// of a ref delta).
func (r *Repo) anyObject(h objectName, depth int) (string, []byte, error) {
	hx := h.String()
	if f, err := os.Open(filepath.Join(r.Path(), "objects", hx[:2], hx[2:])); err == nil {
		defer f.Close()
		return readLooseFile(f)
	}
	if depth > maxDeltaDepth {
		return "", nil, errors.New("delta chain too long")
	}
	return r.readPacked(h)
}

// inflateAt returns the size bytes of the zlib stream at off in f.
func inflateAt(f *os.File, off, size int64) ([]byte, error) {
	if size < 0 || size > 1<<30 {
		return nil, errors.New("bad entry size")
	}
	zr, err := zlib.NewReader(io.NewSectionReader(f, off, 1<<62))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("bad delta")
	varint := func() (int, bool) {
		v, shift := 0, 0
		for {
			if len(delta) == 0 || shift > 56 {
				return 0, false
			}
			c := delta[0]
			delta = delta[1:]
			v |= int(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				return v, true
			}
		}
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != len(base) {
		return nil, bad
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n int
			for k := range 4 {
				if op&(1<<k) != 0 {
					if len(delta) == 0 {
						return nil, bad
					}
					off |= int(delta[0]) << (8 * k)
					delta = delta[1:]
				}
			}
			for k := range 3 {
				if op&(0x10<<k) != 0 {
					if len(delta) == 0 {
						return nil, bad
					}
					n |= int(delta[0]) << (8 * k)
					delta = delta[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > len(base) || off+n < off {
				return nil, bad
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			if int(op) > len(delta) {
				return nil, bad
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, bad
		}
	}
	if len(out) != dstSize {
		return nil, bad
	}
	return out, nil
}
