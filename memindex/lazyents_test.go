package memindex

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
)

// lazySnap writes a namespace of count random rows with sketches and
// returns the snapshot's bytes and the rows.
func lazySnap(t *testing.T, count, dim int) ([]byte, map[int64]snapRow) {
	t.Helper()
	n, rows := sketchedRows(11, count, dim)
	return snapBytes(t, n, 7), rows
}

// TestLazyEntriesDecodedOnUse: reading a snapshot decodes no entry; a
// lookup decodes the entries it reads, once, in the order first read; the
// answers are those of the namespace decoded whole.
func TestLazyEntriesDecodedOnUse(t *testing.T) {
	b, rows := lazySnap(t, 500, 16)
	m := readSnap(t, b)
	if m.lazy == nil || m.lazy.next.Load() != 0 {
		t.Fatalf("entries decoded when the snapshot was read: %v", m.lazy)
	}
	e := m.ByID("r00321")
	if e == nil || e.ID != "r00321" || e.Seq != rows[321].e.Seq || e.Scope != rows[321].e.Scope {
		t.Fatalf("ByID(r00321) = %+v", e)
	}
	// A binary search over the ids reads no entry but the one it finds.
	if got := m.lazy.next.Load(); got != 1 {
		t.Fatalf("%d entries decoded for one lookup, want 1", got)
	}
	if k, ok := m.Key("r00321"); !ok || k != 321 {
		t.Fatalf("Key = %d, %v", k, ok)
	}
	if i, ok := m.posOf(321); !ok || m.ent(i).ID != "r00321" {
		t.Fatalf("posOf(321) = %d, %v", i, ok)
	}
	if got := m.lazy.next.Load(); got != 1 {
		t.Fatalf("the same entry decoded again: %d decoded", got)
	}
	if _, ok := m.posOf(9999); ok {
		t.Fatal("posOf found a key the snapshot does not hold")
	}
	if m.ByID("r09999") != nil || m.ByID("") != nil {
		t.Fatal("ByID found an id the snapshot does not hold")
	}
	sameAnswers(t, "lazy vs decoded", readDecoded(t, b), m, rand.New(rand.NewSource(1)), 16)
	if m.Corrupt() {
		t.Fatal("a sound snapshot flagged corrupt")
	}
}

func readDecoded(t *testing.T, b []byte) *Namespace[int64] {
	t.Helper()
	n := readSnap(t, slices.Clone(b))
	n.decodeAll()
	if n.lazy.next.Load() != int64(n.lazy.count) {
		t.Fatal("decodeAll left entries")
	}
	return n
}

// TestLazyEntriesConcurrent: readers decoding the same entries at once
// (under the read lock, as searches do) each get them whole. Run with
// -race.
func TestLazyEntriesConcurrent(t *testing.T) {
	b, _ := lazySnap(t, 800, 16)
	want := readDecoded(t, b)
	m := readSnap(t, b)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for range 2000 {
				i := rng.Intn(m.Len())
				got, exp := m.ent(i), want.ent(i)
				if got.ID != exp.ID || got.Seq != exp.Seq || got.AccessLevel != exp.AccessLevel || m.keyAt(i) != want.keyAt(i) {
					errs <- fmt.Errorf("entry %d: %+v, want %+v", i, *got, *exp)
					return
				}
				id := fmt.Sprintf("r%05d", 1+rng.Intn(900))
				if (m.ByID(id) == nil) != (want.ByID(id) == nil) {
					errs <- fmt.Errorf("ByID(%s) differs", id)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := m.lazy.next.Load(); got > int64(m.lazy.count) {
		t.Fatalf("%d entries decoded of %d: some twice", got, m.lazy.count)
	}
}

// TestLazyEntryDamaged: an entry whose bytes were damaged in the file is
// caught when it is decoded: it flags the namespace corrupt and reads as
// removed (no search returns it); the other entries are unaffected.
func TestLazyEntryDamaged(t *testing.T) {
	b, rows := lazySnap(t, 300, 8)
	f, err := parseSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	m0 := readSnap(t, slices.Clone(b))
	pos, ok := m0.idPos("r00123")
	if !ok {
		t.Fatal("r00123 not found")
	}
	for _, off := range []int{8, 50, 70, 130} { // the sequence, the level, a string reference, the importance
		d := slices.Clone(b)
		d[int(f.sec[secEntries][0])+pos*entrySize+off] ^= 0x10
		m := readSnap(t, d)
		if e := m.ByID("r00200"); e == nil || e.Seq != rows[200].e.Seq || m.Corrupt() {
			t.Fatalf("byte %d of another entry damaged: r00200 = %+v, corrupt %v", off, e, m.Corrupt())
		}
		e := m.ent(pos)
		if !m.Corrupt() || e.Seq != -1 || !e.Deleted || e.ID != "" {
			t.Fatalf("byte %d of entry %d damaged: read as %+v, corrupt %v", off, pos, *e, m.Corrupt())
		}
		if m.ByID("r00123") != nil {
			t.Fatalf("byte %d: the damaged entry is found by its id", off)
		}
	}
	// The lookup tables are checked whole when the snapshot is read.
	d := slices.Clone(b)
	tab := d[f.sec[secByKey][0]:]
	for j := range f.ents {
		if binary.LittleEndian.Uint64(tab[16*j:]) == 123 {
			binary.LittleEndian.PutUint32(tab[16*j+8:], uint32((pos+1)%f.ents))
		}
	}
	if _, _, err := ReadSnapshot(d, func(k uint64) int64 { return int64(k) }, func(k int64) uint64 { return uint64(k) }, nil); err == nil {
		t.Fatal("a lookup table changed without its checksum was accepted")
	}
}

// TestLazyIDMemo: ids looked up through the snapshot's table by id are
// remembered (a second lookup reads none of its strings), in a table
// small enough that ids collide, and what is remembered never outlives
// the record: an id removed or moved to another since is not found,
// its record's new id is.
func TestLazyIDMemo(t *testing.T) {
	b, rows := lazySnap(t, 3000, 8)
	m := readSnap(t, b)
	if got := len(m.lazy.idMemo); got != idMemoSize(3000) || got >= 3000 {
		t.Fatalf("memo of %d slots for 3,000 entries", got)
	}
	rng := rand.New(rand.NewSource(4))
	check := func(what string, removed map[int64]bool) {
		t.Helper()
		for _, k := range rng.Perm(len(rows)) {
			k++ // keys 1 to 3,000
			id := fmt.Sprintf("r%05d", k)
			i, ok := m.idPos(id)
			if ok == removed[int64(k)] || ok && m.ent(i).ID != id {
				t.Fatalf("%s: idPos(%s) = %d, %v (removed: %v)", what, id, i, ok, removed[int64(k)])
			}
		}
		if _, ok := m.idPos("r99999"); ok {
			t.Fatalf("%s: an id the snapshot does not hold found", what)
		}
	}
	check("first", nil)
	held := 0
	for j := range m.lazy.idMemo {
		if e := m.lazy.idMemo[j].Load(); e != nil {
			held++
			if m.ent(e.pos).ID != e.id {
				t.Fatalf("memo slot %d: %s at %d holds %s", j, e.id, e.pos, m.ent(e.pos).ID)
			}
		}
	}
	if held < len(m.lazy.idMemo)/2 {
		t.Fatalf("%d of %d memo slots hold an id after 3,000 lookups", held, len(m.lazy.idMemo))
	}
	check("again", nil)
	removed := map[int64]bool{}
	for k := int64(1); k <= 3000; k += 7 {
		m.Remove(k)
		removed[k] = true
	}
	check("after removals", removed)
	// Record 5 takes a new id: the old one is gone, the new one found.
	m.idPos("r00005") // remembered
	r := rows[5]
	e := r.e
	e.ID = "r99998"
	m.Put(5, e, r.emb, []byte(r.text))
	if _, ok := m.idPos("r00005"); ok {
		t.Fatal("the record's old id still found")
	}
	if i, ok := m.idPos("r99998"); !ok || m.keyAt(i) != 5 {
		t.Fatalf("the record's new id: %d, %v", i, ok)
	}
}
