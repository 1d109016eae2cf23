package postgres_test

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/storetest"
)

// FuzzKeyword checks that no query text makes Keyword or FloorQuery fail.
// Its seed corpus (storetest.HostileQueries) runs with every go test.
func FuzzKeyword(f *testing.F) {
	for _, q := range storetest.HostileQueries {
		f.Add(q)
	}
	s := openNew(f)
	defer s.Close()
	now := time.Now()
	var recs []*mnemo.Record
	for _, text := range []string{"alpha beta gamma", "Київ і Москва", "café naïve", "NEAR AND OR NOT text"} {
		r := &mnemo.Record{ID: text, Namespace: "fz", Kind: mnemo.KindFact, Text: text}
		r.Normalize(now)
		recs = append(recs, r)
	}
	if _, err := s.Insert(bg, recs, "", ""); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := s.Keyword(bg, mnemo.Scope{Namespace: "fz"}, q, mnemo.Filter{}, 10); err != nil {
			t.Fatalf("Keyword(%q): %v", q, err)
		}
		if _, err := s.FloorQuery(bg, "fz", q, 10); err != nil {
			t.Fatalf("FloorQuery(%q): %v", q, err)
		}
	})
}
