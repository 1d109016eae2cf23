package tokenize

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

var update = flag.Bool("update", false, "write o200k_ranks.bin from the tokenizer library's vocabulary")

// libraryRanksFile is the ranks file of the library's o200k_base
// vocabulary: every token the library decodes, with its id as rank.
func libraryRanksFile(t testing.TB) []byte {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	type tok struct {
		s    string
		rank uint32
	}
	var toks []tok
	for id := range uint(201000) {
		s, err := c.Decode([]uint{id})
		if err != nil {
			continue
		}
		toks = append(toks, tok{s, uint32(id)})
	}
	slices.SortFunc(toks, func(a, b tok) int { return strings.Compare(a.s, b.s) })
	le := binary.LittleEndian
	b := []byte(ranksMagic)
	b = le.AppendUint32(b, uint32(len(toks)))
	off := 0
	for _, x := range toks {
		b = le.AppendUint32(b, uint32(off))
		off += len(x.s)
	}
	b = le.AppendUint32(b, uint32(off))
	for _, x := range toks {
		b = le.AppendUint32(b, x.rank)
	}
	// The prefix index: for each two bytes, the first token not below them.
	i := 0
	for p := range prefixSlots - 1 {
		key := string([]byte{byte(p >> 8), byte(p)})
		for i < len(toks) && toks[i].s < key {
			i++
		}
		b = le.AppendUint32(b, uint32(i))
	}
	b = le.AppendUint32(b, uint32(len(toks)))
	for _, x := range toks {
		b = append(b, x.s...)
	}
	return b
}

// TestRanksFileMatchesLibrary: the embedded table is the library's
// vocabulary, token for token and rank for rank (-update writes it).
func TestRanksFileMatchesLibrary(t *testing.T) {
	want := libraryRanksFile(t)
	if *update {
		if err := os.WriteFile("o200k_ranks.bin", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal([]byte(o200kRanksFile), want) {
		t.Fatalf("o200k_ranks.bin (%d bytes) is not the library's vocabulary (%d bytes): go test ./tokenize -run RanksFile -update", len(o200kRanksFile), len(want))
	}
	r, ok := parseRanks(o200kRanksFile)
	if !ok {
		t.Fatal("o200k_ranks.bin does not parse")
	}
	c, _ := tokenizer.Get(tokenizer.O200kBase)
	for i := range r.n {
		s := r.token(i)
		// A valid UTF-8 token that the library encodes whole encodes as
		// its rank (the others are byte fragments or split apart).
		if ids, _, _ := c.Encode(s); utf8.ValidString(s) && len(ids) == 1 && uint(r.rank(s)) != ids[0] {
			t.Fatalf("rank(%q) = %d, the library encodes it as %d", s, r.rank(s), ids[0])
		}
		if i > 0 && r.token(i-1) >= s {
			t.Fatalf("tokens %d and %d out of order", i-1, i)
		}
		// Every token is found, through the prefix index, at its own rank.
		if got, want := r.rank(s), uint32(r.u32(r.ranks, i)); got != want {
			t.Fatalf("rank(%q) = %d, the table holds %d", s, got, want)
		}
	}
	if got := r.rank("not a token of any vocabulary ✓✓✓"); got != math.MaxUint32 {
		t.Errorf("rank of a non-token = %d", got)
	}
}

// TestParseRanksRejectsDamage: a damaged table is refused (the library
// then counts), never read out of bounds.
func TestParseRanksRejectsDamage(t *testing.T) {
	good := o200kRanksFile
	for _, b := range []string{"", ranksMagic, "XXBPE002" + good[8:], "MNBPE001" + good[8:], good[:len(good)-1], good[:100],
		good[:8] + "\xff\xff\xff\x7f" + good[12:]} {
		if _, ok := parseRanks(b); ok {
			t.Errorf("damaged table of %d bytes accepted", len(b))
		}
	}
	// Offsets out of order.
	bad := []byte(good)
	binary.LittleEndian.PutUint32(bad[12+4*5:], 1<<30)
	if _, ok := parseRanks(string(bad)); ok {
		t.Error("offsets out of order accepted")
	}
}

// TestRanksPrefixIndexDamaged: an entry of the prefix index out of bounds
// or out of order is not followed: the lookup searches the whole table and
// still finds every token of that prefix.
func TestRanksPrefixIndexDamaged(t *testing.T) {
	good, _ := parseRanks(o200kRanksFile)
	p := int('t')<<8 | int('h') // "th…": many tokens
	for name, put := range map[string][2]uint32{
		"beyond the table": {uint32(good.n + 5), uint32(good.n + 9)},
		"out of order":     {uint32(good.u32(good.prefix, p+1)), uint32(good.u32(good.prefix, p))},
	} {
		bad := []byte(o200kRanksFile)
		at := 12 + 8*good.n + 4 + 4*p
		binary.LittleEndian.PutUint32(bad[at:], put[0])
		binary.LittleEndian.PutUint32(bad[at+4:], put[1])
		r, ok := parseRanks(string(bad))
		if !ok {
			t.Fatalf("%s: the table no longer parses", name)
		}
		found := 0
		for i := good.u32(good.prefix, p); i < good.u32(good.prefix, p+1); i++ {
			s := good.token(i)
			if got, want := r.rank(s), good.rank(s); got != want {
				t.Fatalf("%s: rank(%q) = %d, want %d", name, s, got, want)
			}
			found++
		}
		if found < 10 {
			t.Fatalf("only %d tokens begin with \"th\"", found)
		}
	}
}

// bpeCorpus is text of every kind the split makes pieces of.
func bpeCorpus() []string {
	out := []string{
		"The quick brown fox jumps over the lazy dog.",
		"Правила деплоя: не деплоить в пятницу. Правила розгортання: не розгортати в п'ятницю.",
		"func main() {\n\tfmt.Println(\"hi\")\n}\n",
		"  indented\n\n\n  lines\r\n\ttabs\t\t and   spaces   ",
		"12345678901234567890 3.14159 1,000,000 0x7fffffff",
		"don't won't I'm they're we've you'll he'd DON'T",
		"日本語のテキストと中文文本和한국어 텍스트",
		"emoji 😀🎉👍🏽 and ümlauts, façade, naïve, Ελληνικά, עברית, العربية",
		"https://example.com/path?q=1&r=2#frag /usr/local/bin/mnemo",
		"supercalifragilisticexpialidocious antidisestablishmentarianism",
		strings.Repeat("a", 95), strings.Repeat("ab", 47), strings.Repeat("-", 90),
		strings.Repeat("Ж", 40), strings.Repeat("🙂", 20),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,;:-_'\"()[]{}\n\tжщыїієґ日本語😀éàü")
	for range 3000 {
		n := 1 + rng.IntN(60)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestBPEMatchesLibrary: the table's counts are the library's, piece by
// piece and for whole texts.
func TestBPEMatchesLibrary(t *testing.T) {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := parseRanks(o200kRanksFile)
	if !ok {
		t.Fatal("o200k_ranks.bin does not parse")
	}
	tok, err := Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	if tok.bpe == nil {
		t.Fatal("o200k_base does not count with the embedded table")
	}
	for _, text := range bpeCorpus() {
		want, _ := c.Count(text)
		if got := tok.Count(text); got != want {
			t.Errorf("Count(%q) = %d, the library %d", text, got, want)
		}
		splitO200k(text, func(p string) {
			if len(p) >= bpeMax {
				return
			}
			want, _ := c.Count(p)
			if got := r.count(p); got != want {
				t.Errorf("piece %q: %d tokens, the library %d", p, got, want)
			}
		})
	}
}

// FuzzBPEMatchesLibrary: for any valid UTF-8 text, the count is the
// library's.
func FuzzBPEMatchesLibrary(f *testing.F) {
	for _, s := range bpeCorpus()[:20] {
		f.Add(s)
	}
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	tok, err := Get("o200k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		want, _ := c.Count(s)
		if got := tok.Count(s); got != want {
			t.Errorf("Count(%q) = %d, the library %d", s, got, want)
		}
	})
}

// BenchmarkBPEPiece counts pieces no cache holds, with the embedded table
// and with the library:
//
//	go test ./tokenize -run '^$' -bench BPEPiece
func BenchmarkBPEPiece(b *testing.B) {
	var pieces []string
	for _, text := range bpeCorpus() {
		splitO200k(text, func(p string) {
			if len(p) < bpeMax {
				pieces = append(pieces, p)
			}
		})
	}
	r, _ := parseRanks(o200kRanksFile)
	c, _ := tokenizer.Get(tokenizer.O200kBase)
	b.Run("table", func(b *testing.B) {
		i := 0
		for b.Loop() {
			r.count(pieces[i%len(pieces)])
			i++
		}
	})
	b.Run("library", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c.Count(pieces[i%len(pieces)])
			i++
		}
	})
}
