package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestLocalSeqsCovers(t *testing.T) {
	var l localSeqs
	if !l.covers(5, 5) {
		t.Error("an empty range is covered")
	}
	if l.covers(5, 6) {
		t.Error("an unknown stamp is covered")
	}
	l.add(6, 7)
	if !l.covers(5, 7) || !l.covers(6, 7) {
		t.Error("local stamps 6 and 7 are not covered")
	}
	if l.covers(5, 8) || l.covers(4, 7) {
		t.Error("a range with a stamp of another writer is covered")
	}
	l.remove([]int64{6})
	if l.covers(5, 7) {
		t.Error("a removed stamp is covered")
	}
}

// TestPublish: a write applies itself to the loaded index before it
// returns; a read between its commit and that point is answered from the
// index as it was, without waiting; a change of another process made in
// that window is not passed by.
func TestPublish(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pub.db")
	a, b := openTest(t, path, Options{}), openTest(t, path, Options{})
	now := time.Now()
	if _, err := a.Insert(ctx, []*mnemo.Record{textRecord("p", "r1", "the grey heron fishes", now)}, "", ""); err != nil {
		t.Fatal(err)
	}
	if got := keywordIDs(t, a, "p", "heron"); !slices.Equal(got, []string{"r1"}) {
		t.Fatalf("heron = %v", got)
	}

	// A read in the window passes the local write by.
	var inWindow []string
	afterCommit = func(s *Store) {
		if s == a {
			inWindow = keywordIDs(t, a, "p", "heron")
		}
	}
	defer func() { afterCommit = nil }()
	if _, err := a.Insert(ctx, []*mnemo.Record{textRecord("p", "r2", "a heron again", now)}, "", ""); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(inWindow, []string{"r1"}) {
		t.Errorf("read between commit and publish = %v, want the index as it was ([r1])", inWindow)
	}
	a.idx.mu.RLock()
	seq := a.idx.seq
	a.idx.mu.RUnlock()
	if cur, err := a.dbSeq(ctx, a.rdb); err != nil || seq != cur {
		t.Errorf("index at %d after the write returned, database at %d (%v)", seq, cur, err)
	}
	if got := keywordIDs(t, a, "p", "heron"); len(got) != 2 {
		t.Errorf("after the write: %v, want r1 and r2", got)
	}
	if len(a.idx.local.seqs) != 0 {
		t.Errorf("local stamps left after publishing: %v", a.idx.local.seqs)
	}

	// Another process writes in the window: the read must see it.
	afterCommit = func(s *Store) {
		if s != a {
			return
		}
		afterCommit = nil
		if _, err := b.Insert(ctx, []*mnemo.Record{textRecord("p", "ext", "heron from elsewhere", now)}, "", ""); err != nil {
			t.Error(err)
		}
		inWindow = keywordIDs(t, a, "p", "heron")
	}
	if _, err := a.Insert(ctx, []*mnemo.Record{textRecord("p", "r3", "the third heron", now)}, "", ""); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(inWindow, "ext") {
		t.Errorf("read after another process's write = %v, want ext among them", inWindow)
	}
	if got := keywordIDs(t, a, "p", "heron"); len(got) != 4 {
		t.Errorf("at the end: %v, want four herons", got)
	}
}

// TestPublishRollback: a write that fails takes back its stamp, so that
// readers never wait for a publish that will not come nor pass by a
// change that is not theirs.
func TestPublishRollback(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "rb.db"), Options{})
	now := time.Now()
	if _, err := s.Insert(ctx, []*mnemo.Record{textRecord("p", "r1", "heron", now)}, "", ""); err != nil {
		t.Fatal(err)
	}
	keywordIDs(t, s, "p", "heron")
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := s.bumpSeq(ctx, tx); err != nil {
			return err
		}
		return mnemo.Errorf(mnemo.EINVALID, "refused")
	})
	if err == nil {
		t.Fatal("the failing write succeeded")
	}
	if len(s.idx.local.seqs) != 0 {
		t.Errorf("a rolled-back stamp is still local: %v", s.idx.local.seqs)
	}
	if got := keywordIDs(t, s, "p", "heron"); !slices.Equal(got, []string{"r1"}) {
		t.Errorf("after the rollback: %v", got)
	}
}

// TestPublishPrepared writes batches into a loaded namespace, whose
// publish applies the rows from what was prepared while they were written
// (indexPrep), and checks every keyword and vector answer, ids and scores,
// against a store that loads the namespace from the rows afterwards.
// Batches carry structured bodies (their words are searched too), ids
// already taken (skipped: the prepared row is not the stored one), rows
// without a vector, and go past the sketch threshold.
func TestPublishPrepared(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "prep.db")
	s := openTest(t, path, Options{})
	now := time.Now()
	rng := rand.New(rand.NewPCG(5, 5))
	vec := func() []float32 {
		v := make([]float32, 48)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	texts := zipfTexts(9, 2600, 10)
	sc := mnemo.Scope{Namespace: "prep", Clearance: mnemo.MaxAccessLevel}
	first := textRecord("prep", "seed", texts[0], now)
	first.Embedding = vec()
	if _, err := s.Insert(ctx, []*mnemo.Record{first}, "", ""); err != nil {
		t.Fatal(err)
	}
	// Searches go through the sketches from here on, which every write
	// keeps current, whatever the size (a search before they are built
	// scans every vector: another answer).
	sketched := func(st *Store) {
		if _, err := st.Keyword(ctx, sc, "ka", mnemo.Filter{}, 1); err != nil { // loads the namespace
			t.Fatal(err)
		}
		st.idx.mu.Lock()
		st.idx.ns["prep"].BuildSketches()
		st.idx.mu.Unlock()
	}
	sketched(s)
	prepared := 0
	for b := 0; b < 13; b++ {
		var recs []*mnemo.Record
		for i := range 200 {
			k := b*200 + i
			r := textRecord("prep", fmt.Sprintf("r%05d", k), texts[k], now)
			switch {
			case k%7 == 0:
				r.Kind = mnemo.KindDecision
				r.Decision = &mnemo.Decision{Title: texts[k+1][:20], Decision: "use the " + texts[k+2][:30], Status: "accepted"}
			case k%11 == 0:
				r.ID = fmt.Sprintf("r%05d", max(k-150, 0)) // taken: skipped
			}
			if k%13 != 0 {
				r.Embedding = vec()
			}
			r.AccessLevel = k % 3
			recs = append(recs, r)
		}
		if pre := s.prepareIndex(recs, nil); pre != nil {
			<-pre.done
			prepared += len(pre.by)
		}
		if _, err := s.Write(ctx, mnemo.WriteBatch{Insert: recs, InsertAction: "create"}); err != nil {
			t.Fatal(err)
		}
	}
	if prepared == 0 {
		t.Fatal("no write was prepared: the namespace is not loaded")
	}
	fresh := openTest(t, path, Options{NoIndexSnapshots: true})
	sketched(fresh)
	for q := range 30 {
		query := texts[rng.IntN(len(texts))][:12+rng.IntN(20)]
		v := vec()
		for _, clearance := range []int{0, mnemo.MaxAccessLevel} {
			sc := mnemo.Scope{Namespace: "prep", Clearance: clearance}
			kw, err := s.Keyword(ctx, sc, query, mnemo.Filter{}, 20)
			if err != nil {
				t.Fatal(err)
			}
			kwWant, err := fresh.Keyword(ctx, sc, query, mnemo.Filter{}, 20)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(kw, kwWant) {
				t.Fatalf("query %d, clearance %d: Keyword(%q) = %v, loaded from the rows %v", q, clearance, query, kw, kwWant)
			}
			vh, err := s.Vector(ctx, sc, v, mnemo.Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			vhWant, err := fresh.Vector(ctx, sc, v, mnemo.Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(vh, vhWant) {
				t.Fatalf("query %d, clearance %d: Vector = %v, loaded from the rows %v", q, clearance, vh, vhWant)
			}
		}
	}
}
