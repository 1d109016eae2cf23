package sqlite_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/storetest"
)

// benchDir holds the shared benchmark database; TestMain removes it.
var benchDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkInsert measures batched inserts of 200-character records with
// 384-dimension embeddings, 500 per transaction.
func BenchmarkInsert(b *testing.B) {
	s := openAt(b, filepath.Join(b.TempDir(), "insert.db"))
	defer s.Close()
	storetest.BenchInsert(b, s)
}

var (
	benchOnce  sync.Once
	benchStore *sqlite.Store
	benchErr   error
)

// benchN is the size of the search benchmarks' namespace (MNEMO_BENCH_N,
// default 100000).
func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 100000
}

func searchStore(b *testing.B) *sqlite.Store {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "mnemo-bench-")
		if benchErr != nil {
			return
		}
		benchStore, benchErr = sqlite.Open(bg, sqlite.Options{Path: filepath.Join(benchDir, "search.db")})
		if benchErr != nil {
			return
		}
		start := time.Now()
		if benchErr = storetest.Load(bg, benchStore, storetest.NewCorpus(2), "bench", benchN()); benchErr != nil {
			return
		}
		fmt.Fprintf(os.Stderr, "bench set-up: %d records in %v\n", benchN(), time.Since(start).Round(time.Millisecond))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchStore
}

// BenchmarkKeyword measures Keyword top-100 on a namespace of benchN()
// records, with and without a filter, and the bare FloorQuery.
func BenchmarkKeyword(b *testing.B) {
	s := searchStore(b)
	storetest.BenchKeyword(b, s, s.FloorQuery)
}

// BenchmarkTouch measures the access counters of 2,000 distinct records
// bumped in one Touch, on a namespace of benchN() records.
func BenchmarkTouch(b *testing.B) { storetest.BenchTouch(b, searchStore(b)) }

// BenchmarkVector measures Vector top-100 on a namespace of benchN() records.
func BenchmarkVector(b *testing.B) { storetest.BenchVector(b, searchStore(b)) }

// BenchmarkColdLoad measures what a cold process pays before its first
// search: open the store, load the namespace index (MNEMO_BENCH_LOAD_N
// records, default 10000) and run one Keyword and one Vector query, once
// reading every row ("rows") and once from the index snapshot the first
// process left ("snapshot"; sqlite/snapshot.go):
//
//	MNEMO_BENCH_LOAD_N=100000 go test ./sqlite -run '^$' -bench ColdLoad -benchtime 10x
func BenchmarkColdLoad(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_LOAD_N")); err == nil && v > 0 {
		n = v
	}
	path := filepath.Join(b.TempDir(), "load.db")
	s := openAt(b, path)
	c := storetest.NewCorpus(5)
	if err := storetest.Load(bg, s, c, "load", n); err != nil {
		b.Fatal(err)
	}
	q, v := c.Text(60), c.Vector()
	sc := mnemo.Scope{Namespace: "load"}
	if err := s.Warm(bg, "load"); err != nil {
		b.Fatal(err)
	}
	s.Close() // leaves the snapshot (from 500 records)
	for _, mode := range []struct {
		name string
		opt  sqlite.Options
	}{{"rows", sqlite.Options{Path: path, NoIndexSnapshots: true}}, {"snapshot", sqlite.Options{Path: path}}} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				s, err := sqlite.Open(bg, mode.opt)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Vector(bg, sc, v, mnemo.Filter{}, 100); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Keyword(bg, sc, q, mnemo.Filter{}, 100); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}
