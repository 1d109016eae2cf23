package memindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"io"
	"math"
	"slices"
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
// its rows in the same order. It also holds what reading it would
// otherwise recount from every entry: the keyword index's totals and
// per-access-level statistics (secStats), and the entries' positions by
// row key and by id (secByKey, secByID), so that a reader decodes an entry
// only when it first uses it (lazyents.go).
//
// Layout (little-endian): a fixed header, the sections, each aligned to 8
// bytes (the vectors and sketches to snapAlign, so that they can be
// mapped on their own), then the directory (offset, length and CRC-32C of
// each section) and a trailer holding the directory's offset, its CRC and
// the magic again. A file cut short, overwritten in part or written by
// another version fails the trailer, the directory's or a section's CRC
// and is refused as a whole. Eight sections are checked as they are used
// instead: each vector, each entry and the rest of each sketch against its
// own CRC (secVecCRC, secEntCRC, secRestCRC), and the strings, their ends,
// the scoring columns, the postings and the term lists by blocks of 4 KiB
// (secBlockCRC, lazycrc.go), so that a process that reads a few of them
// does not read them all.
//
// Reading maps the big arrays (entries, strings, vectors, sketches,
// postings, term lists, thread orders) in place: the Namespace then points into the bytes it was
// read from, which must stay valid and writable (a private copy-on-write
// mapping, or a heap buffer) for as long as the Namespace lives. Slices
// that point into them have no spare capacity, so growing one copies it
// out first; in-place edits (a vector rewritten, a posting deleted) write
// to the private copy.

const (
	snapMagic   = "MNEMOIX1"
	snapVersion = 10      // 2: entries' operators follow their tags; 3: int8 vectors and their scales; 4: ranking fields; 5: block checksums of the postings and term lists; 6: entries and strings checked by blocks, lookup tables by key and id, keyword statistics; 7: sketches round by round; 8: blocks of 4 KiB checked as read; 9: the sketches' rest checked slot by slot; 10: the entries' lengths apart
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
	secBlockCRC  // CRC-32C of each lazyBlock of secStrings, secStringEnds, secCols, secPostings and secArena, in that order (lazycrc.go)
	secByKey     // (key uint64, position uint32, 0 uint32) of each entry, by key
	secByID      // (id's string uint32, position uint32) of each entry, by id
	secStats     // the keyword index's totals and per-level statistics (writeStats)
	secEntCRC    // CRC-32C of each entry of secEntries (lazyents.go)
	secCols      // what keyword scoring reads of each entry (scoreCols), without decoding it (lazyents.go)
	secSignsRest // the sketches' rounds after the first (secSigns holds the first; signTable)
	secRestCRC   // CRC-32C of each slot's part of secSignsRest, checked as a search reads it
	secDL        // each entry's length in terms, 2 bytes (keywordIndex.dls)
	numSections
)

// signSections are the sections of the parts of the sketches
// (signTable.parts), in order.
var signSections = [2]int{secSigns, secSignsRest}

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

// section32 writes a section holding vs.
func (s *snapWriter) section32(sec int, vs []uint32) {
	s.begin(sec, 8)
	for _, v := range vs {
		s.u32(v)
	}
	s.end()
}

func (s *snapWriter) u16(v uint16) {
	binary.LittleEndian.PutUint16(s.buf[:2], v)
	s.write(s.buf[:2])
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
	newPos := make([]int32, n.Len())
	live := make([]int32, 0, n.Len())
	for i := range n.Len() {
		newPos[i] = -1
		if n.ent(i).Seq != -1 {
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
		e := n.ent(int(i))
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

	sw.beginBlocks(secStrings, 8)
	for _, s := range strs {
		sw.write(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	sw.endBlocks()
	sw.beginBlocks(secStringEnds, 8)
	end := uint64(0)
	for _, s := range strs {
		end += uint64(len(s))
		sw.u64(end)
	}
	sw.endBlocks()

	// Vectors, arena and sketches are renumbered as the entries are.
	var vecOff, tOff, skOff uint64
	entCRC := make([]uint32, 0, len(live))
	sw.begin(secEntries, 8)
	var eb [entrySize]byte
	for j, i := range live {
		e := n.ent(int(i))
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
			skOff++
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
		entCRC = append(entCRC, crc32.Checksum(eb[:], castagnoli()))
		vecOff += uint64(e.dim)
		tOff += uint64(e.tLen)
	}
	sw.end()
	sw.section32(secEntCRC, entCRC)
	sw.beginBlocks(secCols, 8)
	for _, i := range live {
		e := n.ent(int(i))
		deleted := uint32(0)
		if e.Deleted {
			deleted = 1
		}
		sw.u32(uint32(e.dl))
		sw.u32(uint32(int32(min(e.AccessLevel, math.MaxInt32))))
		sw.u32(deleted)
		sw.u32(0)
		sw.u64(uint64(e.ValidFrom))
		sw.u64(uint64(e.ValidTo))
	}
	sw.endBlocks()

	sw.section32(secTags, tags)

	sw.section32(secTerms, termRefs)

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
		e := n.ent(int(i))
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
			if n.ent(int(i)).sk >= 0 {
				sw.u32(uint32(j))
			}
		}
	}
	sw.end()

	sw.begin(secVecCRC, 8)
	for _, i := range live {
		e := n.ent(int(i))
		c := uint32(0)
		if e.dim > 0 {
			c = crc32.Checksum(int8Bytes(n.vecs[e.off:e.off+e.dim]), castagnoli())
		}
		sw.u32(c)
	}
	sw.end()

	sw.begin(secVecMeta, 8)
	for _, i := range live {
		e := n.ent(int(i))
		sw.u32(math.Float32bits(e.vs))
		sw.u32(math.Float32bits(e.ve))
	}
	sw.end()

	sw.begin(secVecs, snapAlign)
	for _, i := range live {
		e := n.ent(int(i))
		if e.dim > 0 {
			sw.write(int8Bytes(n.vecs[e.off : e.off+e.dim]))
		}
	}
	sw.end()

	for p, sec := range signSections {
		sw.begin(sec, snapAlign)
		if n.sketching {
			part := *n.signs.parts()[p]
			w := len(part) / max(n.signs.len(), 1) // words of a slot in this part
			for _, i := range live {
				if sk := n.ent(int(i)).sk; sk >= 0 {
					for _, x := range part[sk*w : (sk+1)*w] {
						sw.u64(x)
					}
				}
			}
		}
		sw.end()
	}
	sw.begin(secDL, 8)
	for _, i := range live {
		dl := uint16(0)
		if e := n.ent(int(i)); e.indexed {
			dl = uint16(min(e.dl, dlUnknown))
		}
		sw.u16(dl)
	}
	sw.end()

	sw.begin(secRestCRC, 8)
	if n.sketching {
		w := len(n.signs.rest) / max(n.signs.len(), 1)
		for _, i := range live {
			if sk := n.ent(int(i)).sk; sk >= 0 {
				sw.u32(restChecksum(n.signs.rest[sk*w : (sk+1)*w]))
			}
		}
	}
	sw.end()

	// Lookup tables by key and by id, and the keyword statistics.
	byKey := make([]int32, len(live))
	for j := range byKey {
		byKey[j] = int32(j)
	}
	byID := slices.Clone(byKey)
	sort.Slice(byKey, func(a, b int) bool { return key(keys[live[byKey[a]]]) < key(keys[live[byKey[b]]]) })
	sort.SliceStable(byID, func(a, b int) bool {
		ia, ib := n.ent(int(live[byID[a]])).ID, n.ent(int(live[byID[b]])).ID
		return ia < ib || (ia == ib && byID[a] > byID[b]) // a repeated id: the later entry first, as a map by id holds it
	})
	sw.begin(secByKey, 8)
	for _, j := range byKey {
		sw.u64(key(keys[live[j]]))
		sw.u64(uint64(j))
	}
	sw.end()
	sw.begin(secByID, 8)
	for _, j := range byID {
		sw.u32(refs[j].s[0])
		sw.u32(uint32(j))
	}
	sw.end()
	sw.begin(secStats, 8)
	n.writeStats(sw, live)
	sw.end()

	sw.section32(secBlockCRC, sw.blkCRCs)

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
func ReadSnapshot[K comparable](data []byte, key func(uint64) K, enc func(K) uint64, grow SnapshotGrow) (ns *Namespace[K], h SnapshotHeader, err error) {
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
	vecB := sections(true, secVecs)
	var signB [2][]byte
	for r, sec := range signSections {
		signB[r] = sections(true, sec)
	}
	bigErr := make(chan error, 1)
	// The rest of the sketches is checked slot by slot as searches read it
	// (signTable.restValid).
	go func() { bigErr <- f.check(secSigns, signB[0]) }()
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
	for _, i := range []int{secLabel, secTags, secTerms, secPostingEnds, secThreads, secThreadPos, secSkEnt,
		secVecCRC, secVecMeta, secBlockCRC, secByKey, secByID, secStats, secEntCRC, secRestCRC, secDL} {
		if err := f.check(i, f.section(i)); err != nil {
			return nil, h, err
		}
	}
	ns, err = decodeSnapshot(f, key, enc, vecB, signB)
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

func decodeSnapshot[K comparable](f *snapFile, key func(uint64) K, enc func(K) uint64, vecB []byte, signB [2][]byte) (*Namespace[K], error) {
	n := &Namespace[K]{pos: map[K]int{}, byID: map[string]int{},
		keys: make([]K, f.ents, f.ents+f.ents/8+16),
		vecs: castSlice[int8](vecB), kw: newKeywordIndex(f.ents)}
	// The sections checked block by block, in the order of their blocks'
	// checksums.
	blk := castSlice[uint32](f.section(secBlockCRC))
	lazy := [5]*lazySection{}
	for j, sec := range []int{secStrings, secStringEnds, secCols, secPostings, secArena} {
		b := f.section(sec)
		nb := lazyBlocks(len(b))
		if len(blk) < nb {
			return nil, snapErr("block checksums")
		}
		lazy[j] = newLazySection(b, blk[:nb:nb], &n.corrupt)
		blk = blk[nb:]
	}
	if len(blk) != 0 {
		return nil, snapErr("block checksums")
	}
	ends := castSlice[uint64](f.section(secStringEnds))
	entB := f.section(secEntries)
	if len(ends) != f.strs || len(entB) != f.ents*entrySize {
		return nil, snapErr("string or entry table")
	}
	vmeta := castSlice[float32](f.section(secVecMeta))
	if len(vmeta) != 2*f.ents {
		return nil, snapErr("vector scales")
	}
	arena := castSlice[int32](f.section(secArena))
	l := &lazyEnts[K]{count: f.ents, slot: hugeScratch[atomic.Int32](f.ents), dense: hugeSlice[Entry](f.ents, f.ents),
		entB: entB, entCRC: castSlice[uint32](f.section(secEntCRC)), cols: castSlice[scoreCols](f.section(secCols)), colSec: lazy[2],
		threadOf: make([]int32, f.ents), strB: f.section(secStrings), strs: lazy[0], ends: ends, endSec: lazy[1],
		tagRefs: castSlice[uint32](f.section(secTags)), vmeta: vmeta, vecLen: len(n.vecs), arenaLen: len(arena),
		key: key, enc: enc, byKey: f.section(secByKey), byID: castSlice[uint32](f.section(secByID)), idMemo: make([]atomic.Pointer[idMemoEntry], idMemoSize(f.ents)), idSeed: maphash.MakeSeed(),
		corruptFlg: &n.corrupt}
	if len(l.byKey) != 16*f.ents || len(l.byID) != 2*f.ents || len(l.entCRC) != f.ents || len(l.cols) != f.ents {
		return nil, snapErr("lookup tables")
	}
	le := binary.LittleEndian
	for j := 1; j < f.ents; j++ { // strictly ascending: one entry per key
		if le.Uint64(l.byKey[16*j:]) <= le.Uint64(l.byKey[16*(j-1):]) {
			return nil, snapErr("lookup table by key")
		}
	}
	n.lazy = l
	str := func(r uint32) string {
		v, ok := l.str(r)
		if !ok {
			panic(snapErr("string %d", r)) // recovered by ReadSnapshot
		}
		return v
	}
	// Keyword index.
	k := &n.kw
	k.arena = arena[:len(arena):len(arena)]
	k.lazyPost, k.lazyArena = lazy[3], lazy[4]
	// Postings name entries, and term lists terms, that exist (lazycrc.go:
	// blocks start at multiples of 8 bytes, so none splits a value).
	ents, terms := int32(f.ents), int32(f.terms)
	k.lazyPost.valid = func(b []byte) bool {
		for _, p := range castSlice[posting](b) {
			if p.ent < 0 || p.ent >= ents || p.tf <= 0 {
				return false
			}
		}
		return true
	}
	k.lazyArena.valid = func(b []byte) bool {
		for _, t := range castSlice[int32](b) {
			if t < 0 || t >= terms {
				return false
			}
		}
		return true
	}
	if err := k.readStats(f.section(secStats), f.ents, f.terms); err != nil {
		return nil, err
	}
	k.dls = castSlice[uint16](f.section(secDL))
	if len(k.dls) != f.ents {
		return nil, snapErr("entry lengths")
	}
	k.dls = k.dls[:f.ents:f.ents] // appending copies it out
	termRefs := castSlice[uint32](f.section(secTerms))
	pends := castSlice[uint64](f.section(secPostingEnds))
	posts := castSlice[posting](f.section(secPostings))
	if len(termRefs) != f.terms || len(pends) != f.terms {
		return nil, snapErr("terms")
	}
	k.terms = make(map[string]int32, len(termRefs)+len(termRefs)/4)
	k.names = make([]string, len(termRefs))
	pfrom := uint64(0)
	k.postings = make([][]posting, len(termRefs))
	for id, r := range termRefs {
		t := str(r)
		k.terms[t] = int32(id)
		k.names[id] = t
		pe := pends[id]
		if pe < pfrom || pe > uint64(len(posts)) {
			return nil, snapErr("postings")
		}
		k.postings[id] = posts[pfrom:pe:pe]
		pfrom = pe
	}
	if pfrom != uint64(len(posts)) {
		return nil, snapErr("postings")
	}
	k.postCap = int64(len(posts))
	// Thread order.
	thrB := castSlice[uint32](f.section(secThreads))
	thrPos := castSlice[int32](f.section(secThreadPos))
	if len(thrB) != 2*f.thrs {
		return nil, snapErr("threads")
	}
	for i := range l.threadOf {
		l.threadOf[i] = -1
	}
	if f.thrs > 0 {
		n.thr = make(threadMembers, f.thrs)
		l.threadNames = make([]string, f.thrs)
		at := 0
		for i := 0; i < f.thrs; i++ {
			name, cnt := str(thrB[2*i]), int(thrB[2*i+1])
			if at+cnt > len(thrPos) {
				return nil, snapErr("thread positions")
			}
			n.thr[name] = thrPos[at : at+cnt : at+cnt]
			l.threadNames[i] = name
			for _, p := range thrPos[at : at+cnt] {
				if p < 0 || int(p) >= f.ents {
					return nil, snapErr("thread positions")
				}
				l.threadOf[p] = int32(i)
			}
			at += cnt
		}
		if at != len(thrPos) {
			return nil, snapErr("thread positions")
		}
		n.thrCap = int64(len(thrPos))
	}
	// Sketches: each entry's slot is checked against skEnt as the entry
	// is decoded.
	if f.flags&1 != 0 {
		n.sketching, n.builds, n.sketchDim = true, 1, f.sketchDim
		n.skEnt = castSlice[int32](f.section(secSkEnt))
		n.skEnt = n.skEnt[:len(n.skEnt):len(n.skEnt)]
		words := 0
		if f.sketchDim > 0 {
			words = sketchWords(f.sketchDim)
		}
		n.signs.per = words / sketchRounds
		for p, w := range [2]int{n.signs.per, words - n.signs.per} {
			part := n.signs.parts()[p]
			*part = castSlice[uint64](signB[p])
			if len(*part) != w*len(n.skEnt) || len(signB[p])%8 != 0 {
				return nil, snapErr("sketches")
			}
		}
		n.signs.restCRC = castSlice[uint32](f.section(secRestCRC))
		if len(n.signs.restCRC) != len(n.skEnt) {
			return nil, snapErr("sketch checksums")
		}
		n.signs.restOK = populated[atomic.Uint64]((len(n.skEnt) + 63) / 64)
		n.signs.bad = &n.corrupt
		for i, p := range n.skEnt {
			if p < 0 || int(p) >= f.ents {
				return nil, snapErr("sketch slot %d", i)
			}
		}
		l.skEnt, l.words = n.skEnt, words
		// Every vector in a slot of its own, all of the sketches'
		// dimension: the snapshot wrote both in the order of the live
		// entries, so slot k's codes are the k-th (slotScore).
		l.slotVecs = f.sketchDim > 0 && len(n.vecs) == len(n.skEnt)*f.sketchDim
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
	if n.corrupt.Load() {
		return nil, snapErr("entries")
	}
	return n, nil
}

// writeStats writes the keyword index's totals and per-access-level
// statistics over the live entries (positions renumbered as in live),
// which readStats reads back instead of counting them from every entry:
// docs, total length and arena slots in use, then each level above 0
// (level, docs, total length, number of terms, then term << 32 | df for
// each), then the positions counted at a level (position << 32 | level).
func (n *Namespace[K]) writeStats(sw *snapWriter, live []int32) {
	var docs, total, slots int64
	type lvStats struct {
		docs, total int64
		df          map[int32]int32
	}
	levels := map[int32]*lvStats{}
	var acct []uint64
	for j, i := range live {
		e := n.ent(int(i))
		if !e.indexed {
			continue
		}
		docs++
		total += int64(e.dl)
		slots += int64(e.tLen)
		lv := int32(min(e.AccessLevel, mnemo.MaxAccessLevel))
		if lv == 0 {
			continue
		}
		ls := levels[lv]
		if ls == nil {
			ls = &lvStats{df: map[int32]int32{}}
			levels[lv] = ls
		}
		ls.docs++
		ls.total += int64(e.dl)
		for _, t := range n.kw.arena[e.tOff : e.tOff+e.tLen] {
			ls.df[t]++
		}
		acct = append(acct, uint64(j)<<32|uint64(uint32(lv)))
	}
	sw.u64(uint64(docs))
	sw.u64(uint64(total))
	sw.u64(uint64(slots))
	lvs := make([]int32, 0, len(levels))
	for lv := range levels {
		lvs = append(lvs, lv)
	}
	slices.Sort(lvs)
	sw.u64(uint64(len(lvs)))
	for _, lv := range lvs {
		ls := levels[lv]
		sw.u64(uint64(uint32(lv)))
		sw.u64(uint64(ls.docs))
		sw.u64(uint64(ls.total))
		terms := make([]int32, 0, len(ls.df))
		for t := range ls.df {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		sw.u64(uint64(len(terms)))
		for _, t := range terms {
			sw.u64(uint64(uint32(t))<<32 | uint64(uint32(ls.df[t])))
		}
	}
	sw.u64(uint64(len(acct)))
	for _, a := range acct {
		sw.u64(a)
	}
}

// readStats reads what writeStats wrote, for ents entries and terms terms.
func (k *keywordIndex) readStats(b []byte, ents, terms int) error {
	v := castSlice[uint64](b)
	at := 0
	next := func() uint64 {
		if at >= len(v) {
			panic(snapErr("keyword statistics cut short")) // recovered by ReadSnapshot
		}
		at++
		return v[at-1]
	}
	docs, total, slots := next(), next(), next()
	if docs > uint64(ents) || slots > uint64(k.lazyArenaLen()) || total > math.MaxInt64 {
		return snapErr("keyword statistics")
	}
	k.docs, k.totalLen, k.live = int(docs), int64(total), int(slots)
	nl := next()
	if nl > mnemo.MaxAccessLevel {
		return snapErr("keyword statistics: levels")
	}
	for range nl {
		lv, ld, lt, nt := next(), next(), next(), next()
		if lv == 0 || lv > mnemo.MaxAccessLevel || ld == 0 || ld > docs || lt > total || nt > uint64(terms) {
			return snapErr("keyword statistics: level %d", lv)
		}
		ls := &levelStats{docs: int(ld), totalLen: int64(lt), df: make(map[int32]int32, nt)}
		for range nt {
			x := next()
			t, df := int32(x>>32), int32(uint32(x))
			if t < 0 || int(t) >= terms || df <= 0 {
				return snapErr("keyword statistics: level %d", lv)
			}
			ls.df[t] = df
		}
		if k.levels == nil {
			k.levels = map[int32]*levelStats{}
		}
		k.levels[int32(lv)] = ls
	}
	na := next()
	if na > uint64(ents) {
		return snapErr("keyword statistics: positions")
	}
	if na > 0 {
		k.acct = make([]int32, ents)
	}
	for range na {
		x := next()
		pos, lv := x>>32, uint32(x)
		if pos >= uint64(ents) || lv == 0 || lv > mnemo.MaxAccessLevel {
			return snapErr("keyword statistics: positions")
		}
		k.acct[pos] = int32(lv)
	}
	if at != len(v) {
		return snapErr("keyword statistics: trailing data")
	}
	return nil
}

// lazyArenaLen is the length of the arena in term ids.
func (k *keywordIndex) lazyArenaLen() int { return len(k.arena) }

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
	if n.vok[i/64].Load()&(uint64(1)<<(i%64)) != 0 {
		return true // checked before: the entry need not be read
	}
	e := n.ent(i)
	return n.codesOK(i, n.vecs[e.off:e.off+e.dim])
}

// codesOK is vecOK of the entry at position i given its codes, for a
// caller that knows where they lie without reading the entry (slotScore).
func (n *Namespace[K]) codesOK(i int, codes []int8) bool {
	if i >= len(n.vcrc) {
		return true
	}
	w, b := i/64, uint64(1)<<(i%64)
	if n.vok[w].Load()&b != 0 {
		return true
	}
	if len(codes) > 0 && crc32.Checksum(int8Bytes(codes), castagnoli()) != n.vcrc[i] {
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

// VerifyVectors checks every vector and every sketch's rest (signTable)
// not checked yet and reports whether all match their checksums.
func (n *Namespace[K]) VerifyVectors() bool {
	for i := range n.vcrc {
		if !n.vecOK(i) {
			return false
		}
	}
	for k := range n.signs.restCRC {
		if !n.signs.restValid(k) {
			return false
		}
	}
	return !n.corrupt.Load()
}

// Corrupt reports whether a vector read from the snapshot the namespace
// was loaded from failed its check: searches skipped it, so their answers
// are to be discarded and the namespace loaded from its rows.
func (n *Namespace[K]) Corrupt() bool { return n.corrupt.Load() }
