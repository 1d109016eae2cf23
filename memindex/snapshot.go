package memindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mnemo-dev/mnemo"
)

// Snapshots: a namespace written to a file and read back without reading
// its rows again.
//
// A snapshot holds everything a Namespace searches with: the entries'
// filter fields, the quantised vectors (int8 codes, and each vector's scale
// and error norm: quant.go), the sign sketches, the inverted
// index (terms, postings, each entry's distinct terms) and each thread's
// order. Removed entries are left out and positions renumbered in order,
// so a snapshot of a namespace equals one of the namespace rebuilt from
// its rows in the same order. The per-access-level keyword statistics
// are recounted from the entries when it is read.
//
// Layout (little-endian): a fixed header, the sections, each aligned to 8
// bytes (the vectors and sketches to snapAlign, so that they can be
// mapped on their own), then the directory (offset, length and CRC-32C of
// each section) and a trailer holding the directory's offset, its CRC and
// the magic again. A file cut short, overwritten in part or written by
// another version fails the trailer, the directory's or a section's CRC
// and is refused as a whole. Three sections are checked as they are used
// instead: each vector against its own CRC (secVecCRC), and the postings
// and term lists by blocks of 64 KiB (secBlockCRC, lazycrc.go), so that
// a process that reads a few of them does not read them all.
//
// Reading maps the big arrays (vectors, sketches, postings, term lists,
// thread orders) in place: the Namespace then points into the bytes it was
// read from, which must stay valid and writable (a private copy-on-write
// mapping, or a heap buffer) for as long as the Namespace lives. Slices
// that point into them have no spare capacity, so growing one copies it
// out first; in-place edits (a vector rewritten, a posting deleted) write
// to the private copy.

const (
	snapMagic   = "MNEMOIX1"
	snapVersion = 5       // 2: entries' operators follow their tags; 3: int8 vectors and their scales; 4: ranking fields; 5: block checksums of the postings and term lists
	snapAlign   = 1 << 16 // alignment of the sections that may be mapped separately
	snapHeader  = 64
	snapTrailer = 24
	entrySize   = 168
)

// The sections, in file order.
const (
	secLabel = iota
	secStrings
	secStringEnds
	secEntries
	secTags
	secTerms
	secPostingEnds
	secPostings
	secArena
	secThreads
	secThreadPos
	secSkEnt
	secVecCRC
	secVecMeta
	secVecs
	secSigns
	secBlockCRC // CRC-32C of each lazyBlock of secPostings, then of secArena (lazycrc.go)
	numSections
)

// castagnoli is the CRC-32C table, made on first use.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// SketchAsyncMin is the namespace size from which searches use sketches
// once they are built (see Sketch).
const SketchAsyncMin = sketchAsyncMin

// littleEndian is true on the hosts whose memory layout matches the file's.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// ErrSnapshot wraps every reason a snapshot is refused.
var ErrSnapshot = errors.New("invalid index snapshot")

func snapErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSnapshot, fmt.Sprintf(format, a...))
}

// SnapshotHeader is what a snapshot says of itself.
type SnapshotHeader struct {
	// Label identifies what the snapshot was taken of (the store, the
	// namespace, the version of the store's state it belongs to); the
	// caller sets it when writing and checks it when reading.
	Label string
	// Seq is the change stamp the namespace reflected when written.
	Seq int64
	// Entries is the number of entries.
	Entries int
}

// snapWriter writes sections and remembers where each went.
type snapWriter struct {
	w    *bufio.Writer
	off  int64
	dir  [numSections][3]uint64 // offset, length, crc
	cur  int
	crc  uint32
	sec0 int64
	err  error
	buf  [8]byte
	// While a section checked block by block is written: the CRC and
	// length of its current block, and the CRCs of its blocks so far.
	blocks  bool
	blkCRC  uint32
	blkLen  int
	blkCRCs []uint32
}

func (s *snapWriter) write(p []byte) {
	if s.err != nil {
		return
	}
	_, s.err = s.w.Write(p)
	s.off += int64(len(p))
	s.crc = crc32.Update(s.crc, castagnoli(), p)
	for s.blocks && len(p) > 0 {
		k := min(lazyBlock-s.blkLen, len(p))
		s.blkCRC = crc32.Update(s.blkCRC, castagnoli(), p[:k])
		s.blkLen += k
		p = p[k:]
		if s.blkLen == lazyBlock {
			s.blkCRCs = append(s.blkCRCs, s.blkCRC)
			s.blkCRC, s.blkLen = 0, 0
		}
	}
}

// beginBlocks starts a section whose blocks get checksums of their own.
func (s *snapWriter) beginBlocks(sec int, align int64) {
	s.begin(sec, align)
	s.blocks, s.blkCRC, s.blkLen = true, 0, 0
}

// endBlocks ends it, with the checksum of its last, partial block.
func (s *snapWriter) endBlocks() {
	if s.blkLen > 0 {
		s.blkCRCs = append(s.blkCRCs, s.blkCRC)
	}
	s.blocks = false
	s.end()
}

func (s *snapWriter) pad(align int64) {
	if n := (align - s.off%align) % align; n > 0 {
		z := make([]byte, n)
		if s.err == nil {
			_, s.err = s.w.Write(z)
		}
		s.off += n
	}
}

func (s *snapWriter) begin(sec int, align int64) {
	s.pad(align)
	s.cur, s.crc, s.sec0 = sec, 0, s.off
}

func (s *snapWriter) end() {
	s.dir[s.cur] = [3]uint64{uint64(s.sec0), uint64(s.off - s.sec0), uint64(s.crc)}
}

func (s *snapWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(s.buf[:4], v)
	s.write(s.buf[:4])
}

func (s *snapWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(s.buf[:8], v)
	s.write(s.buf[:8])
}

// WriteSnapshot writes the namespace to w in the snapshot format, stamped
// with label and seq; key encodes a row key. It runs under the read lock
// (it changes nothing).
func (n *Namespace[K]) WriteSnapshot(w io.Writer, label string, seq int64, key func(K) uint64) error {
	if !n.VerifyVectors() {
		return snapErr("a vector read from the snapshot it was loaded from is damaged")
	}
	if !n.kw.checkedAll() {
		return snapErr("postings or term lists read from the snapshot the namespace was loaded from are damaged")
	}
	// Live entries in order, and the renumbering.
	keys := n.keys
	newPos := make([]int32, len(n.ents))
	live := make([]int32, 0, len(n.ents))
	for i := range n.ents {
		newPos[i] = -1
		if n.ents[i].Seq != -1 {
			newPos[i] = int32(len(live))
			live = append(live, int32(i))
		}
	}
	// The string table: every distinct string of the entries and the
	// terms, in first-seen order.
	strID := map[string]uint32{}
	var strs []string
	ref := func(s string) uint32 {
		if id, ok := strID[s]; ok {
			return id
		}
		id := uint32(len(strs))
		strID[s] = id
		strs = append(strs, s)
		return id
	}
	terms := n.kw.names
	termRefs := make([]uint32, len(terms))
	for id, t := range terms {
		termRefs[id] = ref(t)
	}
	type entRefs struct{ s [9]uint32 }
	refs := make([]entRefs, len(live))
	var tags []uint32
	tagOff := make([]uint32, len(live))
	for j, i := range live {
		e := &n.ents[i]
		refs[j].s = [9]uint32{ref(e.ID), ref(string(e.Layer)), ref(string(e.Kind)), ref(e.Scope),
			ref(e.Component), ref(e.Mission), ref(e.Thread), ref(e.Outcome), ref(e.Speaker)}
		tagOff[j] = uint32(len(tags))
		for _, t := range e.Tags {
			tags = append(tags, ref(t))
		}
		for _, o := range e.Operators {
			tags = append(tags, ref(o))
		}
		for _, a := range e.Authors {
			tags = append(tags, ref(a))
		}
	}
	threads := make([]string, 0, len(n.thr))
	for t := range n.thr {
		threads = append(threads, t)
	}
	sort.Strings(threads)
	threadRefs := make([]uint32, len(threads))
	for i, t := range threads {
		threadRefs[i] = ref(t)
	}

	sw := &snapWriter{w: bufio.NewWriterSize(w, 1<<20)}
	// Header.
	var h [snapHeader]byte
	copy(h[:8], snapMagic)
	binary.LittleEndian.PutUint32(h[8:], snapVersion)
	flags := uint32(0)
	if n.sketching {
		flags |= 1
	}
	binary.LittleEndian.PutUint32(h[12:], flags)
	binary.LittleEndian.PutUint64(h[16:], uint64(seq))
	binary.LittleEndian.PutUint64(h[24:], uint64(len(live)))
	binary.LittleEndian.PutUint64(h[32:], uint64(len(strs)))
	binary.LittleEndian.PutUint64(h[40:], uint64(len(terms)))
	binary.LittleEndian.PutUint64(h[48:], uint64(len(threads)))
	binary.LittleEndian.PutUint64(h[56:], uint64(n.sketchDim))
	sw.write(h[:])
	hdrCRC := sw.crc

	sw.begin(secLabel, 8)
	sw.write([]byte(label))
	sw.end()

	sw.begin(secStrings, 8)
	for _, s := range strs {
		sw.write(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	sw.end()
	sw.begin(secStringEnds, 8)
	end := uint64(0)
	for _, s := range strs {
		end += uint64(len(s))
		sw.u64(end)
	}
	sw.end()

	// Vectors, arena and sketches are renumbered as the entries are.
	words := 0
	if n.sketchDim > 0 {
		words = sketchWords(n.sketchDim)
	}
	var vecOff, tOff, skOff uint64
	sw.begin(secEntries, 8)
	var eb [entrySize]byte
	for j, i := range live {
		e := &n.ents[i]
		le := binary.LittleEndian
		le.PutUint64(eb[0:], key(keys[i]))
		le.PutUint64(eb[8:], uint64(e.Seq))
		le.PutUint64(eb[16:], uint64(e.Created))
		le.PutUint64(eb[24:], uint64(e.ValidFrom))
		le.PutUint64(eb[32:], uint64(e.ValidTo))
		le.PutUint64(eb[40:], math.Float64bits(e.Criticality))
		le.PutUint64(eb[48:], uint64(int64(e.AccessLevel)))
		le.PutUint64(eb[56:], vecOff)
		for k, r := range refs[j].s[:8] {
			le.PutUint32(eb[64+4*k:], r)
		}
		le.PutUint32(eb[96:], tagOff[j])
		le.PutUint32(eb[100:], uint32(len(e.Tags)))
		le.PutUint32(eb[104:], uint32(e.dim))
		sk := int32(-1)
		if e.sk >= 0 && n.sketching {
			sk = int32(skOff)
			skOff += uint64(words)
		}
		le.PutUint32(eb[108:], uint32(sk))
		le.PutUint32(eb[112:], uint32(e.dl))
		le.PutUint32(eb[116:], uint32(tOff))
		le.PutUint32(eb[120:], uint32(e.tLen))
		fl := uint32(0)
		if e.Deleted {
			fl |= 1
		}
		if e.indexed {
			fl |= 2
		}
		fl |= uint32(len(e.Operators)) << 8 // the operators follow the tags
		if e.Extracted {
			fl |= 4
		}
		le.PutUint32(eb[124:], fl)
		le.PutUint32(eb[128:], math.Float32bits(e.Importance))
		le.PutUint32(eb[132:], math.Float32bits(e.Confidence))
		le.PutUint64(eb[136:], uint64(e.Access))
		le.PutUint64(eb[144:], uint64(e.Updated))
		le.PutUint32(eb[152:], uint32(e.Tokens))
		le.PutUint32(eb[156:], refs[j].s[8])
		le.PutUint32(eb[160:], uint32(len(e.Authors)))
		sw.write(eb[:])
		vecOff += uint64(e.dim)
		tOff += uint64(e.tLen)
	}
	sw.end()

	sw.begin(secTags, 8)
	for _, t := range tags {
		sw.u32(t)
	}
	sw.end()

	sw.begin(secTerms, 8)
	for _, r := range termRefs {
		sw.u32(r)
	}
	sw.end()

	sw.begin(secPostingEnds, 8)
	pend := uint64(0)
	for _, ps := range n.kw.postings {
		pend += uint64(len(ps))
		sw.u64(pend)
	}
	sw.end()
	sw.beginBlocks(secPostings, 8)
	for _, ps := range n.kw.postings {
		for _, p := range ps {
			np := newPos[p.ent]
			if np < 0 {
				return fmt.Errorf("write snapshot: a posting names removed entry %d", p.ent)
			}
			sw.u32(uint32(np))
			sw.u32(uint32(p.tf))
		}
	}
	sw.endBlocks()

	sw.beginBlocks(secArena, 8)
	for _, i := range live {
		e := &n.ents[i]
		for _, t := range n.kw.arena[e.tOff : e.tOff+e.tLen] {
			sw.u32(uint32(t))
		}
	}
	sw.endBlocks()

	sw.begin(secThreads, 8)
	for i, t := range threads {
		sw.u32(threadRefs[i])
		sw.u32(uint32(len(n.thr[t])))
	}
	sw.end()
	sw.begin(secThreadPos, 8)
	for _, t := range threads {
		for _, p := range n.thr[t] {
			np := newPos[p]
			if np < 0 {
				return fmt.Errorf("write snapshot: thread %q names removed entry %d", t, p)
			}
			sw.u32(uint32(np))
		}
	}
	sw.end()

	sw.begin(secSkEnt, 8)
	if n.sketching {
		for j, i := range live {
			if n.ents[i].sk >= 0 {
				sw.u32(uint32(j))
			}
		}
	}
	sw.end()

	sw.begin(secVecCRC, 8)
	for _, i := range live {
		e := &n.ents[i]
		c := uint32(0)
		if e.dim > 0 {
			c = crc32.Checksum(int8Bytes(n.vecs[e.off:e.off+e.dim]), castagnoli())
		}
		sw.u32(c)
	}
	sw.end()

	sw.begin(secVecMeta, 8)
	for _, i := range live {
		e := &n.ents[i]
		sw.u32(math.Float32bits(e.vs))
		sw.u32(math.Float32bits(e.ve))
	}
	sw.end()

	sw.begin(secVecs, snapAlign)
	for _, i := range live {
		e := &n.ents[i]
		if e.dim > 0 {
			sw.write(int8Bytes(n.vecs[e.off : e.off+e.dim]))
		}
	}
	sw.end()

	sw.begin(secSigns, snapAlign)
	if n.sketching {
		for _, i := range live {
			if sk := n.ents[i].sk; sk >= 0 {
				for _, x := range n.signs[sk : sk+words] {
					sw.u64(x)
				}
			}
		}
	}
	sw.end()

	sw.begin(secBlockCRC, 8)
	for _, c := range sw.blkCRCs {
		sw.u32(c)
	}
	sw.end()

	// Directory and trailer.
	sw.pad(8)
	dirOff := sw.off
	sw.crc = hdrCRC
	for _, d := range sw.dir {
		sw.u64(d[0])
		sw.u64(d[1])
		sw.u64(d[2])
	}
	dirCRC := sw.crc
	var t [snapTrailer]byte
	binary.LittleEndian.PutUint64(t[0:], uint64(dirOff))
	binary.LittleEndian.PutUint32(t[8:], dirCRC)
	binary.LittleEndian.PutUint32(t[12:], snapVersion)
	copy(t[16:], snapMagic)
	sw.write(t[:])
	if sw.err != nil {
		return sw.err
	}
	return sw.w.Flush()
}

// snapFile is a parsed header and directory.
type snapFile struct {
	data                    []byte
	flags                   uint32
	seq                     int64
	ents, strs, terms, thrs int
	sketchDim               int
	sec                     [numSections][3]uint64
}

func parseSnapshot(data []byte) (*snapFile, error) {
	if len(data) < snapHeader+snapTrailer || string(data[:8]) != snapMagic {
		return nil, snapErr("not a snapshot")
	}
	le := binary.LittleEndian
	t := data[len(data)-snapTrailer:]
	if string(t[16:24]) != snapMagic || le.Uint32(t[12:]) != snapVersion {
		return nil, snapErr("cut short or of another version")
	}
	dirOff := le.Uint64(t[0:])
	if dirOff > uint64(len(data)-snapTrailer) || uint64(len(data)-snapTrailer)-dirOff != numSections*24 {
		return nil, snapErr("bad directory offset")
	}
	crc := crc32.Update(0, castagnoli(), data[:snapHeader])
	crc = crc32.Update(crc, castagnoli(), data[dirOff:dirOff+numSections*24])
	if crc != le.Uint32(t[8:]) {
		return nil, snapErr("header or directory checksum mismatch")
	}
	f := &snapFile{data: data, flags: le.Uint32(data[12:]), seq: int64(le.Uint64(data[16:])),
		ents: int(le.Uint64(data[24:])), strs: int(le.Uint64(data[32:])), terms: int(le.Uint64(data[40:])),
		thrs: int(le.Uint64(data[48:])), sketchDim: int(le.Uint64(data[56:]))}
	if le.Uint32(data[8:]) != snapVersion {
		return nil, snapErr("version %d", le.Uint32(data[8:]))
	}
	for i := range numSections {
		d := data[dirOff+uint64(24*i):]
		off, n := le.Uint64(d), le.Uint64(d[8:])
		if off > dirOff || n > dirOff-off {
			return nil, snapErr("section %d out of bounds", i)
		}
		f.sec[i] = [3]uint64{off, n, le.Uint64(d[16:])}
	}
	return f, nil
}

func (f *snapFile) section(i int) []byte {
	s := f.sec[i]
	return f.data[s[0] : s[0]+s[1] : s[0]+s[1]]
}

func (f *snapFile) check(i int, b []byte) error {
	if uint64(crc32.Checksum(b, castagnoli())) != f.sec[i][2] {
		return snapErr("section %d checksum mismatch", i)
	}
	return nil
}

// PeekSnapshot returns the header of the snapshot in data after checking
// its trailer and directory (not its sections).
func PeekSnapshot(data []byte) (SnapshotHeader, error) {
	f, err := parseSnapshot(data)
	if err != nil {
		return SnapshotHeader{}, err
	}
	return SnapshotHeader{Label: string(f.section(secLabel)), Seq: f.seq, Entries: f.ents}, nil
}

// SnapshotGrow returns a copy-on-write view of the n bytes at offset off
// of the snapshot with room for extra more bytes after them (a second
// mapping of the file), or nil when it cannot.
type SnapshotGrow func(off, n, extra int) []byte

// ReadSnapshot returns the namespace the snapshot in data holds, after
// checking every section's checksum; key decodes a row key. The result
// points into data (see above). grow, when not nil, maps the vectors and
// sketches with room to append without copying them.
func ReadSnapshot[K comparable](data []byte, key func(uint64) K, grow SnapshotGrow) (ns *Namespace[K], h SnapshotHeader, err error) {
	if !littleEndian {
		return nil, h, snapErr("big-endian host")
	}
	f, err := parseSnapshot(data)
	if err != nil {
		return nil, h, err
	}
	h = SnapshotHeader{Label: string(f.section(secLabel)), Seq: f.seq, Entries: f.ents}
	defer func() {
		if r := recover(); r != nil { // checksums passed but the content is inconsistent
			ns, err = nil, snapErr("inconsistent: %v", r)
		}
	}()
	// The big sections are checked on the other core while the rest is
	// decoded.
	sections := func(grown bool, idx int) []byte {
		b := f.section(idx)
		if grown && grow != nil && len(b) > 0 && f.sec[idx][0]%snapAlign == 0 {
			if g := grow(int(f.sec[idx][0]), len(b), len(b)/4+(1<<20)); g != nil {
				return g
			}
		}
		return b
	}
	vecB, signB := sections(true, secVecs), sections(true, secSigns)
	bigErr := make(chan error, 1)
	go func() { bigErr <- f.check(secSigns, signB) }()
	// The check must be over before returning, even on a panic: the
	// caller may unmap the bytes it reads.
	var berr error
	waited := false
	wait := func() {
		if !waited {
			waited, berr = true, <-bigErr
		}
	}
	defer wait()
	for _, i := range []int{secLabel, secStrings, secStringEnds, secEntries, secTags, secTerms, secPostingEnds,
		secThreads, secThreadPos, secSkEnt, secVecCRC, secVecMeta, secBlockCRC} {
		if err := f.check(i, f.section(i)); err != nil {
			return nil, h, err
		}
	}
	ns, err = decodeSnapshot(f, key, vecB, signB)
	if wait(); berr != nil {
		return nil, h, berr
	}
	if err != nil {
		return nil, h, err
	}
	return ns, h, nil
}

// castSlice views b as a slice of T (b's alignment suits T), keeping b's
// spare capacity.
func castSlice[T any](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if cap(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b[:1]))), cap(b)/size)[:len(b)/size]
}

func decodeSnapshot[K comparable](f *snapFile, key func(uint64) K, vecB, signB []byte) (*Namespace[K], error) {
	le := binary.LittleEndian
	strB := f.section(secStrings)
	ends := castSlice[uint64](f.section(secStringEnds))
	if len(ends) != f.strs {
		return nil, snapErr("string table")
	}
	strs := hugeSlice[string](f.strs, f.strs)
	defer filled(strs)
	from := uint64(0)
	for i, e := range ends {
		strs[i] = unsafe.String(unsafe.SliceData(strB[from:e]), int(e-from))
		from = e
	}
	entB := f.section(secEntries)
	if len(entB) != f.ents*entrySize {
		return nil, snapErr("entries")
	}
	tagRefs := castSlice[uint32](f.section(secTags))
	tags := make([]string, len(tagRefs))
	for i, r := range tagRefs {
		tags[i] = strs[r]
	}
	vecs := castSlice[int8](vecB)
	vmeta := castSlice[float32](f.section(secVecMeta))
	if len(vmeta) != 2*f.ents {
		return nil, snapErr("vector scales")
	}
	n := &Namespace[K]{pos: make(map[K]int, f.ents), byID: make(map[string]int, f.ents),
		ents: hugeSlice[Entry](f.ents, f.ents+f.ents/8+16), keys: make([]K, f.ents, f.ents+f.ents/8+16),
		vecs: vecs, kw: newKeywordIndex(f.ents)}
	defer filled(n.ents)
	arena := castSlice[int32](f.section(secArena))
	// The maps by key and by id are filled on other cores while the
	// entries are decoded.
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range f.ents {
			k := key(le.Uint64(entB[i*entrySize:]))
			n.pos[k], n.keys[i] = i, k
		}
	}()
	go func() {
		defer wg.Done()
		for i := range f.ents {
			if r := le.Uint32(entB[i*entrySize+64:]); int(r) < len(strs) {
				n.byID[strs[r]] = i
			}
		}
	}()
	defer wg.Wait()
	var docs int
	var total int64
	var live int
	for i := range f.ents {
		b := entB[i*entrySize : (i+1)*entrySize]
		e := &n.ents[i]
		e.ID = strs[le.Uint32(b[64:])]
		e.Layer = mnemo.Layer(strs[le.Uint32(b[68:])])
		e.Kind = mnemo.Kind(strs[le.Uint32(b[72:])])
		e.Scope = strs[le.Uint32(b[76:])]
		e.Component = strs[le.Uint32(b[80:])]
		e.Mission = strs[le.Uint32(b[84:])]
		e.Thread = strs[le.Uint32(b[88:])]
		e.Outcome = strs[le.Uint32(b[92:])]
		if tn := le.Uint32(b[100:]); tn > 0 {
			to := le.Uint32(b[96:])
			e.Tags = tags[to : to+tn : to+tn]
		}
		if on := le.Uint32(b[124:]) >> 8; on > 0 {
			to := le.Uint32(b[96:]) + le.Uint32(b[100:])
			if uint64(to)+uint64(on) > uint64(len(tags)) {
				return nil, snapErr("operators of entry %d out of bounds", i)
			}
			e.Operators = tags[to : to+on : to+on]
		}
		e.Seq = int64(le.Uint64(b[8:]))
		e.Created = int64(le.Uint64(b[16:]))
		e.ValidFrom = int64(le.Uint64(b[24:]))
		e.ValidTo = int64(le.Uint64(b[32:]))
		e.Criticality = math.Float64frombits(le.Uint64(b[40:]))
		e.AccessLevel = int(int64(le.Uint64(b[48:])))
		e.off = int(le.Uint64(b[56:]))
		e.dim = int(le.Uint32(b[104:]))
		e.sk = int(int32(le.Uint32(b[108:])))
		e.dl = int32(le.Uint32(b[112:]))
		e.tOff = int32(le.Uint32(b[116:]))
		e.tLen = int32(le.Uint32(b[120:]))
		fl := le.Uint32(b[124:])
		e.Deleted = fl&1 != 0
		e.indexed = fl&2 != 0
		e.Extracted = fl&4 != 0
		e.Importance = math.Float32frombits(le.Uint32(b[128:]))
		e.Confidence = math.Float32frombits(le.Uint32(b[132:]))
		e.Access = int64(le.Uint64(b[136:]))
		e.Updated = int64(le.Uint64(b[144:]))
		e.Tokens = int32(le.Uint32(b[152:]))
		if r := le.Uint32(b[156:]); int(r) >= len(strs) {
			return nil, snapErr("speaker of entry %d out of bounds", i)
		} else {
			e.Speaker = strs[r]
		}
		if an := le.Uint32(b[160:]); an > 0 {
			to := le.Uint32(b[96:]) + le.Uint32(b[100:]) + le.Uint32(b[124:])>>8
			if uint64(to)+uint64(an) > uint64(len(tags)) {
				return nil, snapErr("authors of entry %d out of bounds", i)
			}
			e.Authors = tags[to : to+an : to+an]
		}
		e.vs, e.ve = vmeta[2*i], vmeta[2*i+1]
		if e.dim > 0 && e.off+e.dim > len(vecs) {
			return nil, snapErr("vector of entry %d out of bounds", i)
		}
		if int(e.tOff)+int(e.tLen) > len(arena) || e.tOff < 0 || e.tLen < 0 {
			return nil, snapErr("terms of entry %d out of bounds", i)
		}
		if e.indexed {
			docs++
			total += int64(e.dl)
			live += int(e.tLen)
		}
		// e.hash stays 0: the text hash is per process, so the next write
		// of the row indexes its text again.
	}
	// Keyword index. The statistics per access level are counted from
	// the entries meanwhile.
	k := &n.kw
	k.arena = arena[:len(arena):len(arena)]
	// The postings and term lists are checked block by block as they
	// are first read (lazycrc.go).
	postB, arenaB := f.section(secPostings), f.section(secArena)
	blk := castSlice[uint32](f.section(secBlockCRC))
	np, na := lazyBlocks(len(postB)), lazyBlocks(len(arenaB))
	if len(blk) != np+na {
		return nil, snapErr("block checksums")
	}
	k.lazyPost = newLazySection(postB, blk[:np:np], &n.corrupt)
	k.lazyArena = newLazySection(arenaB, blk[np:], &n.corrupt)
	wg.Add(1)
	go func() {
		defer wg.Done()
		n.CountLevels()
	}()
	termRefs := castSlice[uint32](f.section(secTerms))
	pends := castSlice[uint64](f.section(secPostingEnds))
	posts := castSlice[posting](f.section(secPostings))
	if len(termRefs) != f.terms || len(pends) != f.terms {
		return nil, snapErr("terms")
	}
	k.terms = make(map[string]int32, len(termRefs)+len(termRefs)/4)
	k.names = make([]string, len(termRefs))
	k.postings = make([][]posting, len(termRefs))
	pfrom := uint64(0)
	for id, r := range termRefs {
		k.terms[strs[r]] = int32(id)
		k.names[id] = strs[r]
		pe := pends[id]
		k.postings[id] = posts[pfrom:pe:pe]
		pfrom = pe
	}
	if pfrom != uint64(len(posts)) {
		return nil, snapErr("postings")
	}
	k.postCap = int64(len(posts))
	k.live, k.docs, k.totalLen = live, docs, total
	// Thread order.
	thrB := castSlice[uint32](f.section(secThreads))
	thrPos := castSlice[int32](f.section(secThreadPos))
	if len(thrB) != 2*f.thrs {
		return nil, snapErr("threads")
	}
	if f.thrs > 0 {
		n.thr = make(threadMembers, f.thrs)
		at := 0
		for i := 0; i < f.thrs; i++ {
			name, cnt := strs[thrB[2*i]], int(thrB[2*i+1])
			n.thr[name] = thrPos[at : at+cnt : at+cnt]
			at += cnt
		}
		if at != len(thrPos) {
			return nil, snapErr("thread positions")
		}
		n.thrCap = int64(len(thrPos))
	}
	// Sketches.
	if f.flags&1 != 0 {
		n.sketching, n.builds, n.sketchDim = true, 1, f.sketchDim
		n.signs = castSlice[uint64](signB)
		n.skEnt = castSlice[int32](f.section(secSkEnt))
		n.skEnt = n.skEnt[:len(n.skEnt):len(n.skEnt)]
		words := 0
		if f.sketchDim > 0 {
			words = sketchWords(f.sketchDim)
		}
		if words*len(n.skEnt) != len(n.signs) {
			return nil, snapErr("sketches")
		}
		for i, p := range n.skEnt {
			if p < 0 || int(p) >= f.ents || n.ents[p].sk != i*words {
				return nil, snapErr("sketch slot %d", i)
			}
		}
	}
	// Vectors are checked one by one when first used (a search reads
	// few of them once sketches narrow it), or all now when there are no
	// sketches (the search reads all of them anyway).
	vcrc := castSlice[uint32](f.section(secVecCRC))
	if len(vcrc) != f.ents {
		return nil, snapErr("vector checksums")
	}
	n.vcrc = vcrc
	n.vok = make([]atomic.Uint64, (f.ents+63)/64)
	if !n.sketching && !n.VerifyVectors() {
		return nil, snapErr("vector checksum mismatch")
	}
	wg.Wait()
	if len(n.pos) != f.ents {
		return nil, snapErr("duplicate keys")
	}
	return n, nil
}

// int8Bytes views v as bytes.
func int8Bytes(v []int8) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v))
}

// snapVecs checks the vectors of a namespace read from a snapshot as they
// are first used, against the checksum of each the snapshot holds.
type snapVecs struct {
	vcrc    []uint32        // by entry position; positions beyond were added since
	vok     []atomic.Uint64 // bit i: vector i checked, or written since
	corrupt atomic.Bool     // a vector failed its check
}

// vecOK reports whether the vector of entry position i may be used: it
// was not read from a snapshot, was written since, or matches its
// checksum. A mismatch marks the namespace corrupt (see Corrupt). Safe
// under the read lock.
func (n *Namespace[K]) vecOK(i int) bool {
	if i >= len(n.vcrc) {
		return true
	}
	w, b := i/64, uint64(1)<<(i%64)
	if n.vok[w].Load()&b != 0 {
		return true
	}
	e := &n.ents[i]
	if e.dim > 0 && crc32.Checksum(int8Bytes(n.vecs[e.off:e.off+e.dim]), castagnoli()) != n.vcrc[i] {
		n.corrupt.Store(true)
		return false
	}
	n.vok[w].Or(b)
	return true
}

// vecWritten notes that the vector of entry position i was written (under
// the write lock).
func (n *Namespace[K]) vecWritten(i int) {
	if i < len(n.vcrc) {
		n.vok[i/64].Or(uint64(1) << (i % 64))
	}
}

// VerifyVectors checks every vector not checked yet and reports whether
// all match their checksums.
func (n *Namespace[K]) VerifyVectors() bool {
	for i := range n.vcrc {
		if !n.vecOK(i) {
			return false
		}
	}
	return !n.corrupt.Load()
}

// Corrupt reports whether a vector read from the snapshot the namespace
// was loaded from failed its check: searches skipped it, so their answers
// are to be discarded and the namespace loaded from its rows.
func (n *Namespace[K]) Corrupt() bool { return n.corrupt.Load() }
