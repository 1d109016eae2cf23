package memindex

import (
	"hash/crc32"
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"
)

// signTable holds the sketches of a namespace in two parts: the first
// round of every slot (first[k*per : (k+1)*per]), then the other rounds of
// every slot (rest[k*(words-per) : (k+1)*(words-per)]). A search ranks
// every slot by its first round alone, a third of the memory of the whole
// sketches, and only the closest of them by the rest (sketchSearch),
// reading each one's rest in one place.
type signTable struct {
	per   int // 64-bit words of one round; 0 before the first sketch
	first []uint64
	rest  []uint64
	// Read from a snapshot, the rest of each slot is checked against its
	// own CRC-32C the first time a search reads it (most searches read a
	// few of them): restCRC holds the snapshot's slots' checksums,
	// restOK[k/64] bit k%64 is set once slot k is checked (or written
	// since), and bad is the namespace's corrupt flag, set by a mismatch.
	restCRC []uint32
	restOK  []atomic.Uint64
	bad     *atomic.Bool
}

// parts are the table's two parts, in order (the snapshot's sections).
func (t *signTable) parts() [2]*[]uint64 { return [2]*[]uint64{&t.first, &t.rest} }

// len is the number of slots.
func (t *signTable) len() int {
	if t.per == 0 {
		return 0
	}
	return len(t.first) / t.per
}

// reset empties t for sketches of words words (sketchWords), keeping
// capacity for n slots.
func (t *signTable) reset(words, n int) {
	t.per = words / sketchRounds
	if cap(t.first) < n*t.per {
		t.first, t.rest = make([]uint64, 0, n*t.per), make([]uint64, 0, n*(words-t.per))
	}
	t.first, t.rest = t.first[:0], t.rest[:0]
	t.restCRC, t.restOK = nil, nil
}

// add appends a slot holding the sketch bits (sketchWords words, round
// after round, as sketch writes them) and returns its index.
func (t *signTable) add(bits []uint64) int {
	k := t.len()
	t.first = append(t.first, bits[:t.per]...)
	t.rest = append(t.rest, bits[t.per:]...)
	return k
}

// set stores the sketch bits in slot k.
func (t *signTable) set(k int, bits []uint64) {
	r := len(bits) - t.per
	copy(t.first[k*t.per:(k+1)*t.per], bits[:t.per])
	copy(t.rest[k*r:(k+1)*r], bits[t.per:])
	if k < len(t.restCRC) {
		t.restOK[k/64].Or(uint64(1) << (k % 64)) // no longer the snapshot's
	}
}

// restValid reports whether the rest of slot k may be read: it was not
// read from a snapshot, or it matches its checksum there. A mismatch sets
// the corrupt flag. Safe under the read lock.
func (t *signTable) restValid(k int) bool {
	if k >= len(t.restCRC) {
		return true
	}
	w, b := k/64, uint64(1)<<(k%64)
	if t.restOK[w].Load()&b != 0 {
		return true
	}
	r := len(t.rest) / t.len()
	words := t.rest[k*r : (k+1)*r]
	if restChecksum(words) != t.restCRC[k] {
		t.bad.Store(true)
		return false
	}
	t.restOK[w].Or(b)
	return true
}

// get writes the sketch of slot k into out.
func (t *signTable) get(k int, out []uint64) {
	r := len(out) - t.per
	copy(out[:t.per], t.first[k*t.per:(k+1)*t.per])
	copy(out[t.per:], t.rest[k*r:(k+1)*r])
}

// restChecksum is the CRC-32C of the rest of a slot as the snapshot holds
// it (secRestCRC): its words' bytes, little-endian as the host's.
func restChecksum(words []uint64) uint32 {
	return crc32.Checksum(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 8*len(words)), castagnoli())
}

// capBytes is the memory the table holds.
func (t *signTable) capBytes() int64 {
	return 8*int64(cap(t.first)+cap(t.rest)+cap(t.restOK)) + 4*int64(cap(t.restCRC))
}

// hamming writes into dist the Hamming distance of slots [lo, hi) of round
// to the same round of the query sketch q, and counts them in hist.
func hamming(round, q []uint64, dist []uint16, hist []int, lo, hi int) {
	if len(q) == 8 && hasPopcnt && hi > lo { // 384 dimensions (512 bits a round), in assembly
		r, d := round[lo*8:hi*8], dist[lo:hi]
		_ = hist[8*64] // every distance has its count
		hamSlots8(&r[0], (*[8]uint64)(q), &d[0], &hist[0], hi-lo)
		return
	}
	if len(q) == 8 { // unrolled, without bounds checks
		q := (*[8]uint64)(q)
		for k := lo; k < hi; k++ {
			d := ham8((*[8]uint64)(round[k*8:k*8+8]), q)
			dist[k] = uint16(d)
			hist[d]++
		}
		return
	}
	per := len(q)
	for k := lo; k < hi; k++ {
		d := hamN(round[k*per:(k+1)*per], q)
		dist[k] = uint16(d)
		hist[d]++
	}
}

// distances writes into dist the Hamming distance of slots [lo, hi) to the
// query sketch qs in every round, and counts them in hist.
func (t *signTable) distances(qs []uint64, dist []uint16, hist []int, lo, hi int) {
	per := t.per
	for k := lo; k < hi; k++ {
		var d int
		if per == 8 {
			d = ham8((*[8]uint64)(t.first[k*8:k*8+8]), (*[8]uint64)(qs[:8]))
		} else {
			d = hamN(t.first[k*per:(k+1)*per], qs[:per])
		}
		d += t.restDistance(k, qs)
		dist[k] = uint16(d)
		hist[d]++
	}
}

// restDistances adds to dist[k] the Hamming distance of slot k to the
// query sketch qs in every round but the first, for each slot k of list,
// and counts the sums in hist. A slot whose rest fails its checksum is
// put as far as can be (restDistance).
func (t *signTable) restDistances(qs []uint64, list []int32, dist []uint16, hist []int) {
	q := qs[t.per:]
	if len(q) == 16 && hasPopcnt && len(list) > 0 && t.listValid(list) { // 384 dimensions, every rest checked, in assembly
		if slices.Min(list) < 0 || int(slices.Max(list)) >= min(len(t.rest)/16, len(dist)) {
			panic("memindex: a listed sketch slot out of range")
		}
		_ = hist[24*64] // every distance has its count
		hamList16(&t.rest[0], (*[16]uint64)(q), &list[0], &dist[0], &hist[0], len(list))
		return
	}
	for _, k := range list {
		d := int(dist[k]) + t.restDistance(int(k), qs)
		dist[k] = uint16(d)
		hist[d]++
	}
}

// listValid reports whether the rest of every listed slot may be read
// (restValid), checking those not checked yet.
func (t *signTable) listValid(list []int32) bool {
	if len(t.restCRC) == 0 {
		return true
	}
	for _, k := range list {
		if !t.restValid(int(k)) {
			return false // the loop below reads none of a damaged slot
		}
	}
	return true
}

// restDistance is the Hamming distance of slot k to the query sketch qs
// in every round but the first.
func (t *signTable) restDistance(k int, qs []uint64) int {
	q := qs[t.per:]
	if !t.restValid(k) {
		return 64 * len(q) // as far as can be; the read is discarded (restValid)
	}
	w := t.rest[k*len(q) : (k+1)*len(q)]
	if len(q) == 16 { // 384 dimensions
		return ham8((*[8]uint64)(w[:8]), (*[8]uint64)(q[:8])) + ham8((*[8]uint64)(w[8:]), (*[8]uint64)(q[8:]))
	}
	return hamN(w, q)
}

func ham8(w, q *[8]uint64) int {
	return bits.OnesCount64(w[0]^q[0]) + bits.OnesCount64(w[1]^q[1]) + bits.OnesCount64(w[2]^q[2]) +
		bits.OnesCount64(w[3]^q[3]) + bits.OnesCount64(w[4]^q[4]) + bits.OnesCount64(w[5]^q[5]) +
		bits.OnesCount64(w[6]^q[6]) + bits.OnesCount64(w[7]^q[7])
}

func hamN(w, q []uint64) int {
	d := 0
	for j, x := range w {
		d += bits.OnesCount64(x ^ q[j])
	}
	return d
}
