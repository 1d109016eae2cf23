package memindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// reseal recomputes every checksum of a snapshot (sections, blocks,
// entries, vectors, header and directory) after its bytes were changed,
// as someone forging one would; false when its structure is beyond that.
func reseal(b []byte) bool {
	f, err := parseSnapshot(b)
	if err != nil {
		return false
	}
	tab := castagnoli()
	le := binary.LittleEndian
	// Per-entry and per-vector checksums first: they are sections too.
	entB, ecrc := f.section(secEntries), f.section(secEntCRC)
	for i := 0; i < f.ents && (i+1)*entrySize <= len(entB) && 4*(i+1) <= len(ecrc); i++ {
		le.PutUint32(ecrc[4*i:], crc32.Checksum(entB[i*entrySize:(i+1)*entrySize], tab))
	}
	vecs, vcrc := f.section(secVecs), f.section(secVecCRC)
	for i := 0; i < f.ents && (i+1)*entrySize <= len(entB) && 4*(i+1) <= len(vcrc); i++ {
		e := entB[i*entrySize:]
		off, dim := le.Uint64(e[56:]), uint64(le.Uint32(e[104:]))
		c := uint32(0)
		if dim > 0 && off <= uint64(len(vecs)) && dim <= uint64(len(vecs))-off {
			c = crc32.Checksum(vecs[off:off+dim], tab)
		}
		le.PutUint32(vcrc[4*i:], c)
	}
	blk := f.section(secBlockCRC)
	at := 0
	for _, sec := range []int{secStrings, secStringEnds, secCols, secPostings, secArena} {
		s := f.section(sec)
		for o := 0; o < len(s); o += lazyBlock {
			if at+4 > len(blk) {
				return false
			}
			le.PutUint32(blk[at:], crc32.Checksum(s[o:min(o+lazyBlock, len(s))], tab))
			at += 4
		}
	}
	dirOff := le.Uint64(b[len(b)-snapTrailer:])
	for i := range numSections {
		le.PutUint64(b[dirOff+uint64(24*i)+16:], uint64(crc32.Checksum(f.section(i), tab)))
	}
	crc := crc32.Update(0, tab, b[:snapHeader])
	crc = crc32.Update(crc, tab, b[dirOff:dirOff+numSections*24])
	le.PutUint32(b[len(b)-snapTrailer+8:], crc)
	return true
}

// forgedBase returns a snapshot of 120 random rows with sketches.
func forgedBase(tb testing.TB) []byte {
	n, _ := sketchedRows(5, 120, 8)
	var buf bytes.Buffer
	if err := n.WriteSnapshot(&buf, "label", 3, func(k int64) uint64 { return uint64(k) }); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// forge changes 8 bytes at offset off of section sec of b by v and
// reseals it; false when there is nothing to change.
func forge(b []byte, sec int, off uint32, v uint64) bool {
	f, err := parseSnapshot(b)
	if err != nil || f.sec[sec][1] == 0 {
		return false
	}
	s := f.section(sec)
	i := int(off % uint32(len(s)))
	for k := 0; k < 8 && i+k < len(s); k++ {
		s[i+k] ^= byte(v >> (8 * k))
	}
	return reseal(b)
}

// searchAll reads and searches m every way a store does; a forged
// snapshot must not make any of it panic.
func searchAll(m *Namespace[int64]) {
	c := Compile(mnemo.Scope{Clearance: 10}, mnemo.Filter{}, time.Unix(0, 3000))
	for _, terms := range [][]string{{"alpha"}, {"beta", "gamma"}, m.kw.names[:min(3, len(m.kw.names))]} {
		m.Keyword(terms, 1<<20, c, 10)
		m.IDF(terms, 1)
	}
	q := make([]float32, 8)
	for j := range q {
		q[j] = float32(j%3) - 1
	}
	qv, _ := Normalize(q)
	m.Vector(qv, c, 10)
	ids := make([]string, 0, 131)
	for k := int64(0); k <= 130; k++ {
		m.Match(k, c)
		id := fmt.Sprintf("r%05d", k)
		ids = append(ids, id)
		m.ByID(id)
		m.TermsOf(id, 10)
		m.Next(id, c)
	}
	m.RankFields("ns", ids, 10, qv)
	m.NextOf(ids, c)
	m.decodeAll()
	m.MemoryBytes()
}

// TestSnapshotForged: a snapshot changed in any section and resealed
// (every checksum recomputed, as a forger would) is refused, or read and
// searched without a panic.
func TestSnapshotForged(t *testing.T) {
	good := forgedBase(t)
	key := func(k uint64) int64 { return int64(k) }
	enc := func(k int64) uint64 { return uint64(k) }
	for sec := range numSections {
		for step := uint32(0); step < 40; step++ {
			for _, v := range []uint64{0xff, 0x80000000, 0xffffffff00000000, 0x0101010101010101} {
				b := slices.Clone(good)
				if !forge(b, sec, step*997, v) {
					continue
				}
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("section %d, offset %d, xor %#x: panic %v", sec, step*997, v, r)
						}
					}()
					if m, _, err := ReadSnapshot(b, key, enc, nil); err == nil {
						searchAll(m)
					}
				}()
			}
		}
	}
}

// FuzzSnapshotForged is TestSnapshotForged on any change.
func FuzzSnapshotForged(f *testing.F) {
	good := forgedBase(f)
	f.Add(uint8(secPostings), uint32(0), uint64(0xffff))
	f.Add(uint8(secEntries), uint32(60), uint64(1<<40))
	f.Fuzz(func(t *testing.T, sec uint8, off uint32, v uint64) {
		b := slices.Clone(good)
		if !forge(b, int(sec)%numSections, off, v) {
			return
		}
		if m, _, err := ReadSnapshot(b, func(k uint64) int64 { return int64(k) }, func(k int64) uint64 { return uint64(k) }, nil); err == nil {
			searchAll(m)
		}
	})
}

// TestSketchSlotLayoutForged: a vector search over a snapshot scores the
// entries it has not read yet from the codes their sketch slot names (the
// k-th), and checks each one it then reads: an entry whose vector lies
// elsewhere (two entries' offsets swapped, their codes made equal so that
// every checksum still holds) flags the snapshot as damaged rather than
// being answered from codes that are not its own.
func TestSketchSlotLayoutForged(t *testing.T) {
	good := forgedBase(t)
	f, err := parseSnapshot(good)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	b := slices.Clone(good)
	f, _ = parseSnapshot(b)
	entB, vecs := f.section(secEntries), f.section(secVecs)
	const i, j = 3, 40
	ei, ej := entB[i*entrySize:], entB[j*entrySize:]
	offI, offJ, dim := le.Uint64(ei[56:]), le.Uint64(ej[56:]), uint64(le.Uint32(ei[104:]))
	if dim == 0 || offI != 3*dim || offJ != 40*dim {
		t.Fatalf("unexpected layout: offsets %d, %d, dimension %d", offI, offJ, dim)
	}
	copy(vecs[offI:offI+dim], vecs[offJ:offJ+dim])
	le.PutUint64(ei[56:], offJ)
	le.PutUint64(ej[56:], offI)
	if !reseal(b) {
		t.Fatal("reseal")
	}
	m := readSnap(t, b)
	if !m.lazy.slotVecs {
		t.Fatal("the snapshot's vectors are not taken as laid out by slot")
	}
	// Query with the shared vector itself: both entries are candidates.
	q := make([]float32, dim)
	for d := range q {
		q[d] = float32(int8(vecs[offJ+uint64(d)]))
	}
	qv, _ := Normalize(q)
	m.Vector(qv, Compile(mnemo.Scope{Clearance: 10}, mnemo.Filter{}, time.Unix(0, 3000)), 10)
	if !m.Corrupt() {
		t.Fatal("entries whose vectors are not where their slots put them were not flagged")
	}
	// The sound snapshot answers as the same namespace decoded whole,
	// reading fewer entries than the candidates it scores.
	m = readSnap(t, slices.Clone(good))
	d := readSnap(t, slices.Clone(good))
	d.decodeAll()
	c := Compile(mnemo.Scope{Clearance: 10}, mnemo.Filter{}, time.Unix(0, 3000))
	got, want := m.Vector(qv, c, 5), d.Vector(qv, c, 5)
	if !slices.EqualFunc(got, want, func(a, b mnemo.Hit) bool { return a.ID == b.ID && a.Score == b.Score }) {
		t.Fatalf("lazy %v, decoded %v", got, want)
	}
	if m.Corrupt() {
		t.Fatal("a sound snapshot flagged")
	}
	if read, pool := m.lazy.next.Load(), sketchPool(5, m.Len()); read >= int64(pool) {
		t.Fatalf("%d entries read for a pool of %d", read, pool)
	}
	// Scored before it is read, an entry is still filtered once read: a
	// caller of clearance 0 gets no record above it, nor a deleted one,
	// from a namespace none of whose entries were read yet.
	m = readSnap(t, slices.Clone(good))
	low := Compile(mnemo.Scope{Clearance: 0}, mnemo.Filter{}, time.Unix(0, 3000))
	hits := m.Vector(qv, low, 20)
	if len(hits) == 0 {
		t.Fatal("no hit at clearance 0")
	}
	for _, h := range hits {
		if e := m.ByID(h.ID); e == nil || e.AccessLevel > 0 || e.Deleted {
			t.Fatalf("clearance 0 got %s: %+v", h.ID, e)
		}
	}
	_ = f
}
