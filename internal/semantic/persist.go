package semantic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sync"
	"unicode/utf8"
)

// The binary form of a model (little-endian):
//
//	magic "MNEMOSEM", format version uint16, flags uint16 (0)
//	config: dim, window, min count, max vocab, min texts, min vocab uint32;
//	        alpha, power float64;
//	        oversample, iters uint32; seed uint64
//	stamp: texts uint64, hash uint64
//	total occurrences uint64, vocabulary size uint32
//	terms: uvarint length + UTF-8 bytes each, in vocabulary order
//	occurrences: uint32 each; texts holding the term: uint32 each
//	vectors: size × dim float32
//	null tables: 5 × 1001 float32
//	CRC-32C of everything before it, uint32
const (
	magic         = "MNEMOSEM"
	formatVersion = 1
	headerSize    = 8 + 2 + 2 + 6*4 + 8*2 + 4*2 + 8 + 8*2 + 8 + 4
	maxDim        = 4096
)

// ErrFormat is returned by Unmarshal for data that is not a model in a
// format this version reads, or that is damaged.
var ErrFormat = errors.New("semantic: not a valid model")

var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Marshal returns the model in a compact, versioned binary form with a
// checksum; Unmarshal reads it back.
func (m *Model) Marshal() []byte {
	size := headerSize + len(m.terms)*(8+4*m.dim) + len(m.null)*nullPoints*4 + 4
	for _, t := range m.terms {
		size += binary.MaxVarintLen32 + len(t)
	}
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	b = append(b, magic...)
	b = le.AppendUint16(b, formatVersion)
	b = le.AppendUint16(b, 0)
	for _, v := range []int{m.dim, m.cfg.Window, m.cfg.MinCount, m.cfg.MaxVocab, m.cfg.MinTexts, m.cfg.MinVocab} {
		b = le.AppendUint32(b, uint32(v))
	}
	b = le.AppendUint64(b, math.Float64bits(m.cfg.Alpha))
	b = le.AppendUint64(b, math.Float64bits(m.cfg.Power))
	b = le.AppendUint32(b, uint32(m.cfg.Oversample))
	b = le.AppendUint32(b, uint32(m.cfg.Iters))
	b = le.AppendUint64(b, m.cfg.Seed)
	b = le.AppendUint64(b, uint64(m.stamp.Texts))
	b = le.AppendUint64(b, m.stamp.Hash)
	b = le.AppendUint64(b, m.total)
	b = le.AppendUint32(b, uint32(len(m.terms)))
	for _, t := range m.terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	for _, n := range m.counts {
		b = le.AppendUint32(b, n)
	}
	for _, n := range m.docs {
		b = le.AppendUint32(b, n)
	}
	for _, x := range m.vecs {
		b = le.AppendUint32(b, math.Float32bits(x))
	}
	for t := range m.null {
		for _, x := range m.null[t] {
			b = le.AppendUint32(b, math.Float32bits(x))
		}
	}
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// Unmarshal reads a model written by Marshal. Data that is not a model,
// of another format version, truncated or damaged gives an error wrapping
// ErrFormat.
func Unmarshal(data []byte) (*Model, error) {
	if len(data) < headerSize+4 || string(data[:8]) != magic {
		return nil, fmt.Errorf("%w: no model header", ErrFormat)
	}
	le := binary.LittleEndian
	if v := le.Uint16(data[8:]); v != formatVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads %d", ErrFormat, v, formatVersion)
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli()) != le.Uint32(data[len(data)-4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrFormat)
	}
	r := reader{b: body, off: 12}
	m := &Model{}
	m.dim = int(r.u32())
	m.cfg.Window = int(r.u32())
	m.cfg.MinCount = int(r.u32())
	m.cfg.MaxVocab = int(r.u32())
	m.cfg.MinTexts = int(r.u32())
	m.cfg.MinVocab = int(r.u32())
	m.cfg.Alpha = math.Float64frombits(r.u64())
	m.cfg.Power = math.Float64frombits(r.u64())
	m.cfg.Oversample = int(r.u32())
	m.cfg.Iters = int(r.u32())
	m.cfg.Seed = r.u64()
	texts := r.u64()
	m.stamp.Hash = r.u64()
	m.total = r.u64()
	n := int(r.u32())
	m.cfg.Dim = m.dim
	if r.err != nil {
		return nil, r.err
	}
	if m.dim <= 0 || m.dim > maxDim || texts > math.MaxInt32 {
		return nil, fmt.Errorf("%w: dimension %d, %d texts", ErrFormat, m.dim, texts)
	}
	m.stamp.Texts = int(texts)
	// Each term takes at least 1+1+8+4·dim bytes.
	if n <= 0 || n > r.left()/(10+4*m.dim) {
		return nil, fmt.Errorf("%w: %d terms in %d bytes", ErrFormat, n, r.left())
	}
	m.terms = make([]string, n)
	seen := make(map[string]bool, n)
	for i := range m.terms {
		l := r.uvarint()
		if r.err != nil || l == 0 || l > uint64(r.left()) {
			return nil, fmt.Errorf("%w: term %d", ErrFormat, i)
		}
		t := string(r.bytes(int(l)))
		if !utf8.ValidString(t) || seen[t] {
			return nil, fmt.Errorf("%w: term %d is not valid or repeated", ErrFormat, i)
		}
		seen[t] = true
		m.terms[i] = t
	}
	if want := n*8 + n*m.dim*4 + len(m.null)*nullPoints*4; r.left() != want {
		return nil, fmt.Errorf("%w: %d bytes of counts and vectors, want %d", ErrFormat, r.left(), want)
	}
	m.counts = make([]uint32, n)
	var sum uint64
	for i := range m.counts {
		m.counts[i] = r.u32()
		sum += uint64(m.counts[i])
	}
	if sum != m.total {
		return nil, fmt.Errorf("%w: counts add up to %d, not %d", ErrFormat, sum, m.total)
	}
	m.docs = make([]uint32, n)
	for i := range m.docs {
		m.docs[i] = r.u32()
		if m.docs[i] == 0 || m.docs[i] > m.counts[i] || int(m.docs[i]) > m.stamp.Texts {
			return nil, fmt.Errorf("%w: term %q in %d texts", ErrFormat, m.terms[i], m.docs[i])
		}
	}
	m.vecs = make([]float32, n*m.dim)
	for i := range m.vecs {
		m.vecs[i] = r.f32()
	}
	for i := 0; i < n; i++ {
		var s float64
		for _, x := range m.vec(int32(i)) {
			s += float64(x) * float64(x)
		}
		if math.IsNaN(s) || s != 0 && math.Abs(s-1) > 1e-3 {
			return nil, fmt.Errorf("%w: vector of %q is not unit length", ErrFormat, m.terms[i])
		}
	}
	for t := range m.null {
		for q := range m.null[t] {
			x := r.f32()
			if !(x >= -1.001 && x <= 1.001) || q > 0 && x < m.null[t][q-1] {
				return nil, fmt.Errorf("%w: null distribution %d is not ordered", ErrFormat, t)
			}
			m.null[t][q] = x
		}
	}
	m.init()
	return m, nil
}

// reader reads little-endian fields, recording the first short read.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n > r.left() {
		if r.err == nil {
			r.err = fmt.Errorf("%w: truncated", ErrFormat)
		}
		return make([]byte, n)
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u32() uint32  { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *reader) u64() uint64  { return binary.LittleEndian.Uint64(r.bytes(8)) }
func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 || n != len(binary.AppendUvarint(nil, v)) {
		r.err = fmt.Errorf("%w: bad length", ErrFormat)
		return 0
	}
	r.off += n
	return v
}
