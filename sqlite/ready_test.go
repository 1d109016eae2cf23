package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/storetest"
)

// vectorOf is the vector a test completes record i with: far enough from
// its neighbours' for a vector search to tell them apart.
func vectorOf(i int) []float32 {
	a := 0.01 * float64(i)
	return []float32{float32(math.Cos(a)), float32(math.Sin(a)), 1}
}

// completing completes recs (storetest.Completing) with vectorOf, a NaN
// in that of record bad, and stops with an error at record fail (-1:
// neither).
func completing(recs []*mnemo.Record, bad, fail int) func(n int) error {
	return storetest.Completing(recs, func(i int) []float32 {
		v := vectorOf(i)
		if i == bad {
			v[1] = float32(math.NaN())
		}
		return v
	}, fail, errors.New("the embedder is down"))
}

// TestWriteReady checks a batch written while its records are completed
// (mnemo.WriteBatch.Ready), into a namespace whose index is loaded: every
// record is stored with the vector it was completed with, skipped as a
// batch written at once skips (an id the namespace holds, one met earlier
// in another part), and found in the index; a completion that fails, or a
// record that fails its check in a later part, leaves nothing of the
// batch, with the error that stopped it.
func TestWriteReady(t *testing.T) {
	ctx := context.Background()
	s, rec := openWithOld(t, "r.db")
	sc := mnemo.Scope{Namespace: "ns"}
	if _, err := s.Keyword(ctx, sc, "stored", mnemo.Filter{}, 5); err != nil { // loads the index
		t.Fatal(err)
	}
	count := func(table string) int { return countRows(t, s, table) }
	batch := func(prefix string, n int) []*mnemo.Record {
		recs := make([]*mnemo.Record, n)
		for i := range recs {
			recs[i] = rec(fmt.Sprintf("%s%04d", prefix, i), fmt.Sprintf("%s text %d", prefix, i))
			recs[i].Embedding = nil
		}
		return recs
	}
	for _, c := range []struct {
		name      string
		bad, fail int
		want      string
	}{
		{"fail", -1, 3*insertPart + 5, "the embedder is down"},
		{"nan", 2*insertPart + 1, -1, "embedding holds NaN"},
	} {
		recs := batch(c.name, 5*insertPart)
		_, err := s.Write(ctx, mnemo.WriteBatch{Insert: recs, Ready: completing(recs, c.bad, c.fail)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want %q", c.name, err, c.want)
		}
		if r, v := count("records"), count("revisions"); r != 1 || v != 1 {
			t.Fatalf("%s: %d rows and %d revisions after the failed batch, want 1 and 1", c.name, r, v)
		}
		if hits, err := s.Keyword(ctx, sc, "text", mnemo.Filter{}, 10); err != nil || len(hits) != 0 {
			t.Fatalf("%s: the index holds %v (%v)", c.name, hits, err)
		}
	}
	recs := batch("ok", 5*insertPart+3)
	recs[insertPart+2] = rec("old", "again")              // in the namespace already
	recs[3*insertPart+1] = rec("ok0001", "second ok0001") // earlier in the batch, another part
	recs[insertPart+2].Embedding, recs[3*insertPart+1].Embedding = nil, nil
	skipped, err := s.Write(ctx, mnemo.WriteBatch{Insert: recs, Actor: "tester", Ready: completing(recs, -1, -1)})
	if err != nil || skipped != 2 {
		t.Fatalf("%d skipped, %v; want 2", skipped, err)
	}
	if n := count("records"); n != len(recs)-2+1 {
		t.Fatalf("%d rows, want %d", n, len(recs)-2+1)
	}
	for _, i := range []int{0, insertPart, 4*insertPart + 2, len(recs) - 1} {
		r, err := s.Get(ctx, sc, recs[i].ID)
		if err != nil || r.Text != recs[i].Text || len(r.Embedding) != 3 || r.Embedding[0] != vectorOf(i)[0] {
			t.Fatalf("record %d: %+v, %v", i, r, err)
		}
		hits, err := s.Vector(ctx, sc, vectorOf(i), mnemo.Filter{}, 1)
		if err != nil || len(hits) != 1 || hits[0].ID != recs[i].ID {
			t.Fatalf("record %d in the index: %v, %v", i, hits, err)
		}
	}
	if r, err := s.Get(ctx, sc, "ok0001"); err != nil || r.Text != "ok text 1" {
		t.Fatalf("ok0001: %+v, %v", r, err)
	}
}
