// Package enginetest opens the real service over a real SQLite file for the
// tests of the packages built on the engine: the transports, push mode and
// the benchmarks.
package enginetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/episodes"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// Open returns a service over a new SQLite store in t's temporary folder,
// with the hash embedder (256 dimensions) and exact token counts; mod, when
// not nil, changes the configuration first (a clock, another embedder, a
// store that wraps the SQLite one). Both are closed when t ends.
func Open(t testing.TB, mod func(*engine.Config)) (*engine.Service, *sqlite.Store) {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "m.db"), mod)
}

// OpenAt is Open over the SQLite file at path, which may hold a store
// already.
func OpenAt(t testing.TB, path string, mod func(*engine.Config)) (*engine.Service, *sqlite.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenize.New("")
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	cfg := engine.Config{Store: st, Embedder: embed.NewHash(256), Tokenizer: tok}
	if mod != nil {
		mod(&cfg)
	}
	svc, err := engine.New(ctx, cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close(); st.Close() })
	return svc, st
}

// Admin is the administrator, at full clearance, the fixtures' tests act as.
var Admin = mnemo.Caller{Name: "test", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}

// Fixture is a service whose clock stands at Now until a test moves it.
type Fixture struct {
	Svc *engine.Service
	Now time.Time
	Tok mnemo.Tokenizer // the service's tokenizer
	// Extraction is the queue the service's writes feed (Extracting);
	// nil: no extraction on write.
	Extraction *episodes.Queue

	chat  llm.Model // the service's chat model (Config.Chat)
	every int       // Extracting's messages per extraction
}

// Clocked opens a service as OpenAt does (at path, or in a new file when
// path is ""), its clock reading f.Now, which starts at 2026-11-01 12:00
// UTC; mod, when not nil, changes the configuration after the clock is set.
func Clocked(t testing.TB, path string, mod func(*engine.Config)) *Fixture {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "m.db")
	}
	f := &Fixture{Now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	f.Svc, _ = OpenAt(t, path, func(c *engine.Config) {
		c.Now = func() time.Time { return f.Now }
		if mod != nil {
			mod(c)
		}
		f.chat = c.Chat
	})
	f.Tok = f.Svc.Tokenizer()
	return f
}

// Extracting opens a service as Clocked does (in a new file) whose writes
// feed an extraction queue (episodes.Queue, f.Extraction), which extracts
// a thread once it has gained every messages, as `mnemo` does with
// MNEMO_EXTRACT_EVERY. The queue is closed before the service.
func Extracting(t testing.TB, every int, mod func(*engine.Config)) *Fixture {
	t.Helper()
	q := episodes.NewQueue(nil)
	f := Clocked(t, "", func(c *engine.Config) {
		c.ThreadsWritten = q.Add
		if mod != nil {
			mod(c)
		}
	})
	f.every, f.Extraction = every, q
	q.Start(f.Extractor())
	t.Cleanup(q.Close) // before the service's close, registered earlier
	return f
}

// Extractor is the service's extractor: it reads the service's store and
// writes through the service, with its chat model and thread locks (what
// serve's extraction job runs, and the queue of Extracting).
func (f *Fixture) Extractor() episodes.Extractor {
	return episodes.Extractor{Store: f.Svc.Store(), Records: f.Svc, Chat: f.chat, Every: f.every, Lock: f.Svc.LockThread}
}

// Flush waits until the service's background work and the extractions
// its writes queued so far are done.
func (f *Fixture) Flush(ctx context.Context) error {
	if err := f.Svc.Flush(ctx); err != nil {
		return err
	}
	if f.Extraction != nil {
		return f.Extraction.Flush(ctx)
	}
	return nil
}

// Remember stores recs in namespace ns as Admin, failing t on an error.
func (f *Fixture) Remember(t testing.TB, ns string, recs ...mnemo.NewRecord) []mnemo.Written {
	t.Helper()
	out, err := f.Svc.Remember(mnemo.WithCallerIn(context.Background(), Admin, ns), recs, mnemo.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Ptr returns a pointer to a copy of v (an optional field's value).
func Ptr[T any](v T) *T { return &v }
