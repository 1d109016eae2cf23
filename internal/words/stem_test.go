package words_test

import (
	"testing"

	"github.com/mnemo-dev/mnemo/internal/words"
)

func TestStem(t *testing.T) {
	groups := [][]string{
		{"deploy", "deployed", "deploys", "deployment", "deployments"},
		{"configuration", "configurations"},
		{"class", "classes"},
		{"правила", "правило", "правилами"},
	}
	for _, g := range groups {
		want := words.Stem(g[0])
		for _, w := range g[1:] {
			if got := words.Stem(w); got != want {
				t.Errorf("stem(%q) = %q, stem(%q) = %q: want the same", g[0], want, w, got)
			}
		}
	}
	for _, w := range []string{"", "a", "an", "the", "go", "cat"} {
		if got := words.Stem(w); got != w {
			t.Errorf("short word %q stemmed to %q", w, got)
		}
	}
	if words.Stem("class") != "class" {
		t.Error(`"class" must keep its s`)
	}
}

func TestStemBytesMatchesStemLen(t *testing.T) {
	for _, w := range []string{"deployments", "running", "ities", "boxes", "правилами", "café", "x"} {
		r := []rune(w)
		if got, want := w[:words.StemBytes([]byte(w))], string(r[:words.StemLen(r)]); got != want {
			t.Errorf("%q: Bytes gives %q, Len gives %q", w, got, want)
		}
	}
}

func FuzzStemBytes(f *testing.F) {
	for _, s := range []string{"deployment", "правилами", "\xff\xfe", "ses", "ёжики"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		n := words.StemBytes([]byte(w))
		if n < 0 || n > len(w) {
			t.Fatalf("stem length %d of %d bytes", n, len(w))
		}
	})
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"Café": "cafe", "e\u0301tude": "etude", "КИЇВ": "киів", "Ёжик": "ежик", "plain": "plain", "Straße": "strasse"} {
		if got := words.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
