// Package enginetest opens the real service over a real SQLite file for the
// tests of the packages built on the engine: the transports, push mode and
// the benchmarks.
package enginetest

import (
	"context"
	"path/filepath"
	"testing"

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
