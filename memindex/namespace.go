package memindex

import (
	"slices"
	"sync"
)

// Namespace holds one namespace of a store, its records keyed by the
// store's row key K. vecs holds every vector, normalised and quantised to
// int8 with a scale per vector (quant.go), in one contiguous slice; each
// entry points into it with off and dim. kw is the BM25 index of the text.
//
// A Namespace does no locking: the store guards it with one RWMutex,
// writes (Upsert, Remove, Sketch, Loader) under the write lock, searches
// under the read lock.
type Namespace[K comparable] struct {
	// es holds the entries by position, or when the namespace was read
	// from a snapshot those added since, from position lazy.count on: the
	// snapshot's are decoded on first use (lazyents.go). Read entries
	// through ent and keys through keyAt.
	es   []Entry
	keys []K            // position -> key
	pos  map[K]int      // key -> position (read from a snapshot: the keys written since; lazy has the others)
	byID map[string]int // id -> position, removed rows dropped (read from a snapshot: as pos)
	lazy *lazyEnts[K]   // the snapshot the namespace was read from, its entries decoded as read; nil when built from rows
	vecs []int8
	// vecBuf is scratch for one vector in float32 (under the write lock).
	vecBuf []float32
	// signs holds the sketch (see sketch) of every vector of dimension
	// sketchDim, in slot Entry.sk: what Vector scans before rescoring
	// exactly.
	signs      signTable
	sketching  bool         // sketches are built and kept current by every write
	build      *sketchBuild // the background build of the sketches, while it runs
	builds     int          // full builds of the sketches so far
	skEnt      []int32      // sketch slot -> entry position
	sketchDim  int
	sketchBuf  []float32
	sketchBits []uint64 // one sketch, under the write lock
	kw         keywordIndex
	thr        threadMembers // each thread's entries in order, for document expansion
	thrCap     int64         // the sum of the capacities of thr's lists (MemoryBytes)
	snapVecs                 // checksums of the vectors read from a snapshot (snapshot.go)
}

// New returns an empty namespace sized for count records of vectors of
// dimension dim.
func New[K comparable](count, dim int) *Namespace[K] {
	return &Namespace[K]{pos: make(map[K]int, count), byID: make(map[string]int, count),
		es: make([]Entry, 0, count), keys: make([]K, 0, count), vecs: make([]int8, 0, count*dim), kw: newKeywordIndex(count)}
}

// Len returns the number of entries, removed ones included.
func (n *Namespace[K]) Len() int {
	if n.lazy != nil {
		return n.lazy.count + len(n.es)
	}
	return len(n.es)
}

// ByID returns the entry of record id, or nil when there is none. The
// entry must not be modified, nor kept beyond the read lock.
func (n *Namespace[K]) ByID(id string) *Entry {
	if i, ok := n.idPos(id); ok {
		return n.ent(i)
	}
	return nil
}

// Key returns the row key of record id, when the namespace holds it (as
// ByID). It must be called under the read lock.
func (n *Namespace[K]) Key(id string) (K, bool) {
	if i, ok := n.idPos(id); ok {
		return n.keyAt(i), true
	}
	var k K
	return k, false
}

// Match returns the id of the row key when it is indexed and passes c.
func (n *Namespace[K]) Match(key K, c *Cond) (string, bool) {
	i, ok := n.posOf(key)
	if !ok || !c.Matches(n.ent(i)) {
		return "", false
	}
	return n.ent(i).ID, true
}

// Upsert adds or replaces the entry of row key; emb is the raw
// little-endian float32 vector (empty for none) and text the record's
// text, whose terms replace the old ones unless the text is unchanged.
func (n *Namespace[K]) Upsert(key K, e Entry, emb, text []byte) {
	n.upsert(key, e, emb, text, nil)
}

// upsert is Upsert, taking what p holds from p when it is not nil (see
// Prepared).
func (n *Namespace[K]) upsert(key K, e Entry, emb, text []byte, p *Prepared) {
	i, ok := n.posOf(key)
	if p != nil {
		e.hash = p.hash
	} else {
		e.hash = textHash(text)
	}
	if ok && n.ent(i).indexed && n.ent(i).hash == e.hash {
		old := n.ent(i)
		e.indexed, e.dl, e.tOff, e.tLen = true, old.dl, old.tOff, old.tLen
	} else {
		at := n.Len()
		if ok {
			n.kw.unindex(i, n.ent(i))
			at = i
		}
		if p != nil {
			n.kw.indexTerms(at, &e, text, p.terms, p.ends)
		} else {
			n.kw.index(at, &e, text)
		}
	}
	n.put(key, e, emb, p)
	if ok {
		n.compact()
	}
}

// put adds or replaces an entry and its vector; its keyword fields must be
// set already (or are set by a Loader). The vector's codes and sketch are
// taken from p when it is not nil.
func (n *Namespace[K]) put(key K, e Entry, emb []byte, p *Prepared) {
	dim := len(emb) / 4
	i, ok := n.posOf(key)
	if ok {
		n.build.touch(i)
	}
	e.sk = -1
	if ok {
		e.sk = n.ent(i).sk // reuse the sketch slot
	}
	if ok && n.ent(i).dim == dim && dim > 0 {
		e.off = n.ent(i).off // overwrite in place
	} else if dim > 0 {
		e.off = len(n.vecs)
		if cap(n.vecs)-len(n.vecs) < dim {
			// Grow the backing array by a quarter: room for many rows
			// per allocation, while at most a fifth of it stands empty
			// (doubling left up to half of it so, 39 MB at 100,000
			// vectors of 384 dimensions). The copies this costs are of
			// one byte per dimension.
			n.vecs = slices.Grow(n.vecs, max(dim, len(n.vecs)/4))
		}
		n.vecs = n.vecs[:len(n.vecs)+dim] // every element is written below
	}
	e.dim = dim
	if ok {
		n.vecWritten(i)
	}
	if dim > 0 && p != nil {
		copy(n.vecs[e.off:e.off+dim], p.codes)
		e.vs, e.ve = p.vs, p.ve
		if n.sketching {
			at := n.Len()
			if ok {
				at = i
			}
			e.sk = n.setSketchBits(e.sk, dim, p.sk, at)
		}
	} else if dim > 0 {
		if cap(n.vecBuf) < dim {
			n.vecBuf = make([]float32, dim)
		}
		v := n.vecBuf[:dim]
		normalizeRaw(emb, v)
		e.vs, e.ve = quantize(v, n.vecs[e.off:e.off+dim])
		if n.sketching {
			at := n.Len()
			if ok {
				at = i
			}
			// The sketch is of the stored (dequantised) vector, as a
			// build from the stored vectors makes it.
			dequantize(n.vecs[e.off:e.off+dim], e.vs, v)
			e.sk = n.setSketch(e.sk, v, at)
		}
	} else {
		e.sk = -1
	}
	if ok {
		old := *n.ent(i)
		*n.ent(i) = e
		n.byID[e.ID] = i
		n.thrCap += n.thr.moved(n.ent, int32(i), &old)
		return
	}
	n.pos[key] = n.Len()
	n.byID[e.ID] = n.Len()
	n.appendEntry(e, key)
	n.thrCap += n.thr.moved(n.ent, int32(n.Len()-1), nil)
}

// Remove hides a row that is gone (hard-deleted) from every search and
// from ByID.
func (n *Namespace[K]) Remove(key K) {
	if i, ok := n.posOf(key); ok {
		n.build.touch(i)
		e := n.ent(i)
		n.kw.unindex(i, e)
		if e.Thread != "" && e.Seq != -1 {
			n.thrCap += n.thr.drop(e.Thread, int32(i))
		}
		if j, ok := n.byID[e.ID]; ok && j == i {
			delete(n.byID, e.ID)
		}
		e.Deleted = true
		e.dim = 0
		e.Seq = -1
	}
}

// Loader fills a new namespace. Reading rows is single-threaded, and so
// is building the inverted index, so a pipelined Loader indexes the text
// in a second goroutine in batches: a cold process (a hook running one
// digest) waits for the longer of the two instead of their sum.
type Loader[K comparable] struct {
	n      *Namespace[K]
	ch     chan *loadBatch
	done   chan struct{}
	cur    *loadBatch
	fields []kwFields
}

type loadBatch struct {
	start int
	buf   []byte
	ends  []int
}

type kwFields struct {
	hash       uint64
	dl         int32
	tOff, tLen int32
}

const loadBatchRows = 512

// Load returns a Loader of n, which must be new; pipelined starts the
// indexing goroutine (worth it from a few thousand rows on a machine
// with two or more CPUs), count is the expected number of rows.
func (n *Namespace[K]) Load(count int, pipelined bool) *Loader[K] {
	l := &Loader[K]{n: n}
	if !pipelined {
		return l
	}
	l.ch = make(chan *loadBatch, 8)
	l.done = make(chan struct{})
	l.fields = make([]kwFields, 0, count)
	l.cur = &loadBatch{}
	go func() {
		defer close(l.done)
		for b := range l.ch {
			from := 0
			for i, end := range b.ends {
				var e Entry
				t := b.buf[from:end]
				n.kw.index(b.start+i, &e, t)
				l.fields = append(l.fields, kwFields{textHash(t), e.dl, e.tOff, e.tLen})
				from = end
			}
		}
	}()
	return l
}

// Add adds a row, as Upsert; emb and text may be reused after it returns.
func (l *Loader[K]) Add(key K, e Entry, emb, text []byte) {
	if l.ch == nil {
		l.n.Upsert(key, e, emb, text)
		return
	}
	if len(l.cur.ends) == 0 {
		l.cur.start = l.n.Len()
	}
	l.n.put(key, e, emb, nil)
	l.cur.buf = append(l.cur.buf, text...)
	l.cur.ends = append(l.cur.ends, len(l.cur.buf))
	if len(l.cur.ends) == loadBatchRows {
		l.ch <- l.cur
		l.cur = &loadBatch{buf: make([]byte, 0, len(l.cur.buf)+len(l.cur.buf)/8)}
	}
}

// Close waits for the indexing to finish; the namespace is complete only
// after it. It must be called even when reading the rows failed.
func (l *Loader[K]) Close() {
	if l.ch == nil {
		return
	}
	if len(l.cur.ends) > 0 {
		l.ch <- l.cur
	}
	close(l.ch)
	<-l.done
	l.ch = nil
	for i, f := range l.fields {
		e := l.n.ent(i)
		e.hash, e.dl, e.tOff, e.tLen, e.indexed = f.hash, f.dl, f.tOff, f.tLen, true
	}
}

// Sketch starts or runs the build of the sign sketches once the
// namespace is large enough to search through them: synchronously from
// sketchMin entries, in the background from sketchAsyncMin. It runs under
// the write lock mu, which the background build takes in turn. A build
// happens once: from then on every write keeps the sketches current, and
// writes made while a background build runs are caught up when it is
// installed. Until then searches scan every vector.
func (n *Namespace[K]) Sketch(mu *sync.RWMutex) {
	if n.sketching || n.build != nil {
		return
	}
	switch {
	case n.Len() >= sketchMin:
		n.BuildSketches()
	case n.Len() >= sketchAsyncMin:
		// Worth having, but not worth delaying this call for: a
		// one-shot process exits before it would pay off.
		b := &sketchBuild{count: n.Len()}
		n.build = b
		n.builds++
		go n.buildSketchesAsync(mu, b)
	}
}

// Sketching reports whether the sketches are built (under the read lock).
func (n *Namespace[K]) Sketching() bool { return n.sketching }

// BuildSketches computes the sketch of every vector now; writes keep them
// current from then on.
func (n *Namespace[K]) BuildSketches() {
	n.build = nil // a background build in flight is dropped
	n.builds++
	n.signs.reset(0, 0)
	n.skEnt, n.sketchDim = n.skEnt[:0], 0
	n.sketching = true
	n.decodeAll()
	for i := range n.Len() {
		e := n.ent(i)
		e.sk = -1
		if e.dim > 0 {
			e.sk = n.setSketch(-1, n.vector(e), i)
		}
	}
}

// sketchBuild is a background build of the sketches. It sketches the
// first count entries, a chunk at a time under the read lock; the
// positions among them written meanwhile are noted in dirty, and they and
// the entries appended since are sketched when the build is installed.
type sketchBuild struct {
	count int
	dirty []int
	sks   []int // entry position -> sketch slot, -1 = none
	signs signTable
	skEnt []int32
	dim   int
	buf   []float32
	dq    []float32 // one vector dequantised
	bits  []uint64  // its sketch
	next  int       // the next position to sketch
}

// sketchChunk is how many entries a background build sketches per hold of
// the read lock: a fraction of a millisecond, which a waiting write may be
// delayed by.
const sketchChunk = 16

// touch notes that entry position i changed; b may be nil (no build runs).
func (b *sketchBuild) touch(i int) {
	if b != nil && i < b.count {
		b.dirty = append(b.dirty, i)
	}
}

// step sketches the next chunk of entries, under the read lock, and
// reports whether every entry of the snapshot is done.
func (b *sketchBuild) step(vecs []int8, ents entAt) bool {
	if b.sks == nil {
		for i := range b.count {
			if ents(i).dim > 0 {
				b.dim = ents(i).dim
				break
			}
		}
		words := sketchWords(b.dim)
		b.sks = make([]int, b.count)
		b.signs.reset(words, b.count)
		b.skEnt = make([]int32, 0, b.count)
		b.buf = make([]float32, words*64)
		b.bits = make([]uint64, words)
		b.dq = make([]float32, b.dim)
	}
	end := min(b.next+sketchChunk, b.count)
	for i := b.next; i < end; i++ {
		e := ents(i)
		b.sks[i] = -1
		if b.dim > 0 && e.dim == b.dim {
			dequantize(vecs[e.off:e.off+e.dim], e.vs, b.dq)
			sketch(b.dq, b.bits, b.buf)
			b.sks[i] = b.signs.add(b.bits)
			b.skEnt = append(b.skEnt, int32(i))
		}
	}
	b.next = end
	return b.next >= b.count
}

// install makes the sketches of b the namespace's, under the write lock:
// the entries written while it ran are sketched again, those appended
// since are sketched for the first time.
func (n *Namespace[K]) install(b *sketchBuild) {
	n.build = nil
	for i, sk := range b.sks {
		n.ent(i).sk = sk
	}
	n.signs, n.skEnt, n.sketchDim, n.sketchBuf = b.signs, b.skEnt, b.dim, b.buf
	n.sketching = true
	for _, i := range b.dirty {
		n.resketch(i)
	}
	for i := b.count; i < n.Len(); i++ {
		n.ent(i).sk = -1
		n.resketch(i)
	}
}

// resketch brings the sketch of entry position i up to date with its vector.
func (n *Namespace[K]) resketch(i int) {
	e := n.ent(i)
	if e.dim == 0 {
		e.sk = -1
		return
	}
	e.sk = n.setSketch(e.sk, n.vector(e), i)
}

// buildSketchesAsync runs build b: it sketches the entries a chunk at a
// time under the read lock (so searches and writes go on in between) and
// installs the sketches under the write lock, unless b was dropped
// meanwhile.
func (n *Namespace[K]) buildSketchesAsync(mu *sync.RWMutex, b *sketchBuild) {
	for done := false; !done; {
		mu.RLock()
		if n.build != b {
			mu.RUnlock()
			return
		}
		done = b.step(n.vecs, n.ent)
		mu.RUnlock()
	}
	mu.Lock()
	defer mu.Unlock()
	if n.build == b {
		n.install(b)
	}
}

// setSketch stores the sketch of v (the vector of entry ent) and returns
// its position: at old when that slot is in use for the same dimension,
// else at the end. Vectors of another dimension than the namespace's first
// get none (-1).
func (n *Namespace[K]) setSketch(old int, v []float32, ent int) int {
	if n.sketchDim == 0 {
		n.sketchDim = len(v)
	}
	if len(v) != n.sketchDim {
		return -1
	}
	words := sketchWords(len(v))
	if len(n.sketchBuf) != words*64 || len(n.sketchBits) != words {
		n.sketchBuf, n.sketchBits = make([]float32, words*64), make([]uint64, words)
	}
	sketch(v, n.sketchBits, n.sketchBuf)
	return n.setSketchBits(old, len(v), n.sketchBits, ent)
}

// setSketchBits is setSketch of a vector of dimension dim whose sketch
// bits are known already.
func (n *Namespace[K]) setSketchBits(old, dim int, bits []uint64, ent int) int {
	if n.sketchDim == 0 {
		n.sketchDim = dim
	}
	if dim != n.sketchDim {
		return -1
	}
	if n.signs.len() == 0 {
		n.signs.reset(sketchWords(dim), 0)
	}
	if old >= 0 {
		n.signs.set(old, bits)
		return old
	}
	n.skEnt = append(n.skEnt, int32(ent))
	return n.signs.add(bits)
}
