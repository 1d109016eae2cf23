package memindex

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
)

// Namespace holds one namespace of a store, its records keyed by the
// store's row key K. vecs is one contiguous slice; each entry points into
// it with off and dim. kw is the BM25 index of the text.
//
// A Namespace does no locking: the store guards it with one RWMutex,
// writes (Upsert, Remove, Sketch, Loader) under the write lock, searches
// under the read lock.
type Namespace[K comparable] struct {
	ents []Entry
	pos  map[K]int      // key -> position in ents
	byID map[string]int // id -> position in ents (removed rows dropped)
	vecs []float32
	// signs holds the sketch (see sketch) of every vector of dimension
	// sketchDim, at Entry.sk: what Vector scans before rescoring exactly.
	signs     []uint64
	sketching bool    // sketches are built (the namespace reached sketchMin)
	building  bool    // a background build of the sketches is running
	puts      uint64  // writes so far: a background build is stale if it moved
	skEnt     []int32 // sketch slot -> entry position
	sketchDim int
	sketchBuf []float32
	kw        keywordIndex
}

// New returns an empty namespace sized for count records of vectors of
// dimension dim.
func New[K comparable](count, dim int) *Namespace[K] {
	return &Namespace[K]{pos: make(map[K]int, count), byID: make(map[string]int, count),
		ents: make([]Entry, 0, count), vecs: make([]float32, 0, count*dim), kw: newKeywordIndex(count)}
}

// Len returns the number of entries, removed ones included.
func (n *Namespace[K]) Len() int { return len(n.ents) }

// ByID returns the entry of record id, or nil when there is none. The
// entry must not be modified, nor kept beyond the read lock.
func (n *Namespace[K]) ByID(id string) *Entry {
	if i, ok := n.byID[id]; ok {
		return &n.ents[i]
	}
	return nil
}

// Match returns the id of the row key when it is indexed and passes c.
func (n *Namespace[K]) Match(key K, c *Cond) (string, bool) {
	i, ok := n.pos[key]
	if !ok || !c.Matches(&n.ents[i]) {
		return "", false
	}
	return n.ents[i].ID, true
}

// Upsert adds or replaces the entry of row key; emb is the raw
// little-endian float32 vector (empty for none) and text the record's
// text, whose terms replace the old ones unless the text is unchanged.
func (n *Namespace[K]) Upsert(key K, e Entry, emb, text []byte) {
	i, ok := n.pos[key]
	e.hash = textHash(text)
	if ok && n.ents[i].indexed && n.ents[i].hash == e.hash {
		old := &n.ents[i]
		e.indexed, e.dl, e.tOff, e.tLen = true, old.dl, old.tOff, old.tLen
	} else {
		at := len(n.ents)
		if ok {
			n.kw.unindex(i, &n.ents[i])
			at = i
		}
		n.kw.index(at, &e, text)
	}
	n.put(key, e, emb)
	if ok {
		n.compact()
	}
}

// put adds or replaces an entry and its vector; its keyword fields must be
// set already (or are set by a Loader).
func (n *Namespace[K]) put(key K, e Entry, emb []byte) {
	dim := len(emb) / 4
	n.puts++
	i, ok := n.pos[key]
	e.sk = -1
	if ok {
		e.sk = n.ents[i].sk // reuse the sketch slot
	}
	if ok && n.ents[i].dim == dim && dim > 0 {
		e.off = n.ents[i].off // overwrite in place
	} else if dim > 0 {
		e.off = len(n.vecs)
		if cap(n.vecs)-len(n.vecs) < dim {
			// Double the backing array: appending a fresh slice per row
			// costs an allocation and, at 1.25x growth, many large copies.
			n.vecs = slices.Grow(n.vecs, max(dim, len(n.vecs)))
		}
		n.vecs = n.vecs[:len(n.vecs)+dim] // every element is written below
	}
	e.dim = dim
	if dim > 0 {
		v := n.vecs[e.off : e.off+dim]
		var sum float64
		for j := range v {
			x := math.Float32frombits(binary.LittleEndian.Uint32(emb[4*j:]))
			v[j] = x
			sum += float64(x) * float64(x)
		}
		if sum > 0 {
			inv := float32(1 / math.Sqrt(sum))
			for j := range v {
				v[j] *= inv
			}
		}
		if n.sketching {
			at := len(n.ents)
			if ok {
				at = i
			}
			e.sk = n.setSketch(e.sk, v, at)
		}
	} else {
		e.sk = -1
	}
	if ok {
		n.ents[i] = e
		n.byID[e.ID] = i
		return
	}
	n.pos[key] = len(n.ents)
	n.byID[e.ID] = len(n.ents)
	n.ents = append(n.ents, e)
}

// Remove hides a row that is gone (hard-deleted) from every search and
// from ByID.
func (n *Namespace[K]) Remove(key K) {
	if i, ok := n.pos[key]; ok {
		e := &n.ents[i]
		n.kw.unindex(i, e)
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
		l.cur.start = len(l.n.ents)
	}
	l.n.put(key, e, emb)
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
		e := &l.n.ents[i]
		e.hash, e.dl, e.tOff, e.tLen, e.indexed = f.hash, f.dl, f.tOff, f.tLen, true
	}
}

// Sketch starts or runs the build of the sign sketches once the
// namespace is large enough to search through them: synchronously from
// sketchMin entries, in the background from sketchAsyncMin. It runs under
// the write lock mu, which the background build takes in turn.
func (n *Namespace[K]) Sketch(mu *sync.RWMutex) {
	if n.sketching {
		return
	}
	switch {
	case len(n.ents) >= sketchMin:
		n.BuildSketches()
	case len(n.ents) >= sketchAsyncMin && !n.building:
		// Worth having, but not worth delaying this call for: a
		// one-shot process exits before it would pay off.
		n.building = true
		go n.buildSketchesAsync(mu)
	}
}

// Sketching reports whether the sketches are built (under the read lock).
func (n *Namespace[K]) Sketching() bool { return n.sketching }

// BuildSketches computes the sketch of every vector now; writes keep them
// current from then on.
func (n *Namespace[K]) BuildSketches() {
	n.sketching = true
	for i := range n.ents {
		e := &n.ents[i]
		e.sk = -1
		if e.dim > 0 {
			e.sk = n.setSketch(-1, n.vecs[e.off:e.off+e.dim], i)
		}
	}
}

// buildSketchesAsync computes the sketches of n under the read lock (so
// searches go on) and installs them under the write lock, unless a write
// changed the namespace meanwhile: then a later Sketch tries again.
func (n *Namespace[K]) buildSketchesAsync(mu *sync.RWMutex) {
	mu.RLock()
	start, count, dim := n.puts, len(n.ents), 0
	for i := range n.ents {
		if n.ents[i].dim > 0 {
			dim = n.ents[i].dim
			break
		}
	}
	words := sketchWords(dim)
	sks := make([]int, count)
	signs := make([]uint64, 0, count*words)
	skEnt := make([]int32, 0, count)
	buf := make([]float32, words*64)
	for i := range n.ents {
		e := &n.ents[i]
		sks[i] = -1
		if dim > 0 && e.dim == dim {
			sks[i] = len(signs)
			signs = append(signs, make([]uint64, words)...)
			sketch(n.vecs[e.off:e.off+e.dim], signs[sks[i]:sks[i]+words], buf)
			skEnt = append(skEnt, int32(i))
		}
	}
	mu.RUnlock()

	mu.Lock()
	defer mu.Unlock()
	n.building = false
	if dim == 0 || n.sketching || n.puts != start || len(n.ents) != count {
		return
	}
	for i, sk := range sks {
		n.ents[i].sk = sk
	}
	n.signs, n.skEnt, n.sketchDim, n.sketchBuf, n.sketching = signs, skEnt, dim, buf, true
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
	if len(n.sketchBuf) != words*64 {
		n.sketchBuf = make([]float32, words*64)
	}
	at := old
	if at < 0 {
		at = len(n.signs)
		n.signs = append(n.signs, make([]uint64, words)...)
		n.skEnt = append(n.skEnt, int32(ent))
	}
	sketch(v, n.signs[at:at+words], n.sketchBuf)
	return at
}
