package mnemo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestReadSession: a session reads a store's stamp once and serves it to
// every later call; stores are told apart by key; an error is not kept;
// without a session every call reads.
func TestReadSession(t *testing.T) {
	reads := 0
	read := func() (int64, error) { reads++; return int64(reads), nil }
	if v, _ := mnemo.ReadSessionFrom(context.Background()).Stamp("a", read); v != 1 {
		t.Fatalf("no session: %d", v)
	}
	if v, _ := mnemo.ReadSessionFrom(context.Background()).Stamp("a", read); v != 2 {
		t.Fatalf("no session reads every time: %d", v)
	}
	ctx := mnemo.WithReadSession(context.Background())
	if mnemo.WithReadSession(ctx) != ctx {
		t.Fatal("a nested session replaced the outer one")
	}
	rs := mnemo.ReadSessionFrom(ctx)
	a1, _ := rs.Stamp("a", read)
	a2, _ := rs.Stamp("a", read)
	b1, _ := rs.Stamp("b", read)
	if a1 != 3 || a2 != 3 || b1 != 4 {
		t.Fatalf("stamps a %d %d, b %d", a1, a2, b1)
	}
	if _, err := rs.Stamp("c", func() (int64, error) { return 0, errors.New("down") }); err == nil {
		t.Fatal("error lost")
	}
	if v, err := rs.Stamp("c", read); err != nil || v != 5 {
		t.Fatalf("after an error: %d %v", v, err)
	}
}
