package engine

import (
	"cmp"
	"context"
	"hash/fnv"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Thread context.
//
// A message in a conversation leans on the ones before it: "They loved the
// dinosaur bones!" says nothing of children or museums, the turn it answers
// does. So the vector of a record that names a thread is not the embedding
// of its own text alone but
//
//	v_i = normalise(e_i + contextWeight · v_p)
//
// where e_i is the embedding of its text and v_p the (already contextual)
// vector of p, the record before it in the thread. Unrolled, a record
// carries its predecessor at half weight, the one before at a quarter, and
// so on: a fading trace of the thread. The keyword channel keeps each
// record's own words only, so the two channels see a record differently:
// BM25 what it says, the vector what it is about.
//
// p is the latest record of the same namespace and thread that was created
// no later than the record (ties broken by id), is not forgotten, and whose
// access level is at most the record's own: a record never carries words of
// one its readers may not see.
//
// The vectors of a thread's live records always equal what Reembed computes
// from scratch (a property test checks it): appending reads one stored
// record per access level and changes no stored vector; a batch dated into
// the middle of a thread, an edit of a record's text, access level or
// thread, a forget, a restore or a merge re-chains the records dated from
// it on. So forgetting a record also takes its words out of the vectors of
// the turns after it.
const contextWeight = 0.5

// threadNode is one record of a thread in context order.
type threadNode struct {
	rec   *mnemo.Record
	own   []float32 // the embedding of the record's own text; nil for a stored record kept as it is
	fixed bool      // a stored record: its vector is context, not recomputed
}

func threadOrder(a, b threadNode) int {
	if c := a.rec.CreatedAt.Compare(b.rec.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.rec.ID, b.rec.ID)
}

// chain sets the contextual vector of every node that is not fixed, in
// thread order. nodes must be sorted by threadOrder; a forgotten node is
// never context.
func chain(nodes []threadNode) {
	for i := range nodes {
		n := &nodes[i]
		if n.fixed {
			continue
		}
		v := n.own
		for j := i - 1; j >= 0; j-- {
			p := nodes[j].rec
			if p.DeletedAt != nil || p.AccessLevel > n.rec.AccessLevel {
				continue
			}
			if len(p.Embedding) == len(v) && len(v) > 0 {
				v = blend(v, p.Embedding)
			}
			break
		}
		n.rec.Embedding = v
	}
}

// blend returns normalise(own + contextWeight·prev) as a new slice; own is
// returned unchanged when the sum is zero.
func blend(own, prev []float32) []float32 {
	out := make([]float32, len(own))
	var norm float64
	for i := range out {
		x := own[i] + contextWeight*prev[i]
		out[i] = x
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return own
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range out {
		out[i] *= inv
	}
	return out
}

// threadContext gives the records of one write (already embedded with their
// own text) their thread context, and returns the stored records whose
// vectors change with them (records of the same threads dated after the
// batch's first record, which the caller stores with SetEmbeddings once
// the batch is written). Appending to a thread changes no stored vector.
func (s *Service) threadContext(ctx context.Context, recs []*mnemo.Record) ([]*mnemo.Record, error) {
	type key struct{ ns, thread string }
	groups := map[key][]*mnemo.Record{}
	var order []key
	for _, r := range recs {
		if r.Thread == "" {
			continue
		}
		k := key{r.Namespace, r.Thread}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var changed []*mnemo.Record
	for _, k := range order {
		batch := groups[k]
		from := batch[0].CreatedAt
		for _, r := range batch {
			if r.CreatedAt.Before(from) {
				from = r.CreatedAt
			}
		}
		ch, err := s.relink(ctx, k.ns, k.thread, batch, from)
		if err != nil {
			return nil, err
		}
		changed = append(changed, ch...)
	}
	return changed, nil
}

// rechain recomputes, and stores, the vectors of the records of a thread
// dated at or after from: what Update, Forget and Restore call when a
// record's words, access level or presence in its thread change.
func (s *Service) rechain(ctx context.Context, ns, thread string, from time.Time) error {
	if thread == "" {
		return nil
	}
	changed, err := s.relink(ctx, ns, thread, nil, from)
	if err != nil {
		return err
	}
	return s.storeVectors(ctx, changed)
}

// storeVectors writes the vectors of records already stored.
func (s *Service) storeVectors(ctx context.Context, recs []*mnemo.Record) error {
	if len(recs) == 0 {
		return nil
	}
	return s.store.SetEmbeddings(ctx, vectorsOf(recs))
}

// vectorsOf returns the vectors of records by key (nil for none).
func vectorsOf(recs []*mnemo.Record) map[mnemo.RecordKey][]float32 {
	if len(recs) == 0 {
		return nil
	}
	m := make(map[mnemo.RecordKey][]float32, len(recs))
	for _, r := range recs {
		m[mnemo.RecordKey{Namespace: r.Namespace, ID: r.ID}] = r.Embedding
	}
	return m
}

// relink chains the records of one thread from time from on: batch (records
// about to be written or rewritten, own embeddings in Embedding) and the
// thread's stored records dated at or after from, which are re-embedded
// from their text; the records before from are context as they are stored.
// It sets the batch's vectors and returns the stored records whose vectors
// changed.
func (s *Service) relink(ctx context.Context, ns, thread string, batch []*mnemo.Record, from time.Time) ([]*mnemo.Record, error) {
	all := mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}
	mine := make(map[string]bool, len(batch))
	nodes := make([]threadNode, 0, len(batch)+1)
	levels := map[int]bool{}
	for _, r := range batch {
		mine[r.ID] = true
		levels[r.AccessLevel] = true
		nodes = append(nodes, threadNode{rec: r, own: r.Embedding})
	}
	// The stored records from `from` on are re-chained with the batch.
	later, err := s.store.List(ctx, all, mnemo.ListOptions{Filter: mnemo.Filter{Thread: thread, Since: &from},
		ByTime: true, Limit: maxThreadSpan, IncludeHistory: true})
	if err != nil {
		return nil, err
	}
	var restamp []*mnemo.Record
	for _, r := range later {
		if mine[r.ID] {
			continue
		}
		c := *r // the store may share r; the new vector goes on a copy
		restamp = append(restamp, &c)
		levels[r.AccessLevel] = true
	}
	if len(restamp) > 0 {
		texts := make([]string, len(restamp))
		for i, r := range restamp {
			texts[i] = embedText(r)
		}
		vecs, err := s.embedAll(ctx, texts)
		if err != nil {
			return nil, err
		}
		for i, r := range restamp {
			nodes = append(nodes, threadNode{rec: r, own: vecs[i]})
		}
	}
	// Context before `from`: for each access level, the latest record it
	// may see (a handful of indexed reads); with many distinct levels, the
	// whole earlier thread in one read.
	before := &from
	seen := map[string]bool{}
	addFixed := func(rs []*mnemo.Record) {
		for _, r := range rs {
			if !mine[r.ID] && !seen[r.ID] {
				seen[r.ID] = true
				nodes = append(nodes, threadNode{rec: r, fixed: true})
			}
		}
	}
	if len(levels) > maxLevelReads {
		prev, err := s.store.List(ctx, all, mnemo.ListOptions{Filter: mnemo.Filter{Thread: thread, Until: before},
			ByTime: true, Limit: maxThreadSpan, IncludeHistory: true})
		if err != nil {
			return nil, err
		}
		addFixed(prev)
	} else {
		for level := range levels {
			prev, err := s.store.List(ctx, mnemo.Scope{Namespace: ns, Clearance: level}, mnemo.ListOptions{
				Filter: mnemo.Filter{Thread: thread, Until: before}, ByTime: true, Limit: 1, IncludeHistory: true})
			if err != nil {
				return nil, err
			}
			addFixed(prev)
		}
	}
	slices.SortStableFunc(nodes, threadOrder)
	chain(nodes)
	old := make(map[string][]float32, len(later))
	for _, r := range later {
		old[r.ID] = r.Embedding
	}
	var changed []*mnemo.Record
	for _, r := range restamp {
		if !slices.Equal(r.Embedding, old[r.ID]) {
			changed = append(changed, r)
		}
	}
	return changed, nil
}

// embedAll embeds texts in batches of 256.
func (s *Service) embedAll(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += 256 {
		vecs, err := s.emb.Embed(ctx, texts[i:min(i+256, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// maxThreadSpan bounds how many records of one thread a write re-chains.
const maxThreadSpan = 100_000

// maxLevelReads is how many access levels get a predecessor read each
// before relink reads the whole earlier thread instead.
const maxLevelReads = 8

// rethread recomputes the vectors of every thread among recs from their
// own embeddings (own[key]), as Reembed does: recs holds whole threads.
func rethread(recs []*mnemo.Record, own map[mnemo.RecordKey][]float32) {
	type key struct{ ns, thread string }
	groups := map[key][]threadNode{}
	for _, r := range recs {
		if r.Thread == "" {
			continue
		}
		k := key{r.Namespace, r.Thread}
		groups[k] = append(groups[k], threadNode{rec: r, own: own[mnemo.RecordKey{Namespace: r.Namespace, ID: r.ID}]})
	}
	for _, nodes := range groups {
		slices.SortStableFunc(nodes, threadOrder)
		chain(nodes)
	}
}

// threadLocks serialise the writes that touch the same thread within one
// Service, so that concurrent appends to a conversation chain each record
// after the one before it. Threads hash to one of a fixed set of stripes;
// a write locks the stripes of its threads in index order (no deadlock).
// Writers in other processes sharing the store are not covered: `mnemo
// reembed` restores the chain after such a race.
type threadLocks struct {
	mu [64]sync.Mutex
}

// lock locks the stripes of the given threads of namespace ns (empty
// threads ignored) and returns the function that unlocks them.
func (l *threadLocks) lock(ns string, threads ...string) func() {
	var idx []int
	for _, t := range threads {
		if t == "" {
			continue
		}
		if i := l.stripe(ns, t); !slices.Contains(idx, i) {
			idx = append(idx, i)
		}
	}
	return l.lockStripes(idx)
}

// stripe is the index of the stripe of thread t of namespace ns.
func (l *threadLocks) stripe(ns, t string) int {
	h := fnv.New64a()
	h.Write([]byte(ns))
	h.Write([]byte{0})
	h.Write([]byte(t))
	return int(h.Sum64() % uint64(len(l.mu)))
}

// lockStripes sorts the stripes idx (distinct indexes) in place, locks
// them in that order and returns the function that unlocks them.
func (l *threadLocks) lockStripes(idx []int) func() {
	slices.Sort(idx)
	for _, i := range idx {
		l.mu[i].Lock()
	}
	return func() {
		for k := len(idx) - 1; k >= 0; k-- {
			l.mu[idx[k]].Unlock()
		}
	}
}

// LockThread takes the lock this service's writers of a thread of
// namespace ns hold and returns its release: work beside the service that
// reads a thread and records what it read (extraction,
// episodes.Extractor.Lock) sees no write of the thread half done. Records
// written under it must name no thread.
func (s *Service) LockThread(ns, thread string) func() { return s.threads.lock(ns, thread) }

// lockAll locks every stripe (Reembed rewrites every thread).
func (l *threadLocks) lockAll() func() {
	for i := range l.mu {
		l.mu[i].Lock()
	}
	return func() {
		for i := len(l.mu) - 1; i >= 0; i-- {
			l.mu[i].Unlock()
		}
	}
}

// Threads lists the namespace's threads visible to the caller, most
// recently active first.
func (s *Service) Threads(ctx context.Context) ([]mnemo.ThreadInfo, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return nil, err
	}
	return s.store.Threads(ctx, sc)
}
