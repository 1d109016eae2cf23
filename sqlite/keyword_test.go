package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/storetest"
)

func TestMatchExpr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{`"" ** ()`, ""},
		{"Hello, World!", `"hello" OR "world"`},
		{`text:foo NEAR(bar`, `"text" OR "foo" OR "near" OR "bar"`},
		{"the cat and the hat", `"cat" OR "hat"`},
		{"the and", `"the" OR "and"`},
		{"Київ і Москва", `"київ" OR "москва"`},
		{"café\xffbar", `"café" OR "bar"`},
		{"dup DUP Dup", `"dup"`},
		{"alpha🔥beta", `"alpha" OR "beta"`},
		{strings.Repeat("x", 100) + " ok", `"ok"`},
	}
	for _, tt := range tests {
		if got := matchExpr(tt.in); got != tt.want {
			t.Errorf("matchExpr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	var many []string
	for i := range 100 {
		many = append(many, "w"+strings.Repeat("q", i%50)+string(rune('a'+i%26)))
	}
	if n := strings.Count(matchExpr(strings.Join(many, " ")), " OR ") + 1; n != maxQueryTokens {
		t.Errorf("kept %d tokens, want %d", n, maxQueryTokens)
	}
}

// FuzzKeyword checks that no query text makes Keyword or FloorQuery fail.
// Its seed corpus (storetest.HostileQueries) runs with every go test.
func FuzzKeyword(f *testing.F) {
	s, err := Open(context.Background(), Options{Path: filepath.Join(f.TempDir(), "fuzz.db")})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	storetest.FuzzKeyword(f, s, s.FloorQuery)
}

func TestPrune(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	var recs []*mnemo.Record
	for i, text := range []string{"common words", "common things", "common rare", "common stuff", "scarce"} {
		r := &mnemo.Record{ID: string(rune('a' + i)), Namespace: "p", Kind: mnemo.KindFact, Text: text}
		r.Normalize(now)
		recs = append(recs, r)
	}
	if _, err := s.Insert(ctx, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.BuildFTS(ctx); err != nil { // prune serves the FTS5 path
		t.Fatal(err)
	}
	defer func(b int64) { pruneBudget = b }(pruneBudget)
	pruneBudget = 2
	got, err := s.prune(ctx, []string{"common", "rare", "scarce"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "rare,scarce" {
		t.Errorf("prune kept %v, want the two rare terms", got)
	}
	hits, err := s.Keyword(ctx, mnemo.Scope{Namespace: "p"}, "common rare", mnemo.Filter{}, 10)
	if err != nil || len(hits) != 1 || hits[0].ID != "c" {
		t.Errorf("pruned keyword = %v, %v; want only the rare record", hits, err)
	}
	pruneBudget = 0
	if got, _ := s.prune(ctx, []string{"common", "rare"}); strings.Join(got, ",") != "rare" {
		t.Errorf("prune with no budget kept %v, want the rarest term", got)
	}
}
