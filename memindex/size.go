package memindex

import "unsafe"

// Memory accounting: what a store that bounds the memory of its indexes
// (evicting the least recently used namespaces) counts a namespace as.
//
// MemoryBytes is an estimate, not a measurement. It counts, from the
// lengths and capacities of the namespace's own arrays:
//
//   - the entries (the Entry structs, at their capacity) and the bytes of
//     their strings (ID, layer, kind, scope, component, mission, thread,
//     outcome, tags), averaged over a sample of up to sampleEntries
//     entries and scaled to all of them;
//   - the vectors (int8 codes; each entry's scale and error norm are in
//     the Entry) and the sign sketches with their slot table;
//   - the maps by row key and by id, at (key + value + 1 control byte)
//     × mapSlack per element: Go's maps keep groups of 8 slots at most 7/8
//     full and grow by doubling;
//   - the keyword index: the term map (each term's bytes counted at
//     avgTermBytes), one slice header per term, every posting (8 bytes) at
//     its slice's capacity, the arena of each entry's distinct terms, the
//     per-entry access levels and the per-level document frequencies;
//   - each thread's member list;
//   - the per-vector checksums of a namespace read from a snapshot, and
//     the arrays of a background sketch build in flight.
//
// It leaves out the small fixed parts (a few hundred bytes) and the
// allocator's rounding. Arrays that point into a snapshot's bytes are
// counted like heap arrays; the parts of a snapshot that the namespace
// does not point into (its entry table) are the store's to add. The cost
// is one pass over the term and thread lists, not over the entries.
func (n *Namespace[K]) MemoryBytes() int64 {
	const (
		entrySz   = int64(unsafe.Sizeof(Entry{}))
		stringHdr = int64(unsafe.Sizeof(""))
		sliceHdr  = int64(unsafe.Sizeof([]int32(nil)))
		postingSz = int64(unsafe.Sizeof(posting{}))
	)
	var k K
	keySz := int64(unsafe.Sizeof(k))
	b := int64(cap(n.es))*entrySz + int64(cap(n.keys))*keySz + n.stringBytes()
	if l := n.lazy; l != nil {
		b += l.next.Load()*entrySz + 4*int64(cap(l.slot)) + 8*int64(len(l.idMemo)) // the entries decoded so far
	}
	b += mapBytes(len(n.pos), keySz+8) + mapBytes(len(n.byID), stringHdr+8)
	b += int64(cap(n.vecs)) + 4*int64(cap(n.vecBuf)) + n.signs.capBytes() + 4*int64(cap(n.skEnt)) + 4*int64(cap(n.sketchBuf)) + 8*int64(cap(n.sketchBits))
	kw := &n.kw
	b += mapBytes(len(kw.terms), stringHdr+4) + int64(len(kw.terms))*avgTermBytes + int64(cap(kw.names))*stringHdr
	b += int64(cap(kw.postings))*sliceHdr + kw.postCap*postingSz
	b += 4*int64(cap(kw.arena)) + 4*int64(cap(kw.acct)) + int64(cap(kw.buf)) + 4*int64(cap(kw.scratch)) + 2*int64(cap(kw.dls))
	for _, ls := range kw.levels {
		b += 64 + mapBytes(len(ls.df), 8)
	}
	b += mapBytes(len(n.thr), stringHdr+sliceHdr) + 4*n.thrCap
	b += 4*int64(cap(n.vcrc)) + 8*int64(cap(n.vok))
	if bd := n.build; bd != nil {
		b += 8*int64(cap(bd.sks)) + bd.signs.capBytes() + 8*int64(cap(bd.bits)) + 4*int64(cap(bd.skEnt)) + 4*int64(cap(bd.buf)) + 4*int64(cap(bd.dq)) + 8*int64(cap(bd.dirty))
	}
	return b
}

const (
	// sampleEntries is how many entries MemoryBytes reads to estimate the
	// bytes of the entries' strings.
	sampleEntries = 64
	// avgTermBytes is what MemoryBytes counts for the bytes of one term
	// of the keyword index (a stem of a few letters, rounded up by the
	// allocator).
	avgTermBytes = 16
	// mapSlack is the factor, in eighths, between the bytes of a map's
	// elements and what the map holds for them.
	mapSlack = 12
)

// mapBytes estimates the memory of a map of count elements of elem bytes
// (key and value).
func mapBytes(count int, elem int64) int64 {
	return int64(count) * (elem + 1) * mapSlack / 8
}

// stringBytes estimates the bytes of the entries' strings and tag lists
// from an evenly spaced sample of them.
func (n *Namespace[K]) stringBytes() int64 {
	total := n.Len()
	if total == 0 {
		return 0
	}
	step := max(1, total/sampleEntries)
	var sum, seen int64
	for i := 0; i < total; i += step {
		e := n.ent(i)
		s := len(e.ID) + len(e.Layer) + len(e.Kind) + len(e.Scope) + len(e.Component) + len(e.Mission) +
			len(e.Thread) + len(e.Outcome) + 16*cap(e.Tags)
		for _, t := range e.Tags {
			s += len(t)
		}
		sum += int64(s)
		seen++
	}
	return sum * int64(total) / seen
}

// Evicted ends the work a namespace dropped by its store may still have
// in flight: a background build of its sketches stops at its next step.
// It runs under the store's write lock; the namespace must not be used
// afterwards.
func (n *Namespace[K]) Evicted() {
	n.build = nil
	if l := n.lazy; l != nil {
		filled(l.dense) // its memory goes back to the heap: no huge pages for small objects
		filled(l.slot)
	}
}

// SnapshotEntryBytes is the size of one entry in a snapshot's entry table,
// which a namespace read from a snapshot keeps mapped beside the entries it
// decodes from it (MemoryBytes counts those).
const SnapshotEntryBytes = entrySize
