package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

const snapNS = "snap/ns"

// smallSnapshots lets namespaces of a test's size have snapshots.
func smallSnapshots(t testing.TB) {
	m, c, a, e := snapshotMin, snapshotMinChanged, snapshotAfter, snapshotEvery
	snapshotMin, snapshotMinChanged = 50, 1
	t.Cleanup(func() { snapshotMin, snapshotMinChanged, snapshotAfter, snapshotEvery = m, c, a, e })
}

// snapRecords makes n records of namespace snapNS: Zipf texts, vectors,
// threads, access levels and tags.
func snapRecords(seed uint64, from, n int, now time.Time) []*mnemo.Record {
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []*mnemo.Record
	for i, text := range zipfTexts(seed, n, 10) {
		r := textRecord(snapNS, fmt.Sprintf("r%05d", from+i), text, now.Add(-48*time.Hour+time.Duration(from+i)*time.Second))
		r.Embedding = make([]float32, 16)
		for j := range r.Embedding {
			r.Embedding[j] = float32(rng.NormFloat64())
		}
		if rng.IntN(3) == 0 {
			r.Thread = fmt.Sprintf("t%d", rng.IntN(12))
		}
		r.AccessLevel = []int{0, 0, 0, 1, 3}[rng.IntN(5)]
		if rng.IntN(4) == 0 {
			r.Tags = []string{"x", fmt.Sprintf("g%d", rng.IntN(3))}
		}
		out = append(out, r)
	}
	return out
}

// canonicalHits orders hits of equal score by id (two indexes with the
// same records may hold tied entries in another order).
func canonicalHits(hs []mnemo.Hit) []mnemo.Hit {
	hs = slices.Clone(hs)
	slices.SortStableFunc(hs, func(x, y mnemo.Hit) int {
		switch {
		case x.Score > y.Score:
			return -1
		case x.Score < y.Score:
			return 1
		}
		return strings.Compare(x.ID, y.ID)
	})
	return hs
}

// sameStoreAnswers fails unless a and b answer every keyword (with thread
// neighbours), related-term, IDF and vector query alike, at every
// clearance.
func sameStoreAnswers(t *testing.T, what string, a, b *Store) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 9))
	queries := append(zipfTexts(77, 25, 3), "ka", "ro mi", "nothing-here")
	for _, cl := range []int{0, 1, 3, mnemo.MaxAccessLevel} {
		sc := mnemo.Scope{Namespace: snapNS, Clearance: cl}
		for qi, q := range queries {
			f := mnemo.Filter{}
			if qi%4 == 1 {
				f.Tags = []string{"x"}
			}
			ka, err := a.Keyword(ctx, sc, q, f, 1000)
			if err != nil {
				t.Fatal(err)
			}
			kb, err := b.Keyword(ctx, sc, q, f, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(canonicalHits(ka), canonicalHits(kb)) {
				t.Fatalf("%s: Keyword(%q) at clearance %d:\n%v\n%v", what, q, cl, ka, kb)
			}
			terms := memindex.Terms(memindex.QueryTokens(q), 8)
			ta, _ := a.KeywordTerms(ctx, sc, terms, f, 1000)
			tb, _ := b.KeywordTerms(ctx, sc, terms, f, 1000)
			if !slices.Equal(canonicalHits(ta), canonicalHits(tb)) {
				t.Fatalf("%s: KeywordTerms(%q) at clearance %d differ", what, terms, cl)
			}
			ia, ua, _ := a.IDF(ctx, sc, q)
			ib, ub, _ := b.IDF(ctx, sc, q)
			if ua != ub || fmt.Sprint(ia) != fmt.Sprint(ib) {
				t.Fatalf("%s: IDF(%q) at clearance %d: %v %v", what, q, cl, ia, ib)
			}
			v := make([]float32, 16)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			va, err := a.Vector(ctx, sc, v, f, 30)
			if err != nil {
				t.Fatal(err)
			}
			vb, err := b.Vector(ctx, sc, v, f, 30)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(va, vb) {
				t.Fatalf("%s: Vector at clearance %d:\n%v\n%v", what, cl, va, vb)
			}
		}
	}
}

// fromSnapshot reports whether s loaded snapNS from a snapshot.
func fromSnapshot(t *testing.T, s *Store) bool {
	t.Helper()
	if err := s.Warm(context.Background(), snapNS); err != nil {
		t.Fatal(err)
	}
	s.idx.mu.RLock()
	defer s.idx.mu.RUnlock()
	st := s.idx.snaps[snapNS]
	return st != nil && st.seq > 0 && !st.bad
}

// checkAgainstFull opens the database twice, once starting from the
// snapshot and once from every row, and compares their answers.
func checkAgainstFull(t *testing.T, what, path string, wantSnapshot bool) {
	t.Helper()
	s := openTest(t, path, Options{})
	full := openTest(t, path, Options{NoIndexSnapshots: true})
	if got := fromSnapshot(t, s); got != wantSnapshot {
		t.Fatalf("%s: loaded from a snapshot: %v, want %v", what, got, wantSnapshot)
	}
	sameStoreAnswers(t, what, s, full)
	s.Close()
	full.Close()
}

// mutate writes through a store of its own: new records, text and level
// edits, forgets, a purge, and a new record taking a purged rowid.
func mutate(t *testing.T, path string, seed uint64, now time.Time) {
	t.Helper()
	ctx := context.Background()
	w := openTest(t, path, Options{NoIndexSnapshots: true})
	defer w.Close()
	base := int(seed) * 1000
	if _, err := w.Insert(ctx, snapRecords(seed, base, 40, now), "", ""); err != nil {
		t.Fatal(err)
	}
	sc := mnemo.Scope{Namespace: snapNS, Clearance: mnemo.MaxAccessLevel}
	all, err := w.List(ctx, sc, mnemo.ListOptions{Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range 30 {
		r := all[rng.IntN(len(all))]
		switch i % 3 {
		case 0:
			r.Text = zipfTexts(seed+uint64(i), 1, 8)[0]
		case 1:
			r.AccessLevel = rng.IntN(4)
		case 2:
			r.DeletedAt = &now
		}
		if err := w.Update(ctx, r, "update", ""); err != nil {
			t.Fatal(err)
		}
	}
	// Forget and purge the newest record, then write one that takes its
	// rowid.
	last := all[len(all)-1]
	for _, r := range all {
		if r.ID > last.ID {
			last = r
		}
	}
	last.DeletedAt = &now
	if err := w.Update(ctx, last, "forget", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Purge(ctx, sc, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Insert(ctx, snapRecords(seed+100, base+900, 1, now), "", ""); err != nil {
		t.Fatal(err)
	}
}

// writeFirstSnapshot fills a new database and leaves a snapshot of it.
func writeFirstSnapshot(t *testing.T, path string, now time.Time) {
	t.Helper()
	s := openTest(t, path, Options{})
	if _, err := s.Insert(context.Background(), snapRecords(1, 0, 400, now), "", ""); err != nil {
		t.Fatal(err)
	}
	if fromSnapshot(t, s) {
		t.Fatal("loaded from a snapshot that was never written")
	}
	s.Close()
	if _, err := os.Stat(s.snapshotPath(snapNS)); err != nil {
		t.Fatalf("no snapshot written at close: %v", err)
	}
}

// TestSnapshotStart: a process starts from the snapshot another left and
// applies what changed since (new, edited, re-levelled, forgotten and
// purged records, a purged rowid taken again); its answers equal those of
// an index built from every row, per clearance, thread neighbours
// included.
func TestSnapshotStart(t *testing.T) {
	smallSnapshots(t)
	path := filepath.Join(t.TempDir(), "s.db")
	now := time.Now()
	writeFirstSnapshot(t, path, now)
	checkAgainstFull(t, "fresh snapshot", path, true)
	mutate(t, path, 2, now)
	checkAgainstFull(t, "after changes", path, true)
	mutate(t, path, 3, now)
	checkAgainstFull(t, "after more changes", path, true)
}

// TestSnapshotRefused: a snapshot cut short, damaged, of another
// database, or newer than the database (restored from a backup) is not
// used; a damaged vector is caught by the search that reads it, which is
// answered from the rows instead.
func TestSnapshotRefused(t *testing.T) {
	smallSnapshots(t)
	now := time.Now()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	writeFirstSnapshot(t, path, now)
	probe := openTest(t, path, Options{})
	snap := probe.snapshotPath(snapNS)
	probe.Close()
	good, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := memindex.PeekSnapshot(good); err != nil {
		t.Fatal(err)
	}
	put := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(snap, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, cut := range []int{0, 10, len(good) / 3, len(good) - 1} {
		put(good[:cut])
		checkAgainstFull(t, fmt.Sprintf("cut at %d", cut), path, false)
	}
	flip := func(at int) []byte {
		b := slices.Clone(good)
		b[at] ^= 0x10
		return b
	}
	put(flip(len(good) / 5)) // the entries or string table
	checkAgainstFull(t, "damaged", path, false)

	// A damaged vector of a namespace without sketches: every vector is
	// checked when the snapshot is read.
	put(flip(vectorAt(t, good, firstRecord(now).Embedding) + 6))
	checkAgainstFull(t, "damaged vector", path, false)

	// Another database's snapshot of the same namespace.
	other := filepath.Join(dir, "other.db")
	writeFirstSnapshot(t, other, now)
	o := openTest(t, other, Options{})
	ob, err := os.ReadFile(o.snapshotPath(snapNS))
	o.Close()
	if err != nil {
		t.Fatal(err)
	}
	put(ob)
	checkAgainstFull(t, "another database's", path, false)

	// A database restored from a backup older than its snapshot.
	back := filepath.Join(dir, "back.db")
	writeFirstSnapshot(t, back, now)
	copyFile(t, back, back+".bak")
	mutate(t, back, 5, now)
	b := openTest(t, back, Options{})
	b.Warm(context.Background(), snapNS)
	b.Close() // writes a newer snapshot
	copyFile(t, back+".bak", back)
	os.Remove(back + "-wal")
	os.Remove(back + "-shm")
	mutate(t, back, 6, now) // and moves past its seq
	s := openTest(t, back, Options{})
	full := openTest(t, back, Options{NoIndexSnapshots: true})
	if fromSnapshot(t, s) {
		t.Fatal("the restored database uses the snapshot written after its backup")
	}
	sameStoreAnswers(t, "restored", s, full)
}

// TestSnapshotAnyByteDamaged: whichever byte of a snapshot is damaged —
// in a section checked when it is read, in a vector, a posting or a term
// list checked when first used, or in padding — the store answers every
// keyword, term, IDF and vector read as an index built from the rows does.
func TestSnapshotAnyByteDamaged(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the store once per damaged byte")
	}
	smallSnapshots(t)
	path := filepath.Join(t.TempDir(), "d.db")
	writeFirstSnapshot(t, path, time.Now())
	probe := openTest(t, path, Options{})
	snap := probe.snapshotPath(snapNS)
	probe.Close()
	full := openTest(t, path, Options{NoIndexSnapshots: true})
	defer full.Close()
	rng := rand.New(rand.NewPCG(5, 5))
	read := func() []byte {
		b, err := os.ReadFile(snap)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	size := len(read())
	step := size / 40
	used := 0 // damaged snapshots read (the damage then found as it was used, or harmless)
	for at := rng.IntN(step); at < size; at += step/2 + rng.IntN(step) {
		// A store that loaded from the rows writes a new snapshot (of a
		// new label) when it closes: damage the current one.
		good := read()
		b := slices.Clone(good)
		b[at] ^= 1 << rng.IntN(8)
		if err := os.WriteFile(snap, b, 0o600); err != nil {
			t.Fatal(err)
		}
		s := openTest(t, path, Options{})
		if fromSnapshot(t, s) {
			used++
		}
		sameStoreAnswers(t, fmt.Sprintf("byte %d of %d damaged", at, size), s, full)
		s.Close()
		if bytes.Equal(read(), b) {
			if err := os.WriteFile(snap, good, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if used < 5 {
		t.Fatalf("a damaged snapshot was read %d times: the test does not reach the checks made on use", used)
	}
}

// vectorAt is where the snapshot holds vector v (normalised).
func vectorAt(t *testing.T, snap []byte, v []float32) int {
	t.Helper()
	at := bytes.Index(snap, memindex.VectorCodes(v))
	if at < 0 {
		t.Fatal("the vector is not in the snapshot")
	}
	return at
}

// firstRecord is the first record writeFirstSnapshot writes.
func firstRecord(now time.Time) *mnemo.Record { return snapRecords(1, 0, 1, now)[0] }

// TestSnapshotDamagedVectorSketched: in a namespace large enough for
// sketches, vectors are checked as searches first read them; the search
// that meets a damaged one is answered from the rows.
func TestSnapshotDamagedVectorSketched(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2,100 records")
	}
	smallSnapshots(t)
	now := time.Now()
	path := filepath.Join(t.TempDir(), "v.db")
	s := openTest(t, path, Options{})
	recs := snapRecords(1, 0, 2100, now)
	for _, r := range recs {
		r.AccessLevel, r.Tags = 0, nil
	}
	if _, err := s.Insert(context.Background(), recs, "", ""); err != nil {
		t.Fatal(err)
	}
	s.Warm(context.Background(), snapNS)
	s.Close()
	good, err := os.ReadFile(s.snapshotPath(snapNS))
	if err != nil {
		t.Fatal(err)
	}
	// Damage the vector of the first record: searching with it as the
	// query meets it first.
	at := vectorAt(t, good, recs[0].Embedding)
	b := slices.Clone(good)
	b[at+5] ^= 0x20
	if err := os.WriteFile(s.snapshotPath(snapNS), b, 0o600); err != nil {
		t.Fatal(err)
	}
	a := openTest(t, path, Options{})
	full := openTest(t, path, Options{NoIndexSnapshots: true})
	if !fromSnapshot(t, a) {
		t.Fatal("the snapshot was not read")
	}
	ctx := context.Background()
	sc := mnemo.Scope{Namespace: snapNS}
	got, err := a.Vector(ctx, sc, recs[0].Embedding, mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	full.Warm(ctx, snapNS)
	full.idx.mu.Lock()
	full.idx.ns[snapNS].BuildSketches() // as the snapshot's reader searches
	full.idx.mu.Unlock()
	want, _ := full.Vector(ctx, sc, recs[0].Embedding, mnemo.Filter{}, 10)
	if !slices.Equal(got, want) || len(got) == 0 || got[0].ID != recs[0].ID {
		t.Fatalf("answer with a damaged vector:\n%v\nwant\n%v", got, want)
	}
	if fromSnapshot(t, a) {
		t.Fatal("the damaged snapshot is still in use")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotKillChild is the process TestSnapshotKill kills.
func TestSnapshotKillChild(t *testing.T) {
	path, at := os.Getenv("MNEMO_SNAPKILL_DB"), os.Getenv("MNEMO_SNAPKILL_STAGE")
	if path == "" {
		t.Skip("run by TestSnapshotKill")
	}
	smallSnapshots(t)
	snapshotStage = func(s string) {
		if s == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	s := openTest(t, path, Options{})
	if err := s.Warm(context.Background(), snapNS); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestSnapshotKill kills a process at every stage of writing a snapshot
// (kill -9), then opens the database: the answers always equal those of
// an index built from every row, from the old snapshot, the new one or
// the rows.
func TestSnapshotKill(t *testing.T) {
	smallSnapshots(t)
	now := time.Now()
	path := filepath.Join(t.TempDir(), "k.db")
	writeFirstSnapshot(t, path, now)
	for i, at := range []string{"created", "partly-written", "written", "synced", "renamed", "dir-synced", "recorded"} {
		mutate(t, path, uint64(10+i), now)
		cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MNEMO_SNAPKILL_DB="+path, "MNEMO_SNAPKILL_STAGE="+at)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("stage %s: the child was not killed: %v\n%s", at, err, out)
		}
		// Before the token is recorded the old snapshot is still the
		// database's (the new file, once renamed, is refused); after, the
		// new one.
		want := at != "renamed" && at != "dir-synced"
		checkAgainstFull(t, "killed at "+at, path, want)
	}
	tmp, _ := filepath.Glob(filepath.Join(path+".index", "*.tmp-*"))
	if len(tmp) > 0 {
		// Left by the killed writers; removed by a later writer once old.
		t.Logf("temporary files left: %d", len(tmp))
	}
}

// TestSnapshotConcurrentWriter: one process writes continuously and keeps
// its snapshot current in the background while one-shot readers start
// from it; every reader answers as an index built from every row at the
// same change stamp.
func TestSnapshotConcurrentWriter(t *testing.T) {
	smallSnapshots(t)
	snapshotAfter, snapshotEvery = 0, 0
	now := time.Now()
	path := filepath.Join(t.TempDir(), "c.db")
	writeFirstSnapshot(t, path, now)
	ctx := context.Background()
	w := openTest(t, path, Options{})
	var pause sync.Mutex // held by a reader while it compares
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			pause.Lock()
			_, err = w.Insert(ctx, snapRecords(uint64(100+i), 10000+10*i, 10, now), "", "")
			if err == nil {
				// A search brings the writer's index up to date and may
				// start a background snapshot.
				_, err = w.Keyword(ctx, mnemo.Scope{Namespace: snapNS}, "ka", mnemo.Filter{}, 5)
			}
			pause.Unlock()
			if err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	used := 0
	for round := range 12 {
		pause.Lock()
		s := openTest(t, path, Options{})
		full := openTest(t, path, Options{NoIndexSnapshots: true})
		if fromSnapshot(t, s) {
			used++
		}
		full.Warm(ctx, snapNS)
		if s.idx.seq != full.idx.seq {
			t.Fatalf("round %d: seq %d vs %d", round, s.idx.seq, full.idx.seq)
		}
		sameStoreAnswers(t, fmt.Sprintf("round %d", round), s, full)
		pause.Unlock()
		s.Close() // may write a snapshot while the writer writes one
		full.Close()
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if used == 0 {
		t.Fatal("no reader started from a snapshot")
	}
	w.Close()
	checkAgainstFull(t, "after the writer closed", path, true)
}
