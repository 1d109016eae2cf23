package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
)

// callEmbedder is the hash embedder that says it is local or not
// (mnemo.LocalEmbedder), refuses texts holding "unembeddable" and keeps
// the size of its largest call.
type callEmbedder struct {
	hash    *embed.Hash
	local   bool
	mu      sync.Mutex
	largest int
}

func (e *callEmbedder) Info() mnemo.EmbedderInfo { return e.hash.Info() }
func (e *callEmbedder) Local() bool              { return e.local }
func (e *callEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.largest = max(e.largest, len(texts))
	e.mu.Unlock()
	for _, t := range texts {
		if strings.Contains(t, "unembeddable") {
			return nil, errors.New("the embedder refused a text")
		}
	}
	return e.hash.Embed(ctx, texts)
}

// TestRememberPipelined checks that a large batch with a local embedder,
// embedded as the store inserts it, stores what the same batch stores
// when embedded first (the ids, texts, token counts and vectors), that a
// batch whose embedding fails part way leaves nothing either way, and
// that only large batches with a local embedder, without near-duplicate
// merging or threads, are embedded a chunk at a time.
func TestRememberPipelined(t *testing.T) {
	ctx := context.Background()
	open := func(local bool) (*engine.Service, *callEmbedder) {
		e := &callEmbedder{hash: embed.NewHash(256), local: local}
		n := 0
		svc, _ := enginetest.Open(t, func(c *engine.Config) {
			c.Embedder = e
			c.NewID = func() string { n++; return fmt.Sprintf("01J00000000000000000%06d", n) }
		})
		return svc, e
	}
	records := func(n int, thread string, bad int) []mnemo.NewRecord {
		out := make([]mnemo.NewRecord, n)
		for i := range out {
			text := fmt.Sprintf("valve %d of pump station %d reads %d bar after the %s shift", i, i%17, i%9, []string{"night", "day", "late"}[i%3])
			if i == bad {
				text += " unembeddable"
			}
			out[i] = mnemo.NewRecord{Text: text, Thread: thread}
		}
		return out
	}
	stored := func(svc *engine.Service) []*mnemo.Record {
		recs, err := svc.List(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.ListOptions{Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(recs, func(a, b *mnemo.Record) int { return strings.Compare(a.ID, b.ID) })
		return recs
	}
	piped, pe := open(true)
	first, fe := open(false)
	wctx := func() context.Context { return mnemo.WithCallerIn(ctx, enginetest.Admin, "ops") }
	for _, svc := range []*engine.Service{piped, first} {
		// The embedding fails in the batch's last chunks: nothing is stored.
		if _, err := svc.Remember(wctx(), records(700, "", 650), mnemo.WriteOptions{}); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("a failed embedding: %v", err)
		}
		if n := len(stored(svc)); n != 0 {
			t.Fatalf("%d records stored by a failed batch", n)
		}
		if _, err := svc.Remember(wctx(), records(700, "", -1), mnemo.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	a, b := stored(piped), stored(first)
	if len(a) != 700 || len(b) != 700 {
		t.Fatalf("%d and %d records, want 700", len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Text != b[i].Text || a[i].Tokens != b[i].Tokens || a[i].Tokens == 0 || !slices.Equal(a[i].Embedding, b[i].Embedding) {
			t.Fatalf("record %d differs: %s %q %d tokens against %s %q %d tokens", i, a[i].ID, a[i].Text, a[i].Tokens, b[i].ID, b[i].Text, b[i].Tokens)
		}
	}
	if pe.largest > 64 || fe.largest <= 64 {
		t.Fatalf("largest embedding calls %d (local) and %d (not local): the local one was not pipelined, or the other was", pe.largest, fe.largest)
	}
	// Merging near-duplicates, or records of a thread, or a small batch:
	// embedded first, as a remote embedder's batches are.
	for _, c := range []struct {
		name string
		recs []mnemo.NewRecord
		opt  mnemo.WriteOptions
	}{
		{"dedup", records(300, "", -1), mnemo.WriteOptions{Dedup: true}},
		{"thread", records(300, "t1", -1), mnemo.WriteOptions{}},
		{"small", records(200, "", -1), mnemo.WriteOptions{}},
	} {
		pe.largest = 0
		if _, err := piped.Remember(wctx(), c.recs, c.opt); err != nil {
			t.Fatal(err)
		}
		if pe.largest <= 64 {
			t.Errorf("%s: embedded %d texts at most a call, as a pipelined write", c.name, pe.largest)
		}
		// Embedded first, the batch is shared out over the cores.
		w := min(runtime.GOMAXPROCS(0), 8)
		if want := min(256, (len(c.recs)+w-1)/w); pe.largest != want {
			t.Errorf("%s: %d texts at most a call, want %d (%d records over %d cores)", c.name, pe.largest, want, len(c.recs), w)
		}
	}
}

// TestWritesLeaveQueryCache checks that the records of a write are
// embedded past the query cache (embed.Cached): writes, small or batched,
// neither add to it nor evict what queries put there.
func TestWritesLeaveQueryCache(t *testing.T) {
	ctx := mnemo.WithCallerIn(context.Background(), enginetest.Admin, "ops")
	cached := embed.NewCached(embed.NewHash(256), 4096).(*embed.Cached)
	svc, _ := enginetest.Open(t, func(c *engine.Config) { c.Embedder = cached })
	if _, err := svc.Recall(ctx, mnemo.RecallRequest{Query: "why does the compressor trip", K: 5}); err != nil {
		t.Fatal(err)
	}
	queried := cached.Len()
	if queried == 0 || queried > 4096-300 {
		t.Fatalf("%d texts cached by a query: none, or too many to see a write's", queried)
	}
	recs := make([]mnemo.NewRecord, 300)
	for i := range recs {
		recs[i] = mnemo.NewRecord{Text: fmt.Sprintf("compressor %d trips at %d degrees", i, 40+i%30)}
	}
	for _, batch := range [][]mnemo.NewRecord{recs[:1], recs[1:20], recs[20:]} {
		if _, err := svc.Remember(ctx, batch, mnemo.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := cached.Len(); n != queried {
		t.Fatalf("%d texts cached after the writes, %d before", n, queried)
	}
}

// TestImportPipelined checks that an import's batches, embedded as the
// store inserts them with a local embedder, store what they store when
// embedded first, and that a batch whose embedding fails leaves nothing of
// itself (the batches before it stay: an import commits a batch at a
// time).
func TestImportPipelined(t *testing.T) {
	ctx := mnemo.WithCallerIn(context.Background(), enginetest.Admin, "ops")
	export := func(bad int) []byte {
		src, _ := enginetest.Open(t, nil)
		recs := make([]mnemo.NewRecord, 1000)
		for i := range recs {
			recs[i] = mnemo.NewRecord{Text: fmt.Sprintf("pump %d of line %d was serviced in week %d", i, i%13, i%52)}
			if i == bad {
				recs[i].Text += " unembeddable"
			}
		}
		if _, err := src.Remember(ctx, recs, mnemo.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if n, err := src.Export(ctx, &buf); err != nil || n != len(recs) {
			t.Fatalf("export: %d, %v", n, err)
		}
		return buf.Bytes()
	}
	open := func(local bool) (*engine.Service, *callEmbedder) {
		e := &callEmbedder{hash: embed.NewHash(256), local: local}
		svc, _ := enginetest.Open(t, func(c *engine.Config) { c.Embedder = e })
		return svc, e
	}
	all := func(svc *engine.Service) []*mnemo.Record {
		recs, err := svc.List(ctx, mnemo.ListOptions{Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	good, bad := export(-1), export(800) // 800: in the second batch of 500
	piped, pe := open(true)
	first, fe := open(false)
	for _, svc := range []*engine.Service{piped, first} {
		if res, err := svc.Import(ctx, bytes.NewReader(good), nil); err != nil || res.Imported != 1000 {
			t.Fatalf("import: %+v, %v", res, err)
		}
	}
	a, b := all(piped), all(first)
	if len(a) != 1000 || len(b) != 1000 {
		t.Fatalf("%d and %d records imported, want 1000", len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Tokens != b[i].Tokens || a[i].Tokens == 0 || !slices.Equal(a[i].Embedding, b[i].Embedding) {
			t.Fatalf("record %d differs: %s %d tokens against %s %d tokens", i, a[i].ID, a[i].Tokens, b[i].ID, b[i].Tokens)
		}
	}
	if pe.largest > 64 || fe.largest <= 64 {
		t.Fatalf("largest embedding calls %d (local) and %d (not local)", pe.largest, fe.largest)
	}
	for _, local := range []bool{true, false} {
		svc, _ := open(local)
		if _, err := svc.Import(ctx, bytes.NewReader(bad), nil); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("local %v: an import whose second batch fails to embed: %v", local, err)
		}
		if n := len(all(svc)); n != engine.ImportBatch {
			t.Fatalf("local %v: %d records after the failed batch, want the first batch's %d", local, n, engine.ImportBatch)
		}
	}
}
