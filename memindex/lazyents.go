package memindex

import (
	"encoding/binary"
	"hash/crc32"
	"hash/maphash"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/mnemo-dev/mnemo"
)

// The entries of a snapshot are decoded one by one as they are first used.
//
// A one-shot command (a hook, `mnemo digest`) reads a snapshot of 100,000
// records to rank a few thousand of them: decoding every entry, and
// filling the maps by key and by id, was most of its CPU and grew with the
// store. So a namespace read from a snapshot keeps the snapshot's entry
// table, string table and two sorted lookup tables in place (secByKey,
// secByID) and decodes an entry the first time anything reads it (ent,
// keyAt). Each entry is checked against its own CRC-32C (secEntCRC) as it
// is decoded, and the string table block by block as it is read
// (lazycrc.go); the lookup tables are checked whole when the snapshot is
// read. Entries added since the snapshot are in the namespace's own slice,
// and keys and ids written since in its own maps, which a lookup tries
// first.
//
// A damaged entry (one that fails its checksum, a reference out of
// bounds) marks the namespace corrupt and decodes as a removed entry, which
// no search returns: the read that found it is discarded and the store
// loads the namespace from its rows (see Corrupt).

// lazyEnts is what decoding the entries of a snapshot needs.
type lazyEnts[K comparable] struct {
	count int            // entries read from the snapshot: positions below it are decoded lazily
	slot  []atomic.Int32 // by position: 1 + its place in dense once decoded, slotBusy while decoding, 0 before
	dense []Entry        // the entries decoded so far, in the order they were first read
	next  atomic.Int64   // entries decoded (or being decoded): the next place in dense

	entB        []byte      // the entry table (entrySize bytes each)
	entCRC      []uint32    // the CRC-32C of each entry
	cols        []scoreCols // what keyword scoring reads of each entry
	colSec      *lazySection
	threadOf    []int32 // by position: the index in threadNames of the entry's thread, -1 for none
	threadNames []string
	strB        []byte // the string table's bytes
	strs        *lazySection
	ends        []uint64 // the end of each string in strB
	endSec      *lazySection
	tagRefs     []uint32  // string references of the entries' tags, operators and authors
	vmeta       []float32 // each vector's scale and error norm
	vecLen      int       // bounds an entry's vector must lie within
	arenaLen    int       // and its term list
	skEnt       []int32   // the snapshot's sketch slots: each entry's must name it back
	words       int       // sketch words per vector (0: no sketches)
	slotVecs    bool      // the snapshot holds slot k's codes k-th (slotScore)
	key         func(uint64) K
	enc         func(K) uint64
	byKey       []byte   // (key uint64, position uint32, 0 uint32), sorted by key
	byID        []uint32 // (id's string, position), sorted by id
	// idMemo remembers what byID said of recent ids (idPos): a digest
	// looks each candidate up three or four times (its ranking fields,
	// its terms, its row), and each search of byID reads about 17 of
	// its strings scattered over the table. Bounded: a direct-mapped
	// table (idMemoSize slots), a collision overwrites.
	idMemo     []atomic.Pointer[idMemoEntry]
	idSeed     maphash.Seed
	corruptFlg *atomic.Bool // the namespace's Corrupt flag
}

// slotBusy marks an entry being decoded.
const slotBusy = -1

// ent returns the entry at position i, decoding it first when it comes
// from a snapshot and was not read yet. Safe under the read lock: two
// readers of an entry not decoded yet decode it once. The entries of a
// snapshot are placed in the order they are first read, so that a
// process that reads a few thousand of them faults in the pages of a few
// thousand entries, not of every page they would have been spread over.
func (n *Namespace[K]) ent(i int) *Entry {
	l := n.lazy
	if l == nil {
		return &n.es[i]
	}
	if i >= l.count {
		return &n.es[i-l.count]
	}
	s := l.slot[i].Load()
	if s <= 0 {
		s = n.decodeEnt(i)
	}
	return &l.dense[s-1]
}

// scoreCols are what keyword scoring and document expansion read of an
// entry (secCols: 32 bytes an entry), so that scoring a posting does not
// decode the entry it names.
type scoreCols struct {
	dl                 int32 // Entry.dl
	level              int32 // Entry.AccessLevel
	deleted            int32 // 1: Entry.Deleted
	_                  int32
	validFrom, validTo int64
}

// cols returns what scoring reads of the entry at position i: from the
// snapshot's columns while the entry was not decoded (nothing changes an
// entry without decoding it first), else from the entry.
func (n *Namespace[K]) cols(i int) lendFields {
	if l := n.lazy; l != nil && i < l.count && l.slot[i].Load() == 0 &&
		l.colSec.checkBytes(unsafe.Pointer(&l.cols[i]), int(unsafe.Sizeof(scoreCols{}))) {
		c := &l.cols[i]
		f := lendFields{dl: c.dl, level: int(c.level), deleted: c.deleted != 0, validFrom: c.validFrom, validTo: c.validTo}
		if t := l.threadOf[i]; t >= 0 {
			f.thread = l.threadNames[t]
		}
		return f
	}
	e := n.ent(i)
	return lendFields{dl: e.dl, level: e.AccessLevel, deleted: e.Deleted, validFrom: e.ValidFrom, validTo: e.ValidTo, thread: e.Thread}
}

// dlOf returns the length in terms of the entry at position i (cols).
func (n *Namespace[K]) dlOf(i int) int32 { return n.cols(i).dl }

// dlAt is dlOf of an indexed entry, from the keyword index's table of
// lengths where it holds it.
func (n *Namespace[K]) dlAt(i int) int32 {
	if d := n.kw.dls; i < len(d) && d[i] != dlUnknown {
		return int32(d[i])
	}
	return n.dlOf(i)
}

// keyAt returns the row key of the entry at position i (as ent).
func (n *Namespace[K]) keyAt(i int) K {
	if l := n.lazy; l != nil && i < l.count && l.slot[i].Load() <= 0 {
		n.decodeEnt(i)
	}
	return n.keys[i]
}

// decodeAll decodes every entry not decoded yet.
func (n *Namespace[K]) decodeAll() {
	l := n.lazy
	if l == nil || l.next.Load() == int64(l.count) {
		return
	}
	for i := range l.count {
		if l.slot[i].Load() <= 0 {
			n.decodeEnt(i)
		}
	}
}

// appendEntry adds an entry at the end (under the write lock).
func (n *Namespace[K]) appendEntry(e Entry, key K) {
	n.es = append(n.es, e)
	n.keys = append(n.keys, key)
}

// posOf returns the position of row key's entry.
func (n *Namespace[K]) posOf(key K) (int, bool) {
	if i, ok := n.pos[key]; ok {
		return i, true
	}
	l := n.lazy
	if l == nil {
		return 0, false
	}
	k := l.enc(key)
	rows := len(l.byKey) / 16
	j := sort.Search(rows, func(j int) bool { return binary.LittleEndian.Uint64(l.byKey[16*j:]) >= k })
	if j == rows || binary.LittleEndian.Uint64(l.byKey[16*j:]) != k {
		return 0, false
	}
	i := int(binary.LittleEndian.Uint32(l.byKey[16*j+8:]))
	if i >= l.count || n.keyAt(i) != key {
		n.lazy.corruptFlg.Store(true) // the table and the entry disagree
		return 0, false
	}
	return i, true
}

// idPos returns the position of record id's entry, unless it was removed.
func (n *Namespace[K]) idPos(id string) (int, bool) {
	if i, ok := n.byID[id]; ok {
		return i, true
	}
	l := n.lazy
	if l == nil {
		return 0, false
	}
	memo := &l.idMemo[maphash.String(l.idSeed, id)&uint64(len(l.idMemo)-1)]
	if m := memo.Load(); m != nil && m.id == id {
		return n.idLive(m.pos, id)
	}
	bad := false
	j := sort.Search(len(l.byID)/2, func(j int) bool {
		s, ok := l.str(l.byID[2*j])
		bad = bad || !ok
		return s >= id
	})
	if bad {
		l.corruptFlg.Store(true)
		return 0, false
	}
	if j == len(l.byID)/2 {
		return 0, false
	}
	if s, _ := l.str(l.byID[2*j]); s != id {
		return 0, false
	}
	i := int(l.byID[2*j+1])
	if i >= l.count {
		l.corruptFlg.Store(true)
		return 0, false
	}
	memo.Store(&idMemoEntry{strings.Clone(id), i}) // not a piece of the caller's buffer
	return n.idLive(i, id)
}

// idLive returns i, the position the snapshot's table gives record id,
// unless the entry there is removed or no longer that record's: a row
// removed since keeps its position (with the sequence -1), and a row
// whose id changed since is in byID under its new one.
func (n *Namespace[K]) idLive(i int, id string) (int, bool) {
	if e := n.ent(i); e.Seq == -1 || e.ID != id {
		return 0, false
	}
	return i, true
}

// idMemoSize is the number of slots of lazyEnts.idMemo for a snapshot of
// count entries: a power of two, a sixteenth of them, from 64 to 8,192
// (64 KiB of pointers).
func idMemoSize(count int) int {
	n := 64
	for n < count/16 && n < 8192 {
		n *= 2
	}
	return n
}

// idMemoEntry is a position the snapshot's table by id gave an id.
type idMemoEntry struct {
	id  string
	pos int
}

// str returns string r of the snapshot's string table, and false when it
// is out of bounds or in a block that fails its checksum.
func (l *lazyEnts[K]) str(r uint32) (string, bool) {
	if int(r) >= len(l.ends) {
		return "", false
	}
	if !l.endSec.checkBytes(unsafe.Pointer(&l.ends[r]), 8) {
		return "", false
	}
	from := uint64(0)
	if r > 0 {
		if !l.endSec.checkBytes(unsafe.Pointer(&l.ends[r-1]), 8) {
			return "", false
		}
		from = l.ends[r-1]
	}
	to := l.ends[r]
	if from > to || to > uint64(len(l.strB)) {
		return "", false
	}
	if to == from {
		return "", true
	}
	if !l.strs.checkBytes(unsafe.Pointer(&l.strB[from]), int(to-from)) {
		return "", false
	}
	return unsafe.String(&l.strB[from], int(to-from)), true
}

// decodeEnt decodes the entry at position i once and returns its slot; a
// reader that finds another decoding it waits for it.
func (n *Namespace[K]) decodeEnt(i int) int32 {
	l := n.lazy
	st := &l.slot[i]
	for {
		if st.CompareAndSwap(0, slotBusy) {
			at := l.next.Add(1) - 1
			e := &l.dense[at]
			if !l.decode(i, e, &n.keys[i]) {
				l.corruptFlg.Store(true)
				// Nothing reads a removed entry: the read that found
				// it is discarded.
				*e = Entry{Deleted: true, Seq: -1, AccessLevel: math.MaxInt, sk: -1}
			}
			if at+1 == int64(l.count) {
				filled(l.dense) // every entry is decoded: no more huge pages asked for
				filled(l.slot)
			}
			st.Store(int32(at + 1))
			return int32(at + 1)
		}
		if s := st.Load(); s > 0 {
			return s
		}
		runtime.Gosched()
	}
}

// decode fills e and key from entry i of the table, or reports false.
func (l *lazyEnts[K]) decode(i int, e *Entry, key *K) bool {
	b := l.entB[i*entrySize : (i+1)*entrySize]
	if crc32.Checksum(b, castagnoli()) != l.entCRC[i] {
		return false
	}
	le := binary.LittleEndian
	ok := true
	s := func(off int) string {
		v, good := l.str(le.Uint32(b[off:]))
		ok = ok && good
		return v
	}
	*key = l.key(le.Uint64(b[0:]))
	e.ID = s(64)
	e.Layer = mnemo.Layer(s(68))
	e.Kind = mnemo.Kind(s(72))
	e.Scope = s(76)
	e.Component = s(80)
	e.Mission = s(84)
	e.Thread = s(88)
	e.Outcome = s(92)
	e.Speaker = s(156)
	tagOff, tn := le.Uint64(b[96:])&math.MaxUint32, uint64(le.Uint32(b[100:]))
	on, an := uint64(le.Uint32(b[124:])>>8), uint64(le.Uint32(b[160:]))
	if all := tn + on + an; all > 0 {
		if tagOff+all > uint64(len(l.tagRefs)) {
			return false
		}
		strs := make([]string, all)
		for j, r := range l.tagRefs[tagOff : tagOff+all] {
			v, good := l.str(r)
			ok = ok && good
			strs[j] = v
		}
		if tn > 0 {
			e.Tags = strs[:tn:tn]
		}
		if on > 0 {
			e.Operators = strs[tn : tn+on : tn+on]
		}
		if an > 0 {
			e.Authors = strs[tn+on:]
		}
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
	e.vs, e.ve = l.vmeta[2*i], l.vmeta[2*i+1]
	// e.hash stays 0: the text hash is per process, so the next write
	// of the row indexes its text again.
	switch {
	case !ok:
		return false
	case e.dim < 0 || e.off < 0 || (e.dim > 0 && e.off+e.dim > l.vecLen):
		return false
	case e.tOff < 0 || e.tLen < 0 || int(e.tOff)+int(e.tLen) > l.arenaLen:
		return false
	case e.sk >= 0 && (l.words == 0 || e.sk >= len(l.skEnt) || int(l.skEnt[e.sk]) != i):
		return false
	case e.sk < -1:
		return false
	}
	return true
}
