package memindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
)

// snapRow is one row of a test namespace.
type snapRow struct {
	key  int64
	e    Entry
	emb  []byte
	text string
}

var snapWords = func() []string {
	var w []string
	for i := range 300 {
		w = append(w, fmt.Sprintf("w%dx", i))
	}
	return w
}()

func randRow(rng *rand.Rand, key int64, dim int) snapRow {
	e := Entry{ID: fmt.Sprintf("r%05d", key), Layer: mnemo.LayerDomain, Kind: mnemo.KindFact,
		Scope: fmt.Sprintf("/s%d", rng.Intn(4)), AccessLevel: []int{0, 0, 0, 1, 2, 3}[rng.Intn(6)],
		Created: int64(1000 + rng.Intn(5000)), ValidFrom: math.MinInt64, ValidTo: math.MaxInt64, Seq: key}
	if rng.Intn(3) == 0 {
		e.Thread = fmt.Sprintf("t%d", rng.Intn(20))
	}
	if rng.Intn(4) == 0 {
		e.Tags = []string{"a", fmt.Sprintf("tag%d", rng.Intn(3))}
	}
	if rng.Intn(5) == 0 {
		e.Operators = []string{fmt.Sprintf("op%d", rng.Intn(3))}
	}
	if rng.Intn(15) == 0 {
		e.Deleted = true
	}
	e.Importance, e.Confidence = rng.Float32(), rng.Float32()
	e.Access, e.Updated, e.Tokens = int64(rng.Intn(50)), int64(2000+rng.Intn(5000)), int32(rng.Intn(300))
	e.Extracted = rng.Intn(6) == 0
	if rng.Intn(2) == 0 {
		e.Speaker = fmt.Sprintf("speaker%d", rng.Intn(4))
	}
	if rng.Intn(5) == 0 {
		e.Authors = []string{fmt.Sprintf("author%d", rng.Intn(3)), "jane doe"}
	}
	var text []byte
	for range 3 + rng.Intn(10) {
		// Zipf-ish: low indexes are common.
		text = append(text, snapWords[int(math.Pow(rng.Float64(), 3)*float64(len(snapWords)))]...)
		text = append(text, ' ')
	}
	var emb []byte
	if dim > 0 {
		emb = testVec(rng, dim)
	}
	return snapRow{key, e, emb, string(text)}
}

func snapBytes(t testing.TB, n *Namespace[int64], seq int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := n.WriteSnapshot(&buf, "label", seq, func(k int64) uint64 { return uint64(k) }); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readSnap(t testing.TB, b []byte) *Namespace[int64] {
	t.Helper()
	n, h, err := ReadSnapshot(b, func(k uint64) int64 { return int64(k) }, func(k int64) uint64 { return uint64(k) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Label != "label" {
		t.Fatalf("label %q", h.Label)
	}
	return n
}

// sameAnswers fails unless a and b answer every keyword, IDF and vector
// query identically at every clearance.
func sameAnswers(t *testing.T, what string, a, b *Namespace[int64], rng *rand.Rand, dim int) {
	sameAnswersMode(t, what, a, b, rng, dim, true)
}

// canonical orders hits of equal score by id: entries of equal score may
// sit in another order in two indexes holding the same records (a row
// written again after it was removed keeps its old position in one, takes
// a new one in the other).
func canonical(hs []mnemo.Hit) []mnemo.Hit {
	hs = slices.Clone(hs)
	slices.SortStableFunc(hs, func(x, y mnemo.Hit) int {
		if x.Score != y.Score {
			if x.Score > y.Score {
				return -1
			}
			return 1
		}
		if x.ID < y.ID {
			return -1
		}
		if x.ID > y.ID {
			return 1
		}
		return 0
	})
	return hs
}

// sameAnswersMode is sameAnswers; with exactVectors false (sketched
// namespaces whose stale sketch slots differ) vector answers need only
// overlap.
func sameAnswersMode(t *testing.T, what string, a, b *Namespace[int64], rng *rand.Rand, dim int, exactVectors bool) {
	t.Helper()
	now := time.Unix(0, 4000)
	for cl := 0; cl <= 3; cl++ {
		for q := range 40 {
			terms := []string{snapWords[rng.Intn(len(snapWords))], snapWords[rng.Intn(40)], snapWords[q]}
			f := mnemo.Filter{}
			if q%5 == 1 {
				f.ScopePrefix = "/s1"
			}
			c := Compile(mnemo.Scope{Namespace: "x", Clearance: cl}, f, now)
			ka, kb := canonical(a.Keyword(terms, 1<<40, c, 5000)), canonical(b.Keyword(terms, 1<<40, c, 5000))
			if !slices.Equal(ka, kb) {
				t.Fatalf("%s: keyword %v at clearance %d:\n%v\n%v", what, terms, cl, ka, kb)
			}
			ia, ua := a.IDF(terms, cl)
			ib, ub := b.IDF(terms, cl)
			if ua != ub || fmt.Sprint(ia) != fmt.Sprint(ib) {
				t.Fatalf("%s: idf %v at clearance %d: %v %v", what, terms, cl, ia, ib)
			}
			if dim > 0 {
				v := make([]float32, dim)
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
				qv, _ := Normalize(v)
				va, vb := a.Vector(qv, c, 20), b.Vector(qv, c, 20)
				if !exactVectors {
					common := 0
					for _, h := range va {
						if slices.ContainsFunc(vb, func(x mnemo.Hit) bool { return x.ID == h.ID }) {
							common++
						}
					}
					if common < len(va)/2 {
						t.Fatalf("%s: vector at clearance %d: %d of %d in common", what, cl, common, len(va))
					}
				} else if !slices.Equal(va, vb) {
					t.Fatalf("%s: vector at clearance %d:\n%v\n%v", what, cl, va, vb)
				}
			}
		}
	}
	// Thread order and ids.
	ida, idb := idMap(a), idMap(b)
	for id, i := range ida {
		j, ok := idb[id]
		if !ok || a.ent(i).Seq != b.ent(j).Seq {
			t.Fatalf("%s: entry %s differs", what, id)
		}
	}
	if len(ida) != len(idb) {
		t.Fatalf("%s: %d ids, %d", what, len(ida), len(idb))
	}
	for th, ms := range a.thr {
		var x, y []string
		for _, p := range ms {
			x = append(x, a.ent(int(p)).ID)
		}
		for _, p := range b.thr[th] {
			y = append(y, b.ent(int(p)).ID)
		}
		if !slices.Equal(x, y) {
			t.Fatalf("%s: thread %s: %v vs %v", what, th, x, y)
		}
	}
	if len(a.thr) != len(b.thr) {
		t.Fatalf("%s: %d threads, %d", what, len(a.thr), len(b.thr))
	}
}

// sketchedRows returns a namespace of count random rows (randRow, seeded
// with seed) of dimension dim, with sketches, and the rows.
func sketchedRows(seed int64, count, dim int) (*Namespace[int64], map[int64]snapRow) {
	rng := rand.New(rand.NewSource(seed))
	n := New[int64](0, dim)
	n.BuildSketches()
	rows := map[int64]snapRow{}
	for k := int64(1); k <= int64(count); k++ {
		r := randRow(rng, k, dim)
		rows[k] = r
		n.Put(k, r.e, r.emb, []byte(r.text))
	}
	return n, rows
}

// idMap returns the position of every live entry's id, as ByID finds it.
func idMap[K comparable](n *Namespace[K]) map[string]int {
	m := map[string]int{}
	for i := range n.Len() {
		if e := n.ent(i); e.Seq != -1 {
			if j, ok := n.idPos(e.ID); ok {
				m[e.ID] = j
			}
		}
	}
	return m
}

// rebuild returns a namespace loaded from rows in key order, as a store
// loads one from its rows.
func rebuild(rows map[int64]snapRow, dim int, sketches bool) *Namespace[int64] {
	keys := make([]int64, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	n := New[int64](len(keys), dim)
	for _, k := range keys {
		r := rows[k]
		n.Put(k, r.e, r.emb, []byte(r.text))
	}
	if sketches {
		n.BuildSketches()
	}
	return n
}

// TestSnapshotRoundTrip: a namespace read back from its snapshot answers
// every query as the namespace itself and as one rebuilt from the same
// rows, also after both take the same writes (in place and appended),
// with per-clearance keyword statistics, thread neighbours and sketches
// (searched in one stage and in two).
func TestSnapshotRoundTrip(t *testing.T) {
	defer func(s int) { firstShare = s }(firstShare)
	for _, tc := range []struct {
		name     string
		dim      int
		sketches bool
		share    int // firstShare: 1 searches the sketches in two stages
	}{{"no vectors", 0, false, 12}, {"exact", 24, false, 12}, {"sketches", 24, true, 12}, {"sketches in two stages", 24, true, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			firstShare = tc.share
			rng := rand.New(rand.NewSource(7))
			rows := map[int64]snapRow{}
			n := New[int64](0, tc.dim)
			if tc.sketches {
				n.BuildSketches()
			}
			put := func(r snapRow) {
				rows[r.key] = r
				n.Put(r.key, r.e, r.emb, []byte(r.text))
			}
			for k := int64(1); k <= 600; k++ {
				put(randRow(rng, k, tc.dim))
			}
			// Updates, level changes and removals before the snapshot.
			for range 150 {
				k := int64(1 + rng.Intn(600))
				if _, ok := rows[k]; !ok {
					continue
				}
				switch rng.Intn(3) {
				case 0:
					r := randRow(rng, k, tc.dim)
					put(r)
				case 1:
					r := rows[k]
					r.e.AccessLevel = rng.Intn(4)
					put(r)
				case 2:
					delete(rows, k)
					n.Remove(k)
				}
			}
			b := snapBytes(t, n, 99)
			m := readSnap(t, b)
			sameKeys(t, "read back", rows, m)
			if tc.sketches {
				checkSketches(t, m) // every sketch read back, by parts, at its entry's slot
			}
			// Stale sketch slots of the written namespace move its
			// sketch search's candidate cut; the snapshot has none.
			sameAnswersMode(t, "read back vs written", n, m, rand.New(rand.NewSource(1)), tc.dim, !tc.sketches)
			full := rebuild(rows, tc.dim, tc.sketches)
			sameAnswers(t, "read back vs rebuilt", full, m, rand.New(rand.NewSource(2)), tc.dim)

			// The same writes on both afterwards, then a second generation.
			for i := range 200 {
				k := int64(1 + rng.Intn(700))
				var r snapRow
				switch {
				case i%7 == 0:
					if _, ok := rows[k]; ok {
						delete(rows, k)
						n.Remove(k)
						m.Remove(k)
					}
					continue
				case i%3 == 0 && rows[k].key != 0:
					r = rows[k]
					r.e.AccessLevel, r.e.Seq = rng.Intn(4), int64(1000+i) // same text
				default:
					r = randRow(rng, k, tc.dim)
				}
				rows[k] = r
				n.Put(k, r.e, r.emb, []byte(r.text))
				m.Put(k, r.e, r.emb, []byte(r.text))
			}
			sameAnswersMode(t, "after writes", n, m, rand.New(rand.NewSource(3)), tc.dim, !tc.sketches)
			sameKeys(t, "after writes", rows, m) // keys and ids found beside the snapshot's tables
			if tc.sketches {
				checkSketches(t, m) // slots set in place and appended to the parts read
			}
			m2 := readSnap(t, snapBytes(t, m, 199))
			sameKeys(t, "second generation", rows, m2)
			sameAnswersMode(t, "second generation", n, m2, rand.New(rand.NewSource(4)), tc.dim, !tc.sketches)
			sameAnswers(t, "second generation vs rebuilt", rebuild(rows, tc.dim, tc.sketches), m2, rand.New(rand.NewSource(5)), tc.dim)
		})
	}
}

// sameKeys checks that n gives the row key and the distinct index terms
// (TermsOf) of every live row by its id (Key), and none for a removed one.
func sameKeys(t *testing.T, what string, rows map[int64]snapRow, n *Namespace[int64]) {
	t.Helper()
	for k := int64(1); k <= 700; k++ {
		r, live := rows[k]
		id := fmt.Sprintf("r%05d", k)
		got, ok := n.Key(id)
		if ok != live || live && got != r.key {
			t.Fatalf("%s: key of r%05d = %d, %v; want %d, %v", what, k, got, ok, r.key, live)
		}
		terms, ok := n.TermsOf(id, 10)
		if ok != live {
			t.Fatalf("%s: terms of %s: %v, want %v", what, id, ok, live)
		}
		if !live {
			continue
		}
		// The ranking fields come back as they went in.
		if e := n.ByID(id); e == nil || e.Importance != r.e.Importance || e.Confidence != r.e.Confidence ||
			e.Access != r.e.Access || e.Updated != r.e.Updated || e.Tokens != r.e.Tokens || e.Extracted != r.e.Extracted ||
			e.Speaker != r.e.Speaker || !slices.Equal(e.Authors, r.e.Authors) || !slices.Equal(e.Operators, r.e.Operators) ||
			!slices.Equal(e.Tags, r.e.Tags) {
			t.Fatalf("%s: ranking fields of %s = %+v, want %+v", what, id, e, r.e)
		}
		var want []string
		EachTerm([]byte(r.text), nil, func(term []byte) {
			if w := string(term[:words.StemBytes(term)]); !slices.Contains(want, w) {
				want = append(want, w)
			}
		})
		slices.Sort(want)
		slices.Sort(terms)
		if !slices.Equal(terms, want) {
			t.Fatalf("%s: terms of %s = %v, want %v", what, id, terms, want)
		}
	}
}

// TestSnapshotCorrupt: a snapshot cut short anywhere, with any byte
// changed, or of another label is refused, never read wrong.
func TestSnapshotCorrupt(t *testing.T) {
	n, _ := sketchedRows(3, 200, 8)
	good := snapBytes(t, n, 5)
	key := func(k uint64) int64 { return int64(k) }
	if _, _, err := ReadSnapshot(good, key, func(k int64) uint64 { return uint64(k) }, nil); err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(good); cut += 1 + cut/7 {
		if _, _, err := ReadSnapshot(slices.Clone(good[:cut]), key, func(k int64) uint64 { return uint64(k) }, nil); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("cut at %d of %d: %v", cut, len(good), err)
		}
	}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < len(good); i += 1 + rng.Intn(97) {
		b := slices.Clone(good)
		b[i] ^= 1 << rng.Intn(8)
		m, _, err := ReadSnapshot(b, key, func(k int64) uint64 { return uint64(k) }, nil)
		if err == nil {
			// Vectors are checked when used; only padding between
			// sections is not covered.
			f, _ := parseSnapshot(good)
			if inSection(f, secVecs, i) || inSection(f, secSignsRest, i) {
				if m.VerifyVectors() || !m.Corrupt() {
					t.Fatalf("byte %d of the vectors or sketches changed, not detected", i)
				}
				continue
			}
			// So are the postings and term lists, block by block.
			if inSection(f, secPostings, i) || inSection(f, secArena, i) {
				if m.kw.checkedAll() || !m.Corrupt() {
					t.Fatalf("byte %d of the postings or term lists changed, not detected", i)
				}
				continue
			}
			// The columns as scoring reads them.
			if inSection(f, secCols, i) {
				for j := range m.Len() {
					m.dlOf(j)
				}
				if !m.Corrupt() {
					t.Fatalf("byte %d of the scoring columns changed, not detected", i)
				}
				continue
			}
			// And the entries and strings, as the entries are decoded.
			if inSection(f, secEntries, i) || inSection(f, secStrings, i) || inSection(f, secStringEnds, i) {
				if m.decodeAll(); !m.Corrupt() {
					t.Fatalf("byte %d of the entries or strings changed, not detected", i)
				}
				continue
			}
			if !isPadding(good, i) {
				t.Fatalf("byte %d of %d changed, snapshot accepted", i, len(good))
			}
			continue
		}
		if !errors.Is(err, ErrSnapshot) {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	if h, err := PeekSnapshot(good); err != nil || h.Seq != 5 || h.Entries != 200 || h.Label != "label" {
		t.Fatalf("peek: %+v %v", h, err)
	}
}

func inSection(f *snapFile, sec, i int) bool {
	return i >= int(f.sec[sec][0]) && i < int(f.sec[sec][0]+f.sec[sec][1])
}

// TestSnapshotDamagedVector: a vector damaged in the file is caught by the
// first search that reads it, which flags the namespace corrupt.
func TestSnapshotDamagedVector(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	n := New[int64](0, 16)
	n.BuildSketches()
	var last snapRow
	for k := int64(1); k <= 300; k++ {
		last = randRow(rng, k, 16)
		last.e.Deleted = false
		n.Put(k, last.e, last.emb, []byte(last.text))
	}
	b := snapBytes(t, n, 1)
	f, _ := parseSnapshot(b)
	end := int(f.sec[secVecs][0] + f.sec[secVecs][1])
	b[end-3] ^= 0x40 // the last vector: the last entry's
	m := readSnap(t, b)
	if m.Corrupt() {
		t.Fatal("corrupt before any use")
	}
	q := make([]float32, 16)
	for j := range q {
		q[j] = math.Float32frombits(binary.LittleEndian.Uint32(last.emb[4*j:]))
	}
	q, _ = Normalize(q)
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: 3}, mnemo.Filter{}, time.Unix(0, 4000))
	for _, h := range m.Vector(q, c, 5) {
		if h.ID == last.e.ID {
			t.Fatalf("the damaged vector was scored: %v", h)
		}
	}
	if !m.Corrupt() {
		t.Fatal("damaged vector not detected")
	}
}

// isPadding reports whether offset i of a snapshot lies between sections.
func isPadding(b []byte, i int) bool {
	f, err := parseSnapshot(b)
	if err != nil {
		return false
	}
	if i < snapHeader {
		return false
	}
	dirOff := int(binary.LittleEndian.Uint64(b[len(b)-snapTrailer:]))
	if i >= dirOff {
		return false
	}
	for _, s := range f.sec {
		if i >= int(s[0]) && i < int(s[0]+s[1]) {
			return false
		}
	}
	return true
}

func BenchmarkSnapshotRead(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	n := New[int64](0, 384)
	for k := int64(1); k <= 20000; k++ {
		r := randRow(rng, k, 384)
		n.Put(k, r.e, r.emb, []byte(r.text))
	}
	n.BuildSketches()
	data := snapBytes(b, n, 1)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		readSnap(b, data)
	}
}

// TestSnapshotDamagedPostings: the postings and term lists of a snapshot
// are checked block by block as they are first read: a search that meets
// a damaged block uses nothing of it and flags the namespace corrupt, one
// that reads only sound blocks does not, and a damaged namespace is not
// written to a snapshot again.
func TestSnapshotDamagedPostings(t *testing.T) {
	word := func(i int) string { // a term of its own for each entry, unchanged by stemming
		b := []byte("q")
		for range 4 {
			b = append(b, byte('a'+i%26))
			i /= 26
		}
		return string(append(b, 'k'))
	}
	build := func() *Namespace[int64] {
		n := New[int64](0, 8)
		rng := rand.New(rand.NewSource(9))
		for k := 1; k <= 3000; k++ {
			r := randRow(rng, int64(k), 8)
			r.e.AccessLevel, r.e.Deleted = 0, false
			n.Put(int64(k), r.e, r.emb, []byte(word(k)+" "+r.text))
		}
		return n
	}
	good := snapBytes(t, build(), 1)
	f, err := parseSnapshot(good)
	if err != nil {
		t.Fatal(err)
	}
	if lazyBlocks(int(f.sec[secPostings][1])) < 3 || lazyBlocks(int(f.sec[secArena][1])) < 2 {
		t.Fatalf("sections too small for the test: %d and %d bytes", f.sec[secPostings][1], f.sec[secArena][1])
	}
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: 3}, mnemo.Filter{}, time.Unix(0, 4000))
	find := func(m *Namespace[int64], k int) bool {
		for _, h := range m.Keyword([]string{word(k)}, 0, c, 5) {
			if h.ID == fmt.Sprintf("r%05d", k) {
				return true
			}
		}
		return false
	}
	id := func(k int) string { return fmt.Sprintf("r%05d", k) }

	// The last posting (the last entry's own term) damaged.
	b := slices.Clone(good)
	b[f.sec[secPostings][0]+f.sec[secPostings][1]-8] ^= 0x01
	m := readSnap(t, b)
	if m.Corrupt() {
		t.Fatal("corrupt before any use")
	}
	if !find(m, 1) || m.Corrupt() {
		t.Fatalf("a term in a sound block: found %v, corrupt %v", find(m, 1), m.Corrupt())
	}
	if _, ok := m.TermsOf(id(3000), 3); !ok || m.Corrupt() {
		t.Fatal("the term list of a sound block not read")
	}
	if find(m, 3000) || !m.Corrupt() {
		t.Fatalf("the damaged posting: found %v, corrupt %v", find(m, 3000), m.Corrupt())
	}
	var buf bytes.Buffer
	if err := m.WriteSnapshot(&buf, "label", 2, func(k int64) uint64 { return uint64(k) }); !errors.Is(err, ErrSnapshot) {
		t.Fatalf("a damaged namespace written to a snapshot: %v", err)
	}
	// A write to the damaged term before any read: its postings are not
	// copied out of the damaged block.
	m = readSnap(t, b)
	r := randRow(rand.New(rand.NewSource(10)), 3001, 8)
	r.e.AccessLevel, r.e.Deleted = 0, false
	m.Put(3001, r.e, r.emb, []byte(word(3000)))
	if !m.Corrupt() {
		t.Fatal("a write to a damaged block not detected")
	}
	for _, h := range m.Keyword([]string{word(3000)}, 0, c, 5) {
		if h.ID != r.e.ID {
			t.Fatalf("a posting copied out of the damaged block: %v", h)
		}
	}

	// The last term list (the last entry's) damaged.
	b = slices.Clone(good)
	b[f.sec[secArena][0]+f.sec[secArena][1]-2] ^= 0x40
	m = readSnap(t, b)
	if _, ok := m.TermsOf(id(1), 3); !ok || m.Corrupt() {
		t.Fatal("the term list of a sound block not read")
	}
	if ts, ok := m.TermsOf(id(3000), 3); ok || !m.Corrupt() {
		t.Fatalf("the damaged term list: %v, corrupt %v", ts, m.Corrupt())
	}

	// Sound: every block checks, and the snapshot written again is the same.
	m = readSnap(t, good)
	if !find(m, 1) || !find(m, 3000) || !m.kw.checkedAll() || m.Corrupt() {
		t.Fatal("a sound snapshot flagged")
	}
	if again := snapBytes(t, m, 1); !bytes.Equal(again, good) {
		t.Fatal("a sound snapshot written again differs")
	}
}

// TestSketchRestDamaged: a snapshot whose sketches are damaged past their
// first round is read (that part is checked slot by slot as searches read
// it), and the first search that reads the damaged slot flags the
// namespace corrupt, so that the store discards its answer.
func TestSketchRestDamaged(t *testing.T) {
	defer func(s int) { firstShare = s }(firstShare)
	firstShare = 1 << 40 // one stage: every slot's rest is read
	n, _ := sketchedRows(9, 300, 24)
	good := snapBytes(t, n, 3)
	f, err := parseSnapshot(good)
	if err != nil {
		t.Fatal(err)
	}
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: mnemo.MaxAccessLevel}, mnemo.Filter{}, time.Now())
	q := make([]float32, 24)
	q[0] = 1
	for _, at := range []int{0, 1, int(f.sec[secSignsRest][1]) / 2, int(f.sec[secSignsRest][1]) - 1} {
		b := slices.Clone(good)
		b[int(f.sec[secSignsRest][0])+at] ^= 4
		m := readSnap(t, b)
		if m.Corrupt() {
			t.Fatalf("byte %d of the sketches' rest: flagged before any search", at)
		}
		m.Vector(q, c, 10)
		if !m.Corrupt() {
			t.Fatalf("byte %d of the sketches' rest changed, a search read it unflagged", at)
		}
	}
	m := readSnap(t, good)
	m.Vector(q, c, 10)
	if m.Corrupt() || !m.VerifyVectors() {
		t.Fatal("an undamaged snapshot flagged")
	}
}

// TestSketchRestDamagedTwoStages: with 384 dimensions, a search in two
// stages reads the rest of the slots it lists with the assembly loop once
// their checksums are checked; a damaged rest read from a snapshot flags
// the namespace corrupt there too, and an undamaged one answers as the
// namespace it was written from.
func TestSketchRestDamagedTwoStages(t *testing.T) {
	defer func(s int) { firstShare = s }(firstShare)
	firstShare = 1 // two stages
	const dim, count = 384, 2000
	n, _ := sketchedRows(11, count, dim)
	good := snapBytes(t, n, 3)
	f, err := parseSnapshot(good)
	if err != nil {
		t.Fatal(err)
	}
	c := Compile(mnemo.Scope{Namespace: "x", Clearance: mnemo.MaxAccessLevel}, mnemo.Filter{}, time.Now())
	rng := rand.New(rand.NewSource(5))
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(rng.NormFloat64())
	}
	off, size := int(f.sec[secSignsRest][0]), int(f.sec[secSignsRest][1])
	per := size / count
	for _, at := range []int{0, 37, per - 1} {
		b := slices.Clone(good)
		for k := range count {
			b[off+k*per+at] ^= 8
		}
		m := readSnap(t, b)
		m.Vector(q, c, 10)
		if !m.Corrupt() {
			t.Fatalf("byte %d of every slot's rest changed, a search in two stages read them unflagged", at)
		}
	}
	m := readSnap(t, good)
	got, want := m.Vector(q, c, 10), n.Vector(q, c, 10)
	if m.Corrupt() || !slices.Equal(got, want) {
		t.Fatalf("an undamaged snapshot: corrupt %v, hits %v, want %v", m.Corrupt(), got, want)
	}
}
