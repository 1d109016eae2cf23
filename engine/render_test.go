package engine

import (
	"strings"
	"testing"
)

// FuzzOneLine checks the copy-free folding of whitespace against the
// plain strings.Fields and Join it stands for.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\nb", "a\u00a0b", "é è", "a\tb", "\u2003x", "\xff \xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
