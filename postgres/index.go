package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
)

// index is the in-memory vector index: per namespace, the filter fields of
// every record and its normalised vector, kept current through seq.
type index struct {
	mu  sync.RWMutex
	seq int64 // every loaded namespace reflects the database up to seq
	ns  map[string]*nsIndex
}

// nsIndex holds one namespace. vecs is one contiguous slice; each entry
// points into it with off and dim.
type nsIndex struct {
	ents []entry
	pos  map[string]int // id -> position in ents
	vecs []float32
}

func newIndex() *index { return &index{ns: make(map[string]*nsIndex)} }

// indexColumns are the columns scanEntry reads.
const indexColumns = `id, namespace, layer, kind, scope, component, mission, outcome, tags,
	criticality, access_level, created_at, valid_from, valid_to, deleted_at IS NOT NULL, embedding`

// maxSeqSQL reads the newest change stamp: an index-only scan of records_seq.
const maxSeqSQL = `SELECT coalesce(max(seq), 0) FROM records`

// acquire brings the index of namespace ns up to date with the database
// and returns it with the read lock held; the caller must call
// s.idx.mu.RUnlock when done.
func (s *Store) acquire(ctx context.Context, ns string) (*nsIndex, error) {
	var cur int64
	if err := s.pool.QueryRow(ctx, maxSeqSQL).Scan(&cur); err != nil {
		return nil, err
	}
	s.idx.mu.RLock()
	if n, ok := s.idx.ns[ns]; ok && s.idx.seq >= cur {
		return n, nil
	}
	s.idx.mu.RUnlock()
	s.idx.mu.Lock()
	err := s.refresh(ctx, ns)
	s.idx.mu.Unlock()
	if err != nil {
		return nil, err
	}
	s.idx.mu.RLock()
	n, ok := s.idx.ns[ns]
	if !ok { // cannot happen: namespaces are never dropped
		s.idx.mu.RUnlock()
		return nil, fmt.Errorf("index of namespace %q vanished", ns)
	}
	return n, nil
}

// refresh applies the rows changed since s.idx.seq to every loaded
// namespace and loads ns if needed, all from one snapshot. It runs under
// the write lock. Writers draw seq under an advisory lock held until they
// commit, so a snapshot that sees seq N sees every write stamped <= N.
func (s *Store) refresh(ctx context.Context, ns string) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var cur int64
		if err := tx.QueryRow(ctx, maxSeqSQL).Scan(&cur); err != nil {
			return err
		}
		if cur > s.idx.seq && len(s.idx.ns) > 0 {
			rows, err := tx.Query(ctx, `SELECT `+indexColumns+` FROM records WHERE seq > $1 AND seq <= $2`, s.idx.seq, cur)
			if err != nil {
				return err
			}
			err = eachEntry(rows, func(e entry, space string, emb []byte) {
				if n := s.idx.ns[space]; n != nil {
					n.upsert(e, emb)
				}
			})
			if err != nil {
				return err
			}
		}
		if _, ok := s.idx.ns[ns]; !ok {
			var count, blob int
			if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(max(length(embedding)), 0) FROM records WHERE namespace = $1`, ns).Scan(&count, &blob); err != nil {
				return err
			}
			// Size everything once: growing a 100k x 384 slice row by row
			// costs copies and GC work that dominate a cold start.
			n := &nsIndex{pos: make(map[string]int, count), ents: make([]entry, 0, count), vecs: make([]float32, 0, count*(blob/4))}
			rows, err := tx.Query(ctx, `SELECT `+indexColumns+` FROM records WHERE namespace = $1 ORDER BY id`, ns)
			if err != nil {
				return err
			}
			if err := eachEntry(rows, func(e entry, _ string, emb []byte) { n.upsert(e, emb) }); err != nil {
				return err
			}
			s.idx.ns[ns] = n
		}
		s.idx.seq = cur
		return nil
	})
}

// eachEntry scans rows of indexColumns and calls fn with each.
func eachEntry(rows pgx.Rows, fn func(e entry, ns string, emb []byte)) error {
	defer rows.Close()
	for rows.Next() {
		var (
			e                 entry
			ns                string
			tags, emb         []byte
			created, from, to *int64
			layer, kind       string
		)
		err := rows.Scan(&e.id, &ns, &layer, &kind, &e.scope, &e.component, &e.mission, &e.outcome,
			&tags, &e.criticality, &e.accessLevel, &created, &from, &to, &e.deleted, &emb)
		if err != nil {
			return err
		}
		e.layer, e.kind = mnemo.Layer(layer), mnemo.Kind(kind)
		if e.tags, err = decodeStrings(tags); err != nil {
			return fmt.Errorf("decode tags of %s: %w", e.id, err)
		}
		e.created, e.validFrom, e.validTo = math.MinInt64, math.MinInt64, math.MaxInt64
		if created != nil {
			e.created = *created
		}
		if from != nil {
			e.validFrom = *from
		}
		if to != nil {
			e.validTo = *to
		}
		fn(e, ns, emb)
	}
	return rows.Err()
}

// upsert adds or replaces an entry; emb is the raw little-endian vector.
func (n *nsIndex) upsert(e entry, emb []byte) {
	dim := len(emb) / 4
	i, ok := n.pos[e.id]
	if ok && n.ents[i].dim == dim && dim > 0 {
		e.off = n.ents[i].off // overwrite in place
	} else if dim > 0 {
		e.off = len(n.vecs)
		if cap(n.vecs)-len(n.vecs) < dim {
			// Double the backing array: appending per row costs an
			// allocation and, at 1.25x growth, many large copies.
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
	}
	if ok {
		n.ents[i] = e
		return
	}
	n.pos[e.id] = len(n.ents)
	n.ents = append(n.ents, e)
}
