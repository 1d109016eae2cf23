package memindex

import (
	"hash/crc32"
	"sync/atomic"
	"unsafe"
)

// The postings and the term lists of a snapshot are not checked when it is
// read: a one-shot command reads the postings of a few query terms and the
// term lists of a few hundred candidates, and checking all of them (18 MB
// at 100,000 records) made it fault in every page. Each 4 KiB block of
// the two sections (and of the strings, their ends and the scoring
// columns) has its own CRC-32C instead (section secBlockCRC,
// itself checked when the snapshot is read), checked the first time
// anything in the block is read. A mismatch marks the namespace corrupt
// (Corrupt), as a damaged vector does: the read that found it uses nothing
// of the block, and the store loads the namespace from its rows and reads
// again.

// lazyBlock is the size of a block checked on first use: a page, since
// the entries a one-shot command reads lie scattered (with blocks of 64
// KiB, checking the strings and term lists of the few hundred entries a
// digest decodes at 100,000 records read most of both sections).
const lazyBlock = 1 << 12

// lazySection is a section of a snapshot read in place whose blocks are
// checked on first use.
type lazySection struct {
	data []byte          // the section as read
	crcs []uint32        // CRC-32C of each lazyBlock bytes of data
	ok   []atomic.Uint64 // bit b: block b checked
	bad  *atomic.Bool    // the namespace's corrupt flag
	// valid, when set, checks a block's content once its checksum
	// matched: what a file whose checksums were recomputed after a change
	// could still get wrong (a position out of range), which the reads
	// that trust the block would index with.
	valid func(block []byte) bool
}

func newLazySection(data []byte, crcs []uint32, bad *atomic.Bool) *lazySection {
	return &lazySection{data: data, crcs: crcs, ok: make([]atomic.Uint64, (len(crcs)+63)/64), bad: bad}
}

// lazyBlocks is the number of blocks of a section of n bytes.
func lazyBlocks(n int) int { return (n + lazyBlock - 1) / lazyBlock }

// checkBytes reports whether the n bytes at p may be read: they are not
// in the section (a slice copied out of it, or appended since), or every
// block they touch matches its checksum. Safe under the read lock.
func (l *lazySection) checkBytes(p unsafe.Pointer, n int) bool {
	if l == nil || n <= 0 || len(l.data) == 0 {
		return true
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(l.data)))
	at := uintptr(p)
	if at < base || at >= base+uintptr(len(l.data)) {
		return true
	}
	off := int(at - base)
	last := min(off+n, len(l.data)) - 1
	for b := off / lazyBlock; b <= last/lazyBlock; b++ {
		if !l.checkBlock(b) {
			return false
		}
	}
	return true
}

// checkBlock checks block b once; a mismatch marks the namespace corrupt.
func (l *lazySection) checkBlock(b int) bool {
	w, bit := b/64, uint64(1)<<(b%64)
	if l.ok[w].Load()&bit != 0 {
		return true
	}
	end := min((b+1)*lazyBlock, len(l.data))
	if crc32.Checksum(l.data[b*lazyBlock:end], castagnoli()) != l.crcs[b] ||
		(l.valid != nil && !l.valid(l.data[b*lazyBlock:end])) {
		l.bad.Store(true)
		return false
	}
	l.ok[w].Or(bit)
	return true
}

// checkAll checks every block not checked yet.
func (l *lazySection) checkAll() bool {
	if l == nil {
		return true
	}
	for b := range l.crcs {
		if !l.checkBlock(b) {
			return false
		}
	}
	return true
}

// postingsOK reports whether the postings of term id may be read (see
// lazySection.checkBytes).
func (k *keywordIndex) postingsOK(id int32) bool {
	ps := k.postings[id]
	if k.lazyPost == nil || len(ps) == 0 {
		return true
	}
	return k.lazyPost.checkBytes(unsafe.Pointer(unsafe.SliceData(ps)), len(ps)*int(unsafe.Sizeof(posting{})))
}

// termsOK reports whether e's term ids in the arena may be read.
func (k *keywordIndex) termsOK(e *Entry) bool {
	if k.lazyArena == nil || e.tLen == 0 {
		return true
	}
	ts := k.arena[e.tOff : e.tOff+e.tLen]
	return k.lazyArena.checkBytes(unsafe.Pointer(unsafe.SliceData(ts)), 4*len(ts))
}

// arenaInPlace reports whether the arena is still the snapshot's (so that
// appending to it copies it: every block is checked first).
func (k *keywordIndex) arenaInPlace() bool {
	if k.lazyArena == nil || len(k.arena) == 0 || len(k.lazyArena.data) == 0 {
		return false
	}
	return unsafe.Pointer(unsafe.SliceData(k.arena)) == unsafe.Pointer(unsafe.SliceData(k.lazyArena.data))
}

// checkedAll checks every block of both sections (before the whole index
// is read: a snapshot written, the arena compacted or copied).
func (k *keywordIndex) checkedAll() bool {
	return k.lazyPost.checkAll() && k.lazyArena.checkAll()
}
