package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
)

// TestSketchBuiltInBackground checks that a mid-sized namespace gets its
// sketches built in the background and then answers like an exact scan.
func TestSketchBuiltInBackground(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir()+"/m.db", Options{})
	now := time.Now()
	texts := zipfTexts(3, 3000, 25)
	vecs, err := embed.NewHash(384).Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]*mnemo.Record, len(texts))
	for i, text := range texts {
		recs[i] = textRecord("bg", fmt.Sprintf("r%05d", i), text, now)
		recs[i].Embedding = vecs[i]
	}
	if _, err := s.Insert(ctx, recs, "create", ""); err != nil {
		t.Fatal(err)
	}
	sc := mnemo.Scope{Namespace: "bg", Clearance: 1}
	q := vecs[17]
	exact, err := s.Vector(ctx, sc, q, mnemo.Filter{}, 20) // loads the index, starts the build
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.idx.mu.RLock()
		ready := s.idx.ns["bg"].Sketching()
		s.idx.mu.RUnlock()
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sketches were not built in the background")
		}
		time.Sleep(5 * time.Millisecond)
	}
	got, err := s.Vector(ctx, sc, q, mnemo.Filter{}, 20)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, h := range exact {
		want[h.ID] = true
	}
	same := 0
	for _, h := range got {
		if want[h.ID] {
			same++
		}
	}
	if len(got) != 20 || same < 19 || got[0].ID != "r00017" {
		t.Fatalf("sketch answer differs from the exact scan: %d of 20 shared, top %s", same, got[0].ID)
	}
}

func TestIDF(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir()+"/m.db", Options{})
	now := time.Now()
	var recs []*mnemo.Record
	for i := range 20 {
		text := fmt.Sprintf("the relay link report %d", i)
		if i == 7 {
			text += " mentions a kestrel"
		}
		recs = append(recs, textRecord("idf", fmt.Sprintf("r%02d", i), text, now))
	}
	if _, err := s.Insert(ctx, recs, "create", ""); err != nil {
		t.Fatal(err)
	}
	idf, unseen, err := s.IDF(ctx, mnemo.Scope{Namespace: "idf"}, "relay kestrel")
	if err != nil {
		t.Fatal(err)
	}
	if !(idf["relay"] < idf["kestrel"] && idf["kestrel"] < unseen) {
		t.Fatalf("idf relay %v, kestrel %v, unseen %v", idf["relay"], idf["kestrel"], unseen)
	}
}
