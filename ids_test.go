package mnemo_test

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-dev/mnemo"
)

func TestDerivedID(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	a := mnemo.DerivedID(at, "git", "ops", "abc123")
	if a != mnemo.DerivedID(at, "git", "ops", "abc123") {
		t.Fatal("not deterministic")
	}
	for _, other := range []string{mnemo.DerivedID(at, "git", "team", "abc123"), mnemo.DerivedID(at, "git", "opsa", "bc123"),
		mnemo.DerivedID(at.Add(time.Millisecond), "git", "ops", "abc123")} {
		if other == a {
			t.Errorf("%s collides with %s", other, a)
		}
	}
	u, err := ulid.ParseStrict(a)
	if err != nil || ulid.Time(u.Time()).UnixMilli() != at.UnixMilli() {
		t.Errorf("%s: %v, time %v", a, err, ulid.Time(u.Time()))
	}
	for _, edge := range []time.Time{{}, time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := ulid.ParseStrict(mnemo.DerivedID(edge, "k")); err != nil {
			t.Errorf("time %v gives an invalid ULID: %v", edge, err)
		}
	}
}
