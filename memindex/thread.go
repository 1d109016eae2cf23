package memindex

import (
	"cmp"
	"slices"
	"strings"
)

// Conversation structure in the keyword channel (document expansion).
//
// A turn of a conversation leans on its neighbours: "They loved the
// dinosaur bones!" answers a question about a museum trip that the turn
// before it asked. So Keyword scores a record that names a thread as if
// its text also held the terms of its neighbouring turns at half weight:
// for a query term t,
//
//	tf'(t, d) = tf(t, d) + ½·[t ∈ prev(d)] + ½·[t ∈ next(d)]
//
// where prev(d) and next(d) are the nearest live records of d's thread
// before and after it (in time, then id order) whose access level is at
// most d's own: a record never carries words of a record above its level,
// so a caller's scores are exactly those of a store holding only what it
// may see. Document frequencies, lengths and N stay those of the records'
// own text. Forgotten and not-yet-valid records lend no words.

// neighbourWeight is the weight of a neighbouring turn's term.
const neighbourWeight = 0.5

// threadMembers holds the entry positions of each thread in (created, id)
// order, kept by every write.
type threadMembers map[string][]int32

// entAt returns the entry at a position (Namespace.ent).
type entAt func(int) *Entry

func entryOrder(ents entAt, a, b int32) int {
	ea, eb := ents(int(a)), ents(int(b))
	if c := cmp.Compare(ea.Created, eb.Created); c != 0 {
		return c
	}
	return strings.Compare(ea.ID, eb.ID)
}

// moved updates the thread order after the entry at pos was written; old
// is the entry it replaced (nil for a new one). It returns by how much the
// capacities of the lists changed.
func (t *threadMembers) moved(ents entAt, pos int32, old *Entry) (grown int64) {
	e := ents(int(pos))
	if old != nil && old.Seq == -1 {
		old = nil // removed: no longer in any thread
	}
	if old != nil && old.Thread == e.Thread && old.Created == e.Created && old.ID == e.ID {
		return 0 // same place in the same thread
	}
	if old != nil && old.Thread != "" {
		grown = t.drop(old.Thread, pos)
	}
	if e.Thread == "" {
		return grown
	}
	if *t == nil {
		*t = threadMembers{}
	}
	ms := (*t)[e.Thread]
	was := cap(ms)
	at, _ := slices.BinarySearchFunc(ms, pos, func(x, p int32) int { return entryOrder(ents, x, p) })
	ms = slices.Insert(ms, at, pos)
	(*t)[e.Thread] = ms
	return grown + int64(cap(ms)-was)
}

// drop takes pos out of thread's order and returns by how much the
// capacities of the lists changed (a list emptied is dropped).
func (t threadMembers) drop(thread string, pos int32) (grown int64) {
	ms := t[thread]
	if i := slices.Index(ms, pos); i >= 0 {
		ms = slices.Delete(ms, i, i+1)
		if len(ms) == 0 {
			delete(t, thread)
			return -int64(cap(ms))
		}
		t[thread] = ms
	}
	return 0
}

// lendFields are what document expansion reads of an entry
// (Namespace.cols).
type lendFields struct {
	thread             string
	dl                 int32
	level              int
	deleted            bool
	validFrom, validTo int64
}

func (f *lendFields) liveAt(at int64) bool { return live(f.deleted, f.validFrom, f.validTo, at) }

// lends calls fn with every entry that takes the entry at pos as its
// nearest eligible neighbour on either side (see above), at time at; cols
// gives what it reads of an entry, ents the entry itself (a long thread's
// order is searched by time and id).
func (t threadMembers) lends(cols func(int) lendFields, ents entAt, pos int32, at int64, fn func(int32)) {
	e := cols(int(pos))
	if e.thread == "" || !e.liveAt(at) {
		return
	}
	ms := t[e.thread]
	k, found := memberAt(ms, pos, ents)
	if !found {
		return
	}
	scan := func(from, step int) {
		// x takes e when e.level <= x.level and every live record between
		// them is above x's level.
		between := int(^uint(0) >> 1)
		for j := from; j >= 0 && j < len(ms); j += step {
			x := cols(int(ms[j]))
			if !x.liveAt(at) {
				continue
			}
			if e.level <= x.level && x.level < between {
				fn(ms[j])
			}
			between = min(between, x.level)
			if between <= e.level {
				return
			}
		}
	}
	scan(k+1, 1)
	scan(k-1, -1)
}

// memberAt returns the index of pos in its thread's order ms. A thread of
// up to linearMembers records is scanned for the position itself, which
// reads no entry (a binary search by time and id decodes the entries it
// visits, lazyents.go); a longer one is searched.
func memberAt(ms []int32, pos int32, ents entAt) (int, bool) {
	if len(ms) <= linearMembers {
		k := slices.Index(ms, pos)
		return k, k >= 0
	}
	return slices.BinarySearchFunc(ms, pos, func(x, p int32) int { return entryOrder(ents, x, p) })
}

// linearMembers is the longest thread memberAt scans: a few hundred
// comparisons of integers cost less than the handful of entries a binary
// search reads.
const linearMembers = 512

func liveAt(e *Entry, at int64) bool { return live(e.Deleted, e.ValidFrom, e.ValidTo, at) }

// live reports whether a record neither forgotten nor outside its
// validity [from, to) is live at time at.
func live(deleted bool, from, to, at int64) bool { return !deleted && from <= at && at < to }

// Next returns the id of the nearest record after the one of id in its
// thread (in time, then id order) that c passes: the turn that answers a
// question turn. False when the namespace does not hold id (or c does not
// pass it), the record names no thread, or no such record follows.
func (n *Namespace[K]) Next(id string, c *Cond) (string, bool) {
	i, ok := n.idPos(id)
	if !ok || !c.Matches(n.ent(i)) || n.ent(i).Thread == "" {
		return "", false
	}
	ms := n.thr[n.ent(i).Thread]
	k, found := memberAt(ms, int32(i), n.ent)
	if !found {
		return "", false
	}
	for _, p := range ms[k+1:] {
		if x := n.ent(int(p)); c.Matches(x) {
			return x.ID, true
		}
	}
	return "", false
}

// NextOf returns Next for each of ids that has one (the store's
// mnemo.ThreadFollower answer).
func (n *Namespace[K]) NextOf(ids []string, c *Cond) map[string]string {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		if next, ok := n.Next(id, c); ok {
			out[id] = next
		}
	}
	return out
}
