package postgres_test

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/postgres/pgtest"
	"github.com/mnemo-dev/mnemo/storetest"
)

const benchDim = 384

// BenchmarkInsert measures batched inserts of 200-character records with
// 384-dimension embeddings, 500 per transaction.
func BenchmarkInsert(b *testing.B) {
	storetest.BenchInsert(b, openNew(b))
}

var (
	benchOnce  sync.Once
	benchStore *postgres.Store
	benchDB    string
	benchErr   error
)

// benchN is the size of the search benchmarks' namespace (MNEMO_BENCH_N,
// default 10000).
func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 10000
}

func searchStore(b *testing.B) *postgres.Store {
	pgtest.SkipIf(b, startErr)
	benchOnce.Do(func() {
		var u string
		benchDB, u, benchErr = pgtest.CreateDatabase(bg, adminURL, "")
		if benchErr != nil {
			return
		}
		benchStore, benchErr = postgres.Open(bg, postgres.Options{URL: u})
		if benchErr != nil {
			return
		}
		start := time.Now()
		if benchErr = storetest.Load(bg, benchStore, storetest.NewCorpus(2), "bench", benchN()); benchErr != nil {
			return
		}
		fmt.Fprintf(os.Stderr, "bench set-up: %d records in %v\n", benchN(), time.Since(start).Round(time.Millisecond))
		// Collect the planner statistics now, as autovacuum would soon:
		// keyword pruning reads them.
		var conn *pgx.Conn
		if conn, benchErr = pgx.Connect(bg, u); benchErr != nil {
			return
		}
		defer conn.Close(bg)
		_, benchErr = conn.Exec(bg, `ANALYZE records`)
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
