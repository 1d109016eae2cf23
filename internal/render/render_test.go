package render

import (
	"math/rand"
	"strings"
	"testing"
)

// TestOneLine checks OneLine against its definition, whitespace runs
// folded to one space and trimmed (strings.Fields), on random texts of
// ASCII and other spaces, control characters and letters.
func TestOneLine(t *testing.T) {
	alphabet := []rune("ab Z.\t\n\r\v\f\x00\x01\x1f\x7f\u00a0\u2028\u3000\u0085éж")
	rng := rand.New(rand.NewSource(1))
	for range 20000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteRune(alphabet[rng.Intn(len(alphabet))])
		}
		s := b.String()
		if got, want := OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("OneLine(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzOneLine is TestOneLine on any text.
func FuzzOneLine(f *testing.F) {
	f.Add("a  b\tc\n")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("OneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
