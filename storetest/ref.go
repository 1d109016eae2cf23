package storetest

import (
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// testShortRefs: a store that resolves short references (mnemo.RefResolver)
// finds the ids of its namespace that end with a suffix, forgotten records
// included, never one above the caller's clearance or in another
// namespace, and takes suffixes holding pattern characters literally.
func testShortRefs(t *testing.T, s mnemo.Store) {
	rr, ok := s.(mnemo.RefResolver)
	if !ok {
		t.Skip("the store does not resolve short references")
	}
	a, b, secret, other := rec("refs", "alpha"), rec("refs", "beta"), rec("refs", "gamma"), rec("refs-other", "delta")
	a.ID, b.ID = "01JAAAAAAAAAAAAAAAAREF0001", "01JBBBBBBBBBBBBBBBBREF0002"
	secret.ID, secret.AccessLevel = "01JCCCCCCCCCCCCCCCCREF0003", 2
	other.ID = "01JDDDDDDDDDDDDDDDDREF0004"
	for _, r := range []*mnemo.Record{a, b, secret, other} {
		if mnemo.ShortRef(r.ID) == r.ID {
			t.Fatalf("%s is not shaped as a ULID", r.ID)
		}
	}
	now := base
	b.DeletedAt = &now
	insert(t, s, a, b, secret, other)
	sc := mnemo.Scope{Namespace: "refs", Clearance: 1}
	for _, tt := range []struct {
		suffix string
		limit  int
		want   []string
	}{
		{mnemo.ShortRef(a.ID), 2, []string{a.ID}},
		{mnemo.ShortRef(b.ID), 2, []string{b.ID}}, // forgotten: still named
		{mnemo.ShortRef(secret.ID), 2, nil},       // above the clearance
		{mnemo.ShortRef(other.ID), 2, nil},        // another namespace
		{"REF000", 1, nil},                        // no id ends with it
		{"0001", 5, []string{a.ID}},
		{"", 5, nil},
		{"%", 5, nil},
		{"*", 5, nil},
		{"_EF0001", 5, nil},
		{"?EF0001", 5, nil},
	} {
		got, err := rr.IDsEndingWith(bg, sc, tt.suffix, tt.limit)
		if err != nil {
			t.Errorf("IDsEndingWith(%q): %v", tt.suffix, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("IDsEndingWith(%q) = %v, want %v", tt.suffix, got, tt.want)
		}
	}
	both, err := rr.IDsEndingWith(bg, mnemo.Scope{Namespace: "refs", Clearance: 1}, "0", 1)
	if err != nil || len(both) != 0 {
		t.Errorf("IDsEndingWith(\"0\") = %v, %v: want nothing", both, err)
	}
	two, err := rr.IDsEndingWith(bg, mnemo.Scope{Namespace: "refs", Clearance: 9}, "REF000", 5)
	if err != nil || len(two) != 0 {
		t.Errorf("IDsEndingWith(\"REF000\") = %v, %v", two, err)
	}
	all, err := rr.IDsEndingWith(bg, mnemo.Scope{Namespace: "refs", Clearance: 9}, "", 5)
	if err != nil || len(all) != 0 {
		t.Errorf("IDsEndingWith(\"\") = %v, %v", all, err)
	}
	limited, err := rr.IDsEndingWith(bg, mnemo.Scope{Namespace: "refs", Clearance: 9}, "EF0001", 1)
	if err != nil || !slices.Equal(limited, []string{a.ID}) {
		t.Errorf("IDsEndingWith(\"EF0001\", 1) = %v, %v", limited, err)
	}
}
