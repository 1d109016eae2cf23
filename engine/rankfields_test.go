package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// rowCounter is a real SQLite store that counts the rows read by id.
type rowCounter struct {
	*sqlite.Store
	rows atomic.Int64
}

func (c *rowCounter) GetMany(ctx context.Context, sc mnemo.Scope, ids []string) ([]*mnemo.Record, error) {
	c.rows.Add(int64(len(ids)))
	return c.Store.GetMany(ctx, sc, ids)
}

// TestRankFromIndexReadsShownRows: with a store's rank index, recall and
// a digest rank hundreds of candidates from the fields the index holds
// and read the rows of about what they show, and what they show is whole.
func TestRankFromIndexReadsShownRows(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	rc := &rowCounter{Store: st}
	tok, err := tokenize.New("")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	svc, err := engine.New(ctx, engine.Config{Store: rc, Embedder: embed.NewHash(256), Tokenizer: tok, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close(); st.Close() })
	var recs []mnemo.NewRecord
	for i := range 300 {
		recs = append(recs, mnemo.NewRecord{Text: fmt.Sprintf("Ticket %d: the parser test fails on input file case%d.json with a timeout in stage %d", i, i, i%7)})
	}
	cctx := mnemo.WithCallerIn(ctx, admin, "")
	if _, err := svc.Remember(cctx, recs, mnemo.WriteOptions{Dedup: false}); err != nil {
		t.Fatal(err)
	}
	rc.rows.Store(0)
	res, err := svc.Recall(cctx, mnemo.RecallRequest{Query: "parser test timeout", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 5 {
		t.Fatalf("recall gave %d hits, want 5", len(res.Hits))
	}
	for _, h := range res.Hits {
		if h.Text == "" || len(h.Provenance) == 0 && h.CreatedAt.IsZero() {
			t.Errorf("hit %s is not whole: %+v", h.ID, h)
		}
	}
	t.Logf("recall read %d rows", rc.rows.Load())
	if n := rc.rows.Load(); n > 30 {
		t.Errorf("recall of 5 among 300 candidates read %d rows", n)
	}
	rc.rows.Store(0)
	d, err := svc.Digest(cctx, mnemo.DigestRequest{Task: "parser test timeout", Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	if d.Candidates < 100 || len(d.Entries) == 0 {
		t.Fatalf("digest: %d candidates, %d entries", d.Candidates, len(d.Entries))
	}
	for _, e := range d.Entries {
		if e.Text == "" || e.Tokens == 0 {
			t.Errorf("entry %s is not whole: %+v", e.ID, e)
		}
	}
	t.Logf("a digest of %d entries among %d candidates read %d rows", len(d.Entries), d.Candidates, rc.rows.Load())
	if n := rc.rows.Load(); n > int64(len(d.Entries))+40 {
		t.Errorf("a digest of %d entries among %d candidates read %d rows", len(d.Entries), d.Candidates, n)
	}
}
