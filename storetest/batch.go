package storetest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testWriteBatch: Store.Write applies every part of a batch — updates,
// inserts, vectors, supersessions — and a supersession changes only the
// validity, the successor and the update time of the stored record,
// whatever the writer held of it.
func testWriteBatch(t *testing.T, s mnemo.Store) {
	const ns = "batch"
	sc := mnemo.Scope{Namespace: ns, Clearance: 1}
	old, merge, thread, taken := rec(ns, "the heron waits"), rec(ns, "the otter swims"), rec(ns, "the vole digs"), rec(ns, "the mole tunnels")
	old.Embedding, merge.Embedding, thread.Embedding = vec(21), vec(22), vec(23)
	insert(t, s, old, merge, thread, taken)
	if _, err := s.Keyword(bg, sc, "heron", mnemo.Filter{}, 10); err != nil { // warm any index
		t.Fatal(err)
	}
	// Someone tags the old record after the writer read it.
	stored := *old
	stored.Tags = []string{"kept"}
	if err := s.Update(bg, &stored, "update", "other"); err != nil {
		t.Fatal(err)
	}

	n1, n2 := rec(ns, "the egret fishes"), rec(ns, "the ibis wades")
	n1.Embedding, n2.Embedding = vec(24), vec(25)
	dup := rec(ns, "the mole again")
	dup.ID = taken.ID
	m := *merge
	m.Text, m.UpdatedAt = "the otter swims and dives", base.Add(time.Minute)
	until, updated := base.Add(30*time.Minute), base.Add(40*time.Minute)
	skipped, err := s.Write(bg, mnemo.WriteBatch{
		Insert: []*mnemo.Record{n1, n2, dup}, Actor: "alice",
		Updates:    []mnemo.RecordUpdate{{Record: &m, Action: "merge"}},
		Embeddings: map[mnemo.RecordKey][]float32{{Namespace: ns, ID: thread.ID}: vec(26), {Namespace: ns, ID: n2.ID}: vec(27)},
		Supersede:  []mnemo.Supersession{{Scope: sc, ID: old.ID, By: n1.ID, At: until, UpdatedAt: updated}},
	})
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	if skipped != 1 {
		t.Errorf("skipped = %d, want 1 (the id already stored)", skipped)
	}
	for _, id := range []string{n1.ID, n2.ID} {
		if _, err := s.Get(bg, sc, id); err != nil {
			t.Errorf("inserted record %s: %v", id, err)
		}
	}
	if got, _ := s.Get(bg, sc, taken.ID); got == nil || got.Text != taken.Text {
		t.Errorf("a stored id was overwritten by the batch: %+v", got)
	}
	if got, _ := s.Get(bg, sc, merge.ID); got == nil || got.Text != m.Text {
		t.Errorf("update not applied: %+v", got)
	}
	got, err := s.Get(bg, sc, thread.ID)
	if err != nil || !slices.Equal(got.Embedding, vec(26)) {
		t.Errorf("vector of a stored record not replaced: %v", err)
	}
	if got, _ := s.Get(bg, sc, n2.ID); got == nil || !slices.Equal(got.Embedding, vec(27)) {
		t.Errorf("vector of an inserted record not replaced")
	}
	got, err = s.Get(bg, sc, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SupersededBy != n1.ID || got.ValidTo == nil || !got.ValidTo.Equal(until) || !got.UpdatedAt.Equal(updated) {
		t.Errorf("superseded record = by %q to %v updated %v; want by %s to %v updated %v",
			got.SupersededBy, got.ValidTo, got.UpdatedAt, n1.ID, until, updated)
	}
	if !slices.Equal(got.Tags, []string{"kept"}) || got.Text != old.Text || !slices.Equal(got.Embedding, old.Embedding) {
		t.Errorf("a supersession changed more than its fields: %+v", got)
	}
	hist, err := s.History(bg, sc, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if l := hist[len(hist)-1]; l.Action != "supersede" || l.Actor != "alice" || l.Record == nil || l.Record.SupersededBy != n1.ID {
		t.Errorf("last revision of the superseded record = %+v", l)
	}
	hist, _ = s.History(bg, sc, merge.ID)
	if l := hist[len(hist)-1]; l.Action != "merge" {
		t.Errorf("last revision of the updated record = %s, want merge", l.Action)
	}
	hist, _ = s.History(bg, sc, n1.ID)
	if len(hist) != 1 || hist[0].Action != "create" || hist[0].Actor != "alice" {
		t.Errorf("history of an inserted record = %+v", hist)
	}
	if kw, _ := s.Keyword(bg, sc, "egret dives", mnemo.Filter{}, 10); !sameIDs(hitIDs(kw), n1.ID, merge.ID) {
		t.Errorf("keyword after the batch = %v, want %s and %s", hitIDs(kw), n1.ID, merge.ID)
	}
	if kw, _ := s.Keyword(bg, sc, "heron", mnemo.Filter{}, 10); len(kw) != 0 {
		t.Errorf("a superseded record is still live: %v", kw)
	}
	if vh, _ := s.Vector(bg, sc, vec(26), mnemo.Filter{}, 1); len(vh) != 1 || vh[0].ID != thread.ID {
		t.Errorf("vector search does not see the new vector: %v", vh)
	}
	if _, err := s.Write(bg, mnemo.WriteBatch{}); err != nil {
		t.Errorf("empty batch: %v", err)
	}
}

func sameIDs(got []string, want ...string) bool {
	return slices.Equal(sorted(got), sorted(want))
}

// testWriteBatchAtomic: a batch with a part that fails — a supersession
// of a record missing, in another namespace, forgotten or above the
// writer's clearance, or a fault in another part — leaves nothing of the
// batch behind: no inserted record (by Get, Existing, Count, List, either
// search), no update, no vector, no supersession, no revision.
func testWriteBatchAtomic(t *testing.T, s mnemo.Store) {
	const ns = "atomic"
	sc := mnemo.Scope{Namespace: ns, Clearance: 1}
	old, merge, thread := rec(ns, "the lark sings"), rec(ns, "the wren hops"), rec(ns, "the finch pecks")
	gone, secret, elsewhere := rec(ns, "the crow left"), rec(ns, "the owl hides"), rec("atomic-other", "the kite soars")
	old.Embedding, merge.Embedding, thread.Embedding = vec(31), vec(32), vec(33)
	gone.DeletedAt = ptr(base)
	secret.AccessLevel = 2
	insert(t, s, old, merge, thread, gone, secret, elsewhere)
	if _, err := s.Keyword(bg, sc, "lark", mnemo.Filter{}, 10); err != nil { // warm any index
		t.Fatal(err)
	}
	before := map[string]string{}
	revs := map[string]int{}
	admin := mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}
	for _, r := range []*mnemo.Record{old, merge, thread, gone, secret} {
		got, err := s.Get(bg, admin, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		before[r.ID] = canon(t, got)
		h, _ := s.History(bg, admin, r.ID)
		revs[r.ID] = len(h)
	}
	count, _ := s.Count(bg, ns)

	at := base.Add(time.Hour)
	supersede := func(id string) mnemo.Supersession {
		return mnemo.Supersession{Scope: sc, ID: id, At: at, UpdatedAt: at}
	}
	cases := []struct {
		name string
		code string
		edit func(b *mnemo.WriteBatch)
	}{
		{"missing", mnemo.ENOTFOUND, func(b *mnemo.WriteBatch) { b.Supersede = append(b.Supersede, supersede(newID())) }},
		{"other namespace", mnemo.ENOTFOUND, func(b *mnemo.WriteBatch) { b.Supersede = append(b.Supersede, supersede(elsewhere.ID)) }},
		{"forgotten", mnemo.ECONFLICT, func(b *mnemo.WriteBatch) { b.Supersede = append(b.Supersede, supersede(gone.ID)) }},
		{"above clearance", mnemo.ENOTFOUND, func(b *mnemo.WriteBatch) { b.Supersede = append(b.Supersede, supersede(secret.ID)) }},
		{"vector of a missing record", mnemo.ENOTFOUND, func(b *mnemo.WriteBatch) {
			b.Embeddings[mnemo.RecordKey{Namespace: ns, ID: newID()}] = vec(1)
		}},
		{"update of a missing record", mnemo.ENOTFOUND, func(b *mnemo.WriteBatch) {
			u := *merge
			u.ID = newID()
			b.Updates = append(b.Updates, mnemo.RecordUpdate{Record: &u})
		}},
		{"invalid vector", mnemo.EINVALID, func(b *mnemo.WriteBatch) {
			b.Embeddings[mnemo.RecordKey{Namespace: ns, ID: thread.ID}] = []float32{float32(math.NaN()), 1}
		}},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			n1, n2 := rec(ns, "the swallow returns"), rec(ns, "the swift circles")
			n1.Embedding, n2.Embedding = vec(34), vec(35)
			m := *merge
			m.Text = "the wren hops and warbles"
			b := mnemo.WriteBatch{
				Insert: []*mnemo.Record{n1, n2}, Actor: "alice",
				Updates:    []mnemo.RecordUpdate{{Record: &m, Action: "merge"}},
				Embeddings: map[mnemo.RecordKey][]float32{{Namespace: ns, ID: thread.ID}: vec(36)},
				// The valid supersession comes first: the failing part undoes it.
				Supersede: []mnemo.Supersession{{Scope: sc, ID: old.ID, By: n1.ID, At: at, UpdatedAt: at}},
			}
			tc.edit(&b)
			for i := range b.Supersede {
				if b.Supersede[i].By == "" {
					b.Supersede[i].By = n2.ID
				}
			}
			if _, err := s.Write(bg, b); mnemo.ErrorCode(err) != tc.code {
				t.Fatalf("write = %v, want %s", err, tc.code)
			}
			if got, _ := s.Existing(bg, ns, []string{n1.ID, n2.ID}); len(got) != 0 {
				t.Errorf("inserted records left behind: %v", got)
			}
			for _, id := range []string{n1.ID, n2.ID} {
				if _, err := s.Get(bg, admin, id); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
					t.Errorf("get of %s after a failed batch: %v", id, err)
				}
			}
			if n, _ := s.Count(bg, ns); n != count {
				t.Errorf("count = %d, want %d", n, count)
			}
			if list, _ := s.List(bg, admin, mnemo.ListOptions{IncludeDeleted: true, IncludeHistory: true, Limit: 100}); len(list) != len(before) {
				t.Errorf("list holds %d records, want %d", len(list), len(before))
			}
			if kw, _ := s.Keyword(bg, sc, "swallow swift warbles", mnemo.Filter{}, 10); len(kw) != 0 {
				t.Errorf("keyword finds the failed batch: %v", kw)
			}
			if vh, _ := s.Vector(bg, sc, vec(34), mnemo.Filter{}, 1); len(vh) == 1 && vh[0].Score > 0.999 {
				t.Errorf("vector search finds the failed batch: %v", vh)
			}
			for id, want := range before {
				got, err := s.Get(bg, admin, id)
				if err != nil {
					t.Fatal(err)
				}
				if c := canon(t, got); c != want {
					t.Errorf("record %s changed by a failed batch:\n got %s\nwant %s", id, c, want)
				}
				if h, _ := s.History(bg, admin, id); len(h) != revs[id] {
					t.Errorf("record %s has %d revisions after a failed batch, want %d", id, len(h), revs[id])
				}
			}
		})
	}
	// The same batch without the failing part goes through.
	n := rec(ns, "the swallow returns")
	if _, err := s.Write(bg, mnemo.WriteBatch{Insert: []*mnemo.Record{n},
		Supersede: []mnemo.Supersession{{Scope: sc, ID: old.ID, By: n.ID, At: at, UpdatedAt: at}}}); err != nil {
		t.Fatalf("write: %v", err)
	}
	if got, _ := s.Get(bg, sc, old.ID); got == nil || got.SupersededBy != n.ID {
		t.Errorf("supersession not applied: %+v", got)
	}
}

// testWriteBatchReady: a batch whose records are completed while it is
// written (mnemo.WriteBatch.Ready) stores each record with what it was
// completed with, and a completion that fails part way stores nothing of
// the batch and fails it with the completion's error.
func testWriteBatchReady(t *testing.T, s mnemo.Store) {
	const ns = "ready"
	sc := mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}
	if _, err := s.Keyword(bg, sc, "gauge", mnemo.Filter{}, 10); err != nil { // warm any index
		t.Fatal(err)
	}
	refused := errors.New("the embedder refused")
	batch := func(n int) []*mnemo.Record {
		recs := make([]*mnemo.Record, n)
		for i := range recs {
			recs[i] = rec(ns, fmt.Sprintf("gauge %d reads %d", i, i%7))
		}
		return recs
	}
	recs := batch(300)
	if _, err := s.Write(bg, mnemo.WriteBatch{Insert: recs, Actor: "alice", Ready: Completing(recs, vec, 250, refused)}); !errors.Is(err, refused) {
		t.Fatalf("a failed completion: %v, want the completion's error", err)
	}
	if n, _ := s.Count(bg, ns); n != 0 {
		t.Fatalf("%d records stored by a failed batch", n)
	}
	recs = batch(300)
	if skipped, err := s.Write(bg, mnemo.WriteBatch{Insert: recs, Actor: "alice", Ready: Completing(recs, vec, -1, refused)}); err != nil || skipped != 0 {
		t.Fatalf("write: %d skipped, %v", skipped, err)
	}
	if n, _ := s.Count(bg, ns); n != 300 {
		t.Fatalf("%d records stored, want 300", n)
	}
	for _, i := range []int{0, 150, 299} {
		r, err := s.Get(bg, sc, recs[i].ID)
		if err != nil || r.Text != recs[i].Text || !slices.Equal(r.Embedding, vec(i)) {
			t.Fatalf("record %d: %+v, %v", i, r, err)
		}
		if h, err := s.History(bg, sc, recs[i].ID); err != nil || len(h) != 1 || h[0].Actor != "alice" {
			t.Fatalf("history of record %d: %+v, %v", i, h, err)
		}
	}
}

// Completing returns a mnemo.WriteBatch.Ready for recs whose vectors
// another goroutine sets in order, vector(i) for record i, as a writer
// that embeds while the store inserts does; at record fail (-1: never) the
// completion stops with err.
func Completing(recs []*mnemo.Record, vector func(i int) []float32, fail int, err error) func(n int) error {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	done, failed := 0, false
	go func() {
		for i, r := range recs {
			if i%16 == 0 {
				time.Sleep(100 * time.Microsecond) // the store catches up
			}
			mu.Lock()
			if i == fail {
				failed = true
			} else {
				r.Embedding, done = vector(i), i+1
			}
			cond.Broadcast()
			mu.Unlock()
			if i == fail {
				return
			}
		}
	}()
	return func(n int) error {
		mu.Lock()
		defer mu.Unlock()
		for done < n && !failed {
			cond.Wait()
		}
		if done >= n {
			return nil
		}
		return err
	}
}
