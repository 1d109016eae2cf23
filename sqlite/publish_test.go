package sqlite

import (
	"context"
	"database/sql"
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
