package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
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
// points into it with off and dim.
type nsIndex struct {
	ents []entry
	pos  map[int64]int // rowid -> position in ents
	vecs []float32
}

func newIndex() *index { return &index{ns: make(map[string]*nsIndex)} }

// indexColumns are the columns scanEntry reads.
const indexColumns = `rowid, id, namespace, layer, kind, scope, component, mission, outcome, tags,
	criticality, access_level, created_at, valid_from, valid_to, deleted_at IS NOT NULL, embedding`

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
			var emb []byte
			if err := scanEntry(rows, &e, &space, &emb); err != nil {
				rows.Close()
				return err
			}
			if n := s.idx.ns[space]; n != nil {
				n.upsert(e, emb)
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
		n := &nsIndex{pos: make(map[int64]int, count), ents: make([]entry, 0, count), vecs: make([]float32, 0, count*(blob/4))}
		rows, err := tx.QueryContext(ctx, `SELECT `+indexColumns+` FROM records WHERE namespace = ? ORDER BY rowid`, ns)
		if err != nil {
			return err
		}
		for rows.Next() {
			var e entry
			var space string
			var emb []byte
			if err := scanEntry(rows, &e, &space, &emb); err != nil {
				rows.Close()
				return err
			}
			n.upsert(e, emb)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		s.idx.ns[ns] = n
	}
	s.idx.seq = cur
	return nil
}

func scanEntry(rows *sql.Rows, e *entry, ns *string, emb *[]byte) error {
	var (
		tags              sql.NullString
		created, from, to sql.NullInt64
		layer, kind       string
	)
	err := rows.Scan(&e.rowid, &e.id, ns, &layer, &kind, &e.scope, &e.component, &e.mission, &e.outcome,
		&tags, &e.criticality, &e.accessLevel, &created, &from, &to, &e.deleted, emb)
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

// upsert adds or replaces an entry; emb is the raw little-endian vector.
func (n *nsIndex) upsert(e entry, emb []byte) {
	dim := len(emb) / 4
	i, ok := n.pos[e.rowid]
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
	}
	if ok {
		n.ents[i] = e
		return
	}
	n.pos[e.rowid] = len(n.ents)
	n.ents = append(n.ents, e)
}

// remove hides a hard-deleted row.
func (n *nsIndex) remove(rowid int64) {
	if i, ok := n.pos[rowid]; ok {
		n.ents[i].deleted = true
		n.ents[i].dim = 0
	}
}
