package tokenize

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
)

// o200kPattern is o200k_base's split pattern as the tokenizer library
// compiles it.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// splitAlphabet holds runes of every class the pattern tells apart, and
// some that sit on their edges: ASCII and other letters of each case
// category (Lu, Ll, Lt, Lm, Lo), combining marks (Mn, Mc, Me), numbers
// (Nd, Nl, No), spaces (ASCII, no-break, line and paragraph separators,
// U+0085, U+3000), line breaks, apostrophes and the letters of the
// contractions in both cases, the long s and the Kelvin sign (whose case
// folds touch s and k), punctuation, symbols, emoji, U+FFFD, and control
// characters with U+007F.
var splitAlphabet = []rune("aAbBsStTrReEvVmMlLdDxyzXYZ" +
	"éÉßñÑжЖяЯїЇґҐΩωİıſK" + // Latin, Cyrillic, Greek, İ ı ſ, Kelvin sign
	"ǅǈǋ" + // Lt
	"ʰʹˆーゝ" + // Lm
	"中文字ひらがなカタカナא" + // Lo
	"\u0301\u0308\u0903\u20dd" + // Mn, Mc, Me
	"0123456789٣५Ⅻ½²" + // Nd, Nl, No
	"     \t\t\r\n\n\v\f\u00a0\u2028\u2029\u0085\u3000\u200b" +
	"''''’\"!?.,;:-_/\\()[]{}<>@#$%^&*+=|~`" +
	"😀🚀€£©\ufffd\x7f\x00\x1b")

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteRune(splitAlphabet[rng.Intn(len(splitAlphabet))])
	}
	return b.String()
}

// regexpPieces splits s with the library's engine and pattern.
func regexpPieces(t *testing.T, re *regexp2.Regexp, s string) []string {
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSplitO200kMatchesRegexp compares splitO200k with o200k_base's
// pattern run by the library's engine, piece by piece, on random strings
// over splitAlphabet and on prose, code and logs; and Count with the
// library's count of the whole text.
func TestSplitO200kMatchesRegexp(t *testing.T) {
	re := regexp2.MustCompile(o200kPattern, regexp2.None)
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	texts := []string{
		"", "a", " ", "\n", "  \n  x", "I'm here, they'll go; WE'RE DONE'S", "HTTPServer's JSONParser parses XMLs.",
		"The deploy of service-a at 2024-05-01T10:00:00Z failed: timeout=30s (retry 3/5).\r\n\r\n  next line  ",
		"func (s *Store) Insert(ctx context.Context, recs []*mnemo.Record) (int, error) {\n\treturn 0, nil\n}\n",
		"Привет, мир! Це тест: їжак ґанок. 中文字符 and emoji 😀🚀 — ok…",
		"x\u0301y\u0308 a\u20dd ǅungla ʰello ﬁne",
		"12345678 3.14159 1,000,000 ½ ²",
		"trailing spaces   ", "\t\t\n\n\t x", "a  b   c    d", "path/to/file.go:12:3\n//comment\n",
	}
	for range 3000 {
		texts = append(texts, randomText(rng, 1+rng.Intn(40)))
	}
	// ASCII alone, where pieces are split by matchASCIIWord, with the
	// bytes that end its words or hand them back to matchO200k.
	ascii := []rune("aAbBsStTzZ  \t\r\n'09.,-_/\x00\x7f\x1b")
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.Intn(30) {
			b.WriteRune(ascii[rng.Intn(len(ascii))])
		}
		texts = append(texts, b.String(), b.String()+"é", b.String()+"\u0301")
	}
	for _, s := range texts {
		want := regexpPieces(t, re, s)
		var got []string
		splitO200k(s, func(p string) { got = append(got, p) })
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("split of %q:\n got  %q\n want %q", s, got, want)
		}
		wantN, err := codec.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		// Twice: counting from the cache the second time.
		for range 2 {
			if n := tok.Count(s); n != wantN {
				t.Fatalf("count of %q: %d, the library's %d", s, n, wantN)
			}
		}
	}
}

// TestSplitO200kEachRune compares the splits of every rune of the Basic
// Multilingual Plane alone and between letters and digits.
func TestSplitO200kEachRune(t *testing.T) {
	re := regexp2.MustCompile(o200kPattern, regexp2.None)
	if testing.Short() {
		t.Skip("every rune of the BMP")
	}
	for r := rune(0); r <= 0xFFFF; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		for _, s := range []string{string(r), string(r) + "a", "a" + string(r), "1" + string(r) + "1"} {
			want := regexpPieces(t, re, s)
			var got []string
			splitO200k(s, func(p string) { got = append(got, p) })
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("%U in %q: split %q, the engine's %q", r, s, got, want)
			}
		}
	}
}

// TestCountInvalidUTF8 checks that text that is not valid UTF-8 is
// counted as the library counts it.
func TestCountInvalidUTF8(t *testing.T) {
	codec, _ := tokenizer.Get(tokenizer.O200kBase)
	tok, _ := Get("o200k_base")
	for _, s := range []string{"a\xffb", "\xc3", "ok \xe2\x82 done", "\xff\xfe\xfd"} {
		want, _ := codec.Count(s)
		if n := tok.Count(s); n != want {
			t.Fatalf("count of %q: %d, the library's %d", s, n, want)
		}
	}
}

func BenchmarkCountPieces(b *testing.B) {
	tok, _ := Get("o200k_base")
	codec, _ := tokenizer.Get(tokenizer.O200kBase)
	text := "[fact · 2026-01-02] The deploy of renfelkaka service at mizen failed: timeout after 30s, " +
		"retried 3 times; hundorul config /etc/app.yaml was rolled back by the on-call engineer."
	b.Run("pieces", func(b *testing.B) {
		for b.Loop() {
			tok.Count(text)
		}
	})
	b.Run("library", func(b *testing.B) {
		for b.Loop() {
			codec.Count(text)
		}
	})
}

// FuzzSplitO200k compares splitO200k with o200k_base's pattern run by the
// library's engine on any valid UTF-8 text.
func FuzzSplitO200k(f *testing.F) {
	for _, s := range []string{"", " valve", "HTTPServer's", "aBc", "ABC1", "x\u0301", " é", "\tword\r\n", "it's", "naïve"} {
		f.Add(s)
	}
	re := regexp2.MustCompile(o200kPattern, regexp2.None)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 200 {
			return
		}
		want := regexpPieces(t, re, s)
		var got []string
		splitO200k(s, func(p string) { got = append(got, p) })
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("split of %q:\n got  %q\n want %q", s, got, want)
		}
	})
}
