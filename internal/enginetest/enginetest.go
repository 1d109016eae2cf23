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
	})
	f.Tok = f.Svc.Tokenizer()
	return f
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
