package stem_test

import (
	"testing"

	"github.com/mnemo-dev/mnemo/stem"
)

func TestWord(t *testing.T) {
	groups := [][]string{
		{"deploy", "deployed", "deploys", "deployment", "deployments"},
		{"configuration", "configurations"},
		{"class", "classes"},
		{"правила", "правило", "правилами"},
	}
	for _, g := range groups {
		want := stem.Word(g[0])
		for _, w := range g[1:] {
			if got := stem.Word(w); got != want {
				t.Errorf("stem(%q) = %q, stem(%q) = %q: want the same", g[0], want, w, got)
			}
		}
	}
	for _, w := range []string{"", "a", "an", "the", "go", "cat"} {
		if got := stem.Word(w); got != w {
			t.Errorf("short word %q stemmed to %q", w, got)
		}
	}
	if stem.Word("class") != "class" {
		t.Error(`"class" must keep its s`)
	}
}

func TestBytesMatchesLen(t *testing.T) {
	for _, w := range []string{"deployments", "running", "ities", "boxes", "правилами", "café", "x"} {
		r := []rune(w)
		if got, want := w[:stem.Bytes([]byte(w))], string(r[:stem.Len(r)]); got != want {
			t.Errorf("%q: Bytes gives %q, Len gives %q", w, got, want)
		}
	}
}

func FuzzBytes(f *testing.F) {
	for _, s := range []string{"deployment", "правилами", "\xff\xfe", "ses", "ёжики"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		n := stem.Bytes([]byte(w))
		if n < 0 || n > len(w) {
			t.Fatalf("stem length %d of %d bytes", n, len(w))
		}
	})
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"Café": "cafe", "e\u0301tude": "etude", "КИЇВ": "киів", "Ёжик": "ежик", "plain": "plain", "Straße": "strasse"} {
		if got := stem.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
