package tokenize_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/tokenize"
)

func TestCount(t *testing.T) {
	tests := []struct {
		enc  string
		text string
		want int
	}{
		{"", "hello world", 2},
		{"o200k_base", "hello world", 2},
		{"o200k_base", "", 0},
		{"o200k_base", "Hello, world!", 4},
		{"o200k_base", "The quick brown fox jumps over the lazy dog.", 10},
		{"o200k_base", "Правила деплоя: не деплоить в пятницу.", 14},
		{"o200k_base", "Правила розгортання: не розгортати в п'ятницю.", 19},
		{"o200k_base", "func main() {\n\tfmt.Println(\"hi\")\n}\n", 10},
		{"cl100k_base", "hello world", 2},
		{"cl100k_base", "", 0},
		{"cl100k_base", "Правила деплоя: не деплоить в пятницу.", 21},
		{"cl100k_base", "Правила розгортання: не розгортати в п'ятницю.", 28},
	}
	for _, tt := range tests {
		tok, err := tokenize.New(tt.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Count(tt.text); got != tt.want {
			t.Errorf("%s Count(%q) = %d, want %d", tok.Name(), tt.text, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	tok, err := tokenize.New("")
	if err != nil {
		t.Fatal(err)
	}
	if tok.Name() != tokenize.Default {
		t.Errorf("default name = %q, want %q", tok.Name(), tokenize.Default)
	}
	again, _ := tokenize.New(tokenize.Default)
	if tok != again {
		t.Error("the encoding was loaded twice")
	}
	if _, err := tokenize.New("p51k"); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("unknown encoding: err = %v, want code %s", err, mnemo.EINVALID)
	}
}

func TestCountConcurrent(t *testing.T) {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"hello world", "Правила деплоя: не деплоить в пятницу.", strings.Repeat("memory ", 50)}
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Count(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t2, _ := tokenize.New("")
			for i := range 50 {
				k := (g + i) % len(texts)
				if got := t2.Count(texts[k]); got != want[k] {
					t.Errorf("Count(%q) = %d, want %d", texts[k], got, want[k])
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkCount(b *testing.B) {
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	text := "Decision: deploy the billing service only from the release branch; rollbacks go through the runbook. " +
		"Правило: не деплоить в пятницу после 16:00, см. инцидент INC-1234."
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Count(text)
	}
}

func TestLazyMatchesEager(t *testing.T) {
	eager, err := tokenize.New("")
	if err != nil {
		t.Fatal(err)
	}
	lz, err := tokenize.Lazy("")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"", "hello world", "Привіт, світе", "décision — rejected"} {
		if a, b := eager.Count(s), lz.Count(s); a != b {
			t.Errorf("%q: lazy %d, eager %d", s, b, a)
		}
	}
	if lz.Name() != tokenize.Default {
		t.Errorf("name %q", lz.Name())
	}
	if _, err := tokenize.Lazy("nope"); err == nil {
		t.Error("unknown encoding accepted")
	}
}
