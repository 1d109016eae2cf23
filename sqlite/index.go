package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// index is the in-memory search index: per namespace, the filter fields of
// every record and its normalised vector, kept current through seq.
type index struct {
	mu  sync.RWMutex
	seq int64 // every loaded namespace reflects the database up to seq
	ns  map[string]*nsIndex
}

// nsIndex holds one namespace. vecs is one contiguous slice; each entry
// points into it with off and dim. kw is the BM25 index of the text.
type nsIndex struct {
	ents []entry
	pos  map[int64]int  // rowid -> position in ents
	byID map[string]int // id -> position in ents (hard-deleted rows removed)
	vecs []float32
	// signs holds the sketch (see sketch) of every vector of dimension
	// sketchDim, at entry.sk: what Vector scans before rescoring exactly.
	signs     []uint64
	sketching bool    // sketches are built (the namespace reached sketchMin)
	building  bool    // a background build of the sketches is running
	puts      uint64  // writes so far: a background build is stale if it moved
	skEnt     []int32 // sketch slot -> entry position
	sketchDim int
	sketchBuf []float32
	kw        keywordIndex
}

func newNSIndex(count, dim int) *nsIndex {
	return &nsIndex{pos: make(map[int64]int, count), byID: make(map[string]int, count),
		ents: make([]entry, 0, count), vecs: make([]float32, 0, count*dim), kw: newKeywordIndex(count)}
}

func newIndex() *index { return &index{ns: make(map[string]*nsIndex)} }

// indexColumns are the columns scanEntry reads.
const indexColumns = `rowid, id, namespace, layer, kind, scope, component, mission, outcome, tags,
	criticality, access_level, created_at, valid_from, valid_to, deleted_at IS NOT NULL, seq, embedding, text`

// dbSeq reads the change counter.
func (s *Store) dbSeq(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'seq'`).Scan(&seq)
	return seq, err
}

// acquire brings the index of namespace ns up to date with the database
// and returns it with the read lock held; the caller must call
// s.idx.mu.RUnlock when done.
func (s *Store) acquire(ctx context.Context, ns string) (*nsIndex, error) {
	cur, err := s.dbSeq(ctx, s.rdb)
	if err != nil {
		return nil, err
	}
	s.idx.mu.RLock()
	if n, ok := s.idx.ns[ns]; ok && s.idx.seq >= cur {
		return n, nil
	}
	s.idx.mu.RUnlock()
	s.idx.mu.Lock()
	err = s.refresh(ctx, ns)
	s.idx.mu.Unlock()
	if err != nil {
		return nil, err
	}
	s.idx.mu.RLock()
	n, ok := s.idx.ns[ns]
	if !ok { // dropped in between: cannot happen today, but do not panic
		s.idx.mu.RUnlock()
		return nil, fmt.Errorf("index of namespace %q vanished", ns)
	}
	return n, nil
}

// refresh applies the rows changed since s.idx.seq to every loaded
// namespace and loads ns if needed, all from one snapshot. It runs under
// the write lock.
func (s *Store) refresh(ctx context.Context, ns string) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	cur, err := s.dbSeq(ctx, tx)
	if err != nil {
		return err
	}
	if cur > s.idx.seq && len(s.idx.ns) > 0 {
		rows, err := tx.QueryContext(ctx, `SELECT `+indexColumns+` FROM records WHERE seq > ? AND seq <= ?`, s.idx.seq, cur)
		if err != nil {
			return err
		}
		for rows.Next() {
			var e entry
			var space string
			var emb, text sql.RawBytes
			if err := scanEntry(rows, &e, &space, &emb, &text); err != nil {
				rows.Close()
				return err
			}
			if n := s.idx.ns[space]; n != nil {
				n.upsert(e, emb, text)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `SELECT rowid_, namespace FROM deleted_rows WHERE seq > ? AND seq <= ?`, s.idx.seq, cur)
		if err != nil {
			return err
		}
		for rows.Next() {
			var rowid int64
			var space string
			if err := rows.Scan(&rowid, &space); err != nil {
				rows.Close()
				return err
			}
			if n := s.idx.ns[space]; n != nil {
				n.remove(rowid)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	if _, ok := s.idx.ns[ns]; !ok {
		var count, blob int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(max(length(embedding)), 0) FROM records WHERE namespace = ?`, ns).Scan(&count, &blob); err != nil {
			return err
		}
		// Size everything once: growing a 100k x 384 slice row by row costs
		// copies, page faults and GC work that dominate a cold start.
		n := newNSIndex(count, blob/4)
		rows, err := tx.QueryContext(ctx, `SELECT `+indexColumns+` FROM records WHERE namespace = ? ORDER BY rowid`, ns)
		if err != nil {
			return err
		}
		err = n.load(rows, count)
		rows.Close()
		if err != nil {
			return err
		}
		s.idx.ns[ns] = n
	}
	if n := s.idx.ns[ns]; !n.sketching {
		switch {
		case len(n.ents) >= sketchMin:
			n.buildSketches()
		case len(n.ents) >= sketchAsyncMin && !n.building:
			// Worth having, but not worth delaying this call for: a
			// one-shot process exits before it would pay off.
			n.building = true
			go s.buildSketchesAsync(n)
		}
	}
	s.idx.seq = cur
	return nil
}

// buildSketches computes the sketch of every vector once the namespace is
// large enough for Vector to use them; put keeps them current from then on.
func (n *nsIndex) buildSketches() {
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
// changed the namespace meanwhile: then a later refresh tries again.
func (s *Store) buildSketchesAsync(n *nsIndex) {
	s.idx.mu.RLock()
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
	s.idx.mu.RUnlock()

	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	n.building = false
	if dim == 0 || n.sketching || n.puts != start || len(n.ents) != count {
		return
	}
	for i, sk := range sks {
		n.ents[i].sk = sk
	}
	n.signs, n.skEnt, n.sketchDim, n.sketchBuf, n.sketching = signs, skEnt, dim, buf, true
}

// pipelineMin is the namespace size from which load indexes the text in a
// second goroutine while the rows are being read (a variable for tests).
var pipelineMin = 2000

// load fills a new namespace index from rows of indexColumns. The SQL scan
// is single-threaded, and so is building the inverted index, so from
// pipelineMin rows on the text goes to a second goroutine in batches: a
// cold process (a hook running one digest) waits for the longer of the two
// instead of their sum.
func (n *nsIndex) load(rows *sql.Rows, count int) error {
	var space string
	var emb, text sql.RawBytes
	if count < pipelineMin || runtime.GOMAXPROCS(0) < 2 {
		for rows.Next() {
			var e entry
			if err := scanEntry(rows, &e, &space, &emb, &text); err != nil {
				return err
			}
			n.upsert(e, emb, text)
		}
		return rows.Err()
	}
	type batch struct {
		start int
		buf   []byte
		ends  []int
	}
	const batchRows = 512
	ch := make(chan *batch, 8)
	type kwFields struct {
		hash       uint64
		dl         int32
		tOff, tLen int32
	}
	fields := make([]kwFields, 0, count)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range ch {
			from := 0
			for i, end := range b.ends {
				var e entry
				t := b.buf[from:end]
				n.kw.index(b.start+i, &e, t)
				fields = append(fields, kwFields{textHash(t), e.dl, e.tOff, e.tLen})
				from = end
			}
		}
	}()
	cur := &batch{}
	var err error
	for rows.Next() {
		var e entry
		if err = scanEntry(rows, &e, &space, &emb, &text); err != nil {
			break
		}
		if len(cur.ends) == 0 {
			cur.start = len(n.ents)
		}
		n.put(e, emb)
		cur.buf = append(cur.buf, text...)
		cur.ends = append(cur.ends, len(cur.buf))
		if len(cur.ends) == batchRows {
			ch <- cur
			cur = &batch{buf: make([]byte, 0, len(cur.buf)+len(cur.buf)/8)}
		}
	}
	if err == nil {
		err = rows.Err()
	}
	if len(cur.ends) > 0 {
		ch <- cur
	}
	close(ch)
	<-done
	if err != nil {
		return err
	}
	for i, f := range fields {
		e := &n.ents[i]
		e.hash, e.dl, e.tOff, e.tLen, e.indexed = f.hash, f.dl, f.tOff, f.tLen, true
	}
	return nil
}

// scanEntry reads one row of indexColumns; emb and text are only valid
// until the next call of rows.Next.
func scanEntry(rows *sql.Rows, e *entry, ns *string, emb, text *sql.RawBytes) error {
	var (
		tags              sql.NullString
		created, from, to sql.NullInt64
		layer, kind       string
	)
	err := rows.Scan(&e.rowid, &e.id, ns, &layer, &kind, &e.scope, &e.component, &e.mission, &e.outcome,
		&tags, &e.criticality, &e.accessLevel, &created, &from, &to, &e.deleted, &e.seq, emb, text)
	if err != nil {
		return err
	}
	e.layer, e.kind = mnemo.Layer(layer), mnemo.Kind(kind)
	if e.tags, err = decodeStrings(tags); err != nil {
		return fmt.Errorf("decode tags of %s: %w", e.id, err)
	}
	e.created, e.validFrom, e.validTo = math.MinInt64, math.MinInt64, math.MaxInt64
	if created.Valid {
		e.created = created.Int64
	}
	if from.Valid {
		e.validFrom = from.Int64
	}
	if to.Valid {
		e.validTo = to.Int64
	}
	return nil
}

// upsert adds or replaces an entry; emb is the raw little-endian vector
// and text the record's text, whose terms replace the old ones unless the
// text is unchanged.
func (n *nsIndex) upsert(e entry, emb, text []byte) {
	i, ok := n.pos[e.rowid]
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
	n.put(e, emb)
	if ok {
		n.compact()
	}
}

// put adds or replaces an entry and its vector; its keyword fields must be
// set already (or are set by load).
func (n *nsIndex) put(e entry, emb []byte) {
	dim := len(emb) / 4
	n.puts++
	i, ok := n.pos[e.rowid]
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
		n.byID[e.id] = i
		return
	}
	n.pos[e.rowid] = len(n.ents)
	n.byID[e.id] = len(n.ents)
	n.ents = append(n.ents, e)
}

// setSketch stores the sketch of v (the vector of entry ent) and returns its position: at old when
// that slot is in use for the same dimension, else at the end. Vectors of
// another dimension than the namespace's first get none (-1).
func (n *nsIndex) setSketch(old int, v []float32, ent int) int {
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

// remove hides a hard-deleted row from every search and from the cache.
func (n *nsIndex) remove(rowid int64) {
	if i, ok := n.pos[rowid]; ok {
		e := &n.ents[i]
		n.kw.unindex(i, e)
		if j, ok := n.byID[e.id]; ok && j == i {
			delete(n.byID, e.id)
		}
		e.deleted = true
		e.dim = 0
		e.seq = -1
	}
}
