package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
)

// countRows returns how many rows table holds.
func countRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// openWithOld opens a store in a new file named name holding one fact,
// "old" in namespace ns, and returns it with a maker of facts like it.
func openWithOld(t *testing.T, name string) (*Store, func(id, text string) *mnemo.Record) {
	t.Helper()
	s := openTest(t, filepath.Join(t.TempDir(), name), Options{})
	now := time.Now().UTC()
	rec := func(id, text string) *mnemo.Record {
		return &mnemo.Record{ID: id, Namespace: "ns", Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: "/",
			Text: text, CreatedAt: now, UpdatedAt: now, ValidFrom: now, Embedding: []float32{1, 2, 3}}
	}
	if _, err := s.Insert(context.Background(), []*mnemo.Record{rec("old", "stored before")}, "", ""); err != nil {
		t.Fatal(err)
	}
	return s, rec
}

// TestInsertBatchSkips checks Insert's skipping across the statements a
// large batch is written with: an id the namespace holds, and an id met
// twice in the batch (the first is written) are skipped, with one create
// revision per record written.
func TestInsertBatchSkips(t *testing.T) {
	ctx := context.Background()
	s, rec := openWithOld(t, "i.db")
	var recs []*mnemo.Record
	for i := range 2*insertChunk + 10 {
		recs = append(recs, rec(fmt.Sprintf("r%04d", i), fmt.Sprintf("text %d", i)))
	}
	recs[insertChunk+3] = rec("old", "again")          // in the namespace already
	recs[insertChunk+7] = rec("r0002", "second r0002") // earlier in the batch, another statement
	recs[5] = rec("r0004", "second r0004")             // earlier in the batch, same statement
	skipped, err := s.Insert(ctx, recs, "", "tester")
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 3 {
		t.Fatalf("skipped %d, want 3", skipped)
	}
	sc := mnemo.Scope{Namespace: "ns"}
	for id, want := range map[string]string{"old": "stored before", "r0002": "text 2", "r0004": "text 4", "r1009": "text 1009"} {
		r, err := s.Get(ctx, sc, id)
		if err != nil || r.Text != want {
			t.Fatalf("%s: %v, %v; want text %q", id, r, err, want)
		}
		hist, err := s.History(ctx, sc, id)
		if err != nil || len(hist) != 1 || hist[0].Action != "create" {
			t.Fatalf("history of %s: %+v, %v", id, hist, err)
		}
	}
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM revisions`).Scan(&n); err != nil || n != len(recs)-3+1 {
		t.Fatalf("%d revisions, %v; want %d", n, err, len(recs)-3+1)
	}
	if err := s.BuildFTS(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.rdb.QueryRow(`SELECT count(*) FROM records_fts WHERE records_fts MATCH 'text'`).Scan(&n); err != nil || n != len(recs)-3 {
		t.Fatalf("%d records in the full-text index, %v; want %d", n, err, len(recs)-3)
	}
}

// TestVectorExactScores checks that vector searches, whose index holds the
// vectors quantised, answer as an exact scan of the stored float32 vectors
// does: the same ids in the same order, with their cosines, whether the
// rescored records come from the rows or from the record cache; with the
// sketches (from 2,000 records), the hits' exact cosines.
func TestVectorExactScores(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "v.db"), Options{})
	now := time.Now().UTC()
	rng := rand.New(rand.NewSource(4))
	var recs []*mnemo.Record
	for i := range 2500 {
		v := make([]float32, 48)
		for j := range v {
			if rng.Intn(4) == 0 {
				v[j] = float32(rng.NormFloat64())
			}
		}
		v[rng.Intn(len(v))] = 1
		recs = append(recs, &mnemo.Record{ID: fmt.Sprintf("r%05d", i), Namespace: "ns", Layer: mnemo.LayerDomain, Kind: mnemo.KindFact,
			Scope: "/", Text: fmt.Sprintf("text %d", i), CreatedAt: now, UpdatedAt: now, ValidFrom: now, Embedding: v})
	}
	exact := func(q []float32, n int) []mnemo.Hit {
		u, _ := memindex.Normalize(q)
		var hs []mnemo.Hit
		for _, r := range recs {
			v, _ := memindex.Normalize(r.Embedding)
			var d float64
			for j := range u {
				d += float64(u[j]) * float64(v[j])
			}
			hs = append(hs, mnemo.Hit{ID: r.ID, Score: d})
		}
		sort.Slice(hs, func(a, b int) bool {
			if hs[a].Score != hs[b].Score {
				return hs[a].Score > hs[b].Score
			}
			return hs[a].ID > hs[b].ID
		})
		return hs[:n]
	}
	check := func(what string, count int, sketches bool) {
		for k := range 20 {
			q := recs[rng.Intn(count)].Embedding
			if k%2 == 1 {
				q = make([]float32, 48)
				for j := range q {
					q[j] = float32(rng.NormFloat64())
				}
			}
			got, err := s.Vector(ctx, mnemo.Scope{Namespace: "ns"}, q, mnemo.Filter{}, 30)
			if err != nil {
				t.Fatal(err)
			}
			want := exact(q, 30)
			if len(got) != len(want) {
				t.Fatalf("%s: %d hits, want %d", what, len(got), len(want))
			}
			scoreOf := map[string]float64{}
			for _, h := range exact(q, count) {
				scoreOf[h.ID] = h.Score
			}
			for i := range got {
				// The sketches choose which candidates are scored (as
				// before quantisation): their scores are exact.
				if !sketches && got[i].ID != want[i].ID || math.Abs(got[i].Score-scoreOf[got[i].ID]) > 1e-6 {
					t.Fatalf("%s: hit %d is %v, the exact scan's %v", what, i, got[i], want[i])
				}
			}
		}
	}
	if _, err := s.Insert(ctx, recs[:1500], "", ""); err != nil {
		t.Fatal(err)
	}
	all := recs
	recs = recs[:1500]
	check("1,500 records", 1500, false)
	recs = all
	if _, err := s.Insert(ctx, recs[1500:], "", ""); err != nil {
		t.Fatal(err)
	}
	s.idx.mu.Lock()
	s.idx.ns["ns"].BuildSketches()
	s.idx.mu.Unlock()
	check("2,500 records, sketches", 2500, true)
	s.cache = nil // every rescored vector keeps its code score: within the bound
	got, err := s.Vector(ctx, mnemo.Scope{Namespace: "ns"}, recs[0].Embedding, mnemo.Filter{}, 1)
	if err != nil || len(got) != 1 || got[0].ID != recs[0].ID || math.Abs(got[0].Score-1) > 0.02 {
		t.Fatalf("without the cache: %v, %v", got, err)
	}
}

// TestInsertBatchFails checks a batch one of whose records the store
// refuses (here by a unique index of the test's): the error names that
// record, and nothing of the batch is written, in the rows, the revisions
// or the index; a batch after it is written whole. The statements of many
// records roll the whole transaction back when they fail (insertMany), so
// this is also the test that the write is then made again, record by
// record, in a transaction of its own, and that nothing ran outside one.
func TestInsertBatchFails(t *testing.T) {
	ctx := context.Background()
	s, rec := openWithOld(t, "f.db")
	if _, err := s.wdb.ExecContext(ctx, `CREATE UNIQUE INDEX refuse ON records (text) WHERE text = 'stored before'`); err != nil {
		t.Fatal(err)
	}
	count := func(table string) int { return countRows(t, s, table) }
	for _, write := range []string{"insert", "batch", "fed"} {
		var recs []*mnemo.Record
		for i := range insertChunk + 20 {
			recs = append(recs, rec(fmt.Sprintf("%s%04d", write, i), fmt.Sprintf("text %d", i)))
		}
		recs[insertChunk+9] = rec(write+"-bad", "stored before")
		var err error
		switch write {
		case "insert":
			_, err = s.Insert(ctx, recs, "", "tester")
		case "batch":
			_, err = s.Write(ctx, mnemo.WriteBatch{Insert: recs})
		default: // completed as it is written, a part at a time
			_, err = s.Write(ctx, mnemo.WriteBatch{Insert: recs, Ready: completing(recs, -1, -1)})
		}
		if err == nil || !strings.Contains(err.Error(), write+"-bad") || !strings.Contains(err.Error(), "UNIQUE constraint failed") {
			t.Fatalf("%s: %v; want the refused record named", write, err)
		}
		if n := count("records"); n != 1 {
			t.Fatalf("%s: %d rows after the refused batch, want 1", write, n)
		}
		if n := count("revisions"); n != 1 {
			t.Fatalf("%s: %d revisions after the refused batch, want 1", write, n)
		}
		if hits, err := s.Keyword(ctx, mnemo.Scope{Namespace: "ns"}, "text", mnemo.Filter{}, 10); err != nil || len(hits) != 0 {
			t.Fatalf("%s: the index holds %v (%v) after the refused batch", write, hits, err)
		}
	}
	var recs []*mnemo.Record
	for i := range insertChunk + 20 {
		recs = append(recs, rec(fmt.Sprintf("good%04d", i), fmt.Sprintf("text %d", i)))
	}
	if skipped, err := s.Write(ctx, mnemo.WriteBatch{Insert: recs}); err != nil || skipped != 0 {
		t.Fatalf("the batch after: %d skipped, %v", skipped, err)
	}
	if n := count("records"); n != len(recs)+1 {
		t.Fatalf("%d rows, want %d", n, len(recs)+1)
	}
}

// TestCheckpoint checks that Checkpoint leaves the WAL empty and every
// write in the database file, also while other checkpoints run (to which
// SQLite answers busy at once).
func TestCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	s := openTest(t, path, Options{})
	now := time.Now().UTC()
	var recs []*mnemo.Record
	for i := range 300 {
		recs = append(recs, &mnemo.Record{ID: fmt.Sprintf("c%03d", i), Namespace: "ns", Layer: mnemo.LayerDomain, Kind: mnemo.KindFact,
			Scope: "/", Text: fmt.Sprintf("checkpointed %d", i), CreatedAt: now, UpdatedAt: now, ValidFrom: now})
	}
	if _, err := s.Insert(ctx, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // other checkpoints, one after another, on a reader connection
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				_, _ = s.rdb.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
			}
		}
	}()
	for range 20 {
		if err := s.Checkpoint(ctx); err != nil {
			close(stop)
			t.Fatal(err)
		}
	}
	close(stop)
	<-done
	if err := s.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("the WAL after a checkpoint: %v, %v", fi, err)
	}
	if r, err := s.Get(ctx, mnemo.Scope{Namespace: "ns"}, "c299"); err != nil || r.Text != "checkpointed 299" {
		t.Fatalf("after the checkpoint: %v, %v", r, err)
	}
}
