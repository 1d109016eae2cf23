package postgres_test

import (
	"testing"

	"github.com/mnemo-dev/mnemo/storetest"
)

// FuzzKeyword checks that no query text makes Keyword or FloorQuery fail.
// Its seed corpus (storetest.HostileQueries) runs with every go test.
func FuzzKeyword(f *testing.F) {
	s := openNew(f)
	defer s.Close()
	storetest.FuzzKeyword(f, s, s.FloorQuery)
}
