package thesaurus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wnSyn is a synset to write in WordNet database format.
type wnSyn struct {
	id    string
	pos   byte // n, v, a, s, r
	words []string
	ptrs  [][2]string // pointer symbol, target id
}

const wnLicence = "  1 This software and database is being provided to you, the LICENSEE, by  \n" +
	"  2 Princeton University under the following license.  \n"

// writeWordNet writes index.* and data.* files for syns into a new
// directory, with offsets computed as wndb(5) defines them.
func writeWordNet(t testing.TB, syns []wnSyn) string {
	t.Helper()
	dir := t.TempDir()
	file := func(pos byte) string { return wnPOS[wnPOSIndex(pos)].name }
	ptrPOS := map[string]byte{}
	for _, s := range syns {
		ptrPOS[s.id] = s.pos
	}
	// Every field has a fixed width, so lengths are known before offsets.
	line := func(s wnSyn, offs map[string]int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%08d 05 %c %02x ", offs[s.id], s.pos, len(s.words))
		for _, w := range s.words {
			fmt.Fprintf(&b, "%s 0 ", w)
		}
		fmt.Fprintf(&b, "%03d ", len(s.ptrs))
		for _, p := range s.ptrs {
			fmt.Fprintf(&b, "%s %08d %c 0000 ", p[0], offs[p[1]], ptrPOS[p[1]])
		}
		if s.pos == 'v' {
			b.WriteString("01 + 02 00 ")
		}
		b.WriteString("| a gloss; \"an example\"  \n")
		return b.String()
	}
	offs := map[string]int{}
	size := map[string]int{}
	for _, s := range syns {
		f := file(s.pos)
		if size[f] == 0 {
			size[f] = len(wnLicence)
		}
		offs[s.id] = size[f]
		size[f] += len(line(s, offs))
	}
	data := map[string]*strings.Builder{}
	type lemmaKey struct {
		lemma string
		pos   byte
	}
	senses := map[lemmaKey][]int{}
	for _, s := range syns {
		f := file(s.pos)
		if data[f] == nil {
			data[f] = &strings.Builder{}
			data[f].WriteString(wnLicence)
		}
		data[f].WriteString(line(s, offs))
		ipos := s.pos
		if ipos == 's' {
			ipos = 'a'
		}
		for _, w := range s.words {
			w = strings.ToLower(w)
			if i := strings.IndexByte(w, '('); i > 0 {
				w = w[:i]
			}
			k := lemmaKey{w, ipos}
			senses[k] = append(senses[k], offs[s.id])
		}
	}
	index := map[string][]string{}
	for k, o := range senses {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %c %d 1 @ %d 0", k.lemma, k.pos, len(o), len(o))
		for _, off := range o {
			fmt.Fprintf(&b, " %08d", off)
		}
		b.WriteString("  \n")
		f := file(k.pos)
		index[f] = append(index[f], b.String())
	}
	for f, b := range data {
		lines := index[f]
		slices.Sort(lines)
		write(t, filepath.Join(dir, "index."+f), wnLicence+strings.Join(lines, ""))
		write(t, filepath.Join(dir, "data."+f), b.String())
	}
	return dir
}

func write(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sampleWordNet is a small database in the shape of the real one.
var sampleWordNet = []wnSyn{
	{id: "art", pos: 'n', words: []string{"art", "fine_art"}, ptrs: [][2]string{{"@", "creation"}, {"~", "painting"}, {"~", "sculpture"}}},
	{id: "creation", pos: 'n', words: []string{"creation"}, ptrs: [][2]string{{"~", "art"}}},
	{id: "painting", pos: 'n', words: []string{"painting", "picture"}, ptrs: [][2]string{{"@", "art"}, {"+", "paintv"}}},
	{id: "sculpture", pos: 'n', words: []string{"sculpture", "statue"}, ptrs: [][2]string{{"@", "art"}}},
	{id: "hobby", pos: 'n', words: []string{"hobby", "avocation", "spare-time_activity"}, ptrs: [][2]string{{"@", "pastime"}}},
	{id: "pastime", pos: 'n', words: []string{"pastime", "interest", "pursuit"}, ptrs: [][2]string{{"~", "hobby"}}},
	{id: "hobbyhorse", pos: 'n', words: []string{"hobby", "hobbyhorse", "rocking_horse"}},
	{id: "paintv", pos: 'v', words: []string{"paint"}, ptrs: [][2]string{{"@", "create"}}},
	{id: "create", pos: 'v', words: []string{"make", "create"}},
	{id: "good", pos: 'a', words: []string{"good"}, ptrs: [][2]string{{"!", "bad"}, {"&", "fine"}}},
	{id: "fine", pos: 's', words: []string{"fine(a)", "satisfactory"}, ptrs: [][2]string{{"&", "good"}}},
	{id: "bad", pos: 'a', words: []string{"bad"}, ptrs: [][2]string{{"!", "good"}}},
	{id: "quickly", pos: 'r', words: []string{"quickly", "rapidly"}},
}

func terms(rs []Related) map[string]Related {
	m := map[string]Related{}
	for _, r := range rs {
		m[r.Term] = r
	}
	return m
}

func TestWordNetExpand(t *testing.T) {
	dir := writeWordNet(t, sampleWordNet)
	th, err := Load(Config{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	src := th.Sources()
	if len(src) != 1 || src[0].Name != "wordnet" || src[0].Lang != "en" || src[0].Loaded {
		t.Fatalf("sources before use = %+v, want one unloaded wordnet", src)
	}
	if src[0].Entries == 0 {
		t.Errorf("entries not counted: %+v", src[0])
	}

	got := terms(th.Expand("Hobbies"))
	for term, rel := range map[string]Relation{"avoc": Synonym, "pastim": Broader, "interest": Broader, "hobbyhors": Synonym, "activ": Synonym} {
		if r, ok := got[term]; !ok || r.Relation != rel {
			t.Errorf("Expand(Hobbies)[%s] = %+v, want relation %v", term, r, rel)
		}
	}
	if !th.Sources()[0].Loaded {
		t.Error("not loaded after Expand")
	}
	if got["avoc"].Weight <= got["pastim"].Weight || got["pastim"].Weight <= got["hobbyhors"].Weight*0.5 {
		t.Errorf("weights out of order: synonym %v, broader %v, second sense %v", got["avoc"].Weight, got["pastim"].Weight, got["hobbyhors"].Weight)
	}
	if got["activ"].Weight >= got["avoc"].Weight {
		t.Errorf("a phrase part (%v) weighs as much as a synonym (%v)", got["activ"].Weight, got["avoc"].Weight)
	}

	// Narrower terms reach the specific word a memory uses.
	art := terms(th.Expand("art"))
	if r := art["paint"]; r.Relation != Narrower || r.Word != "painting" || r.Source != "wordnet" {
		t.Errorf("Expand(art)[paint] = %+v, want narrower painting from wordnet", r)
	}
	if _, ok := art["art"]; ok {
		t.Error("Expand returned the word itself")
	}
	// Inflections and their stem siblings: "paintings" finds "painting" and, lower, "paint".
	p := terms(th.Expand("paintings"))
	if p["pictur"].Relation != Synonym || p["art"].Relation != Broader {
		t.Errorf("Expand(paintings) = %v", p)
	}
	if r, ok := p["creat"]; !ok || r.Weight >= p["art"].Weight {
		t.Errorf("sibling headword paint: creat = %+v, want below art %v", r, p["art"].Weight)
	}
	// Adjectives: similar-to, markers stripped, antonyms never.
	g := terms(th.Expand("good"))
	if g["fin"].Relation != Similar || g["fin"].Word != "fine" {
		t.Errorf("Expand(good)[fin] = %+v", g["fin"])
	}
	if _, ok := g["bad"]; ok {
		t.Error("antonym returned")
	}
	for _, rs := range [][]Related{th.Expand("hobby"), th.Expand("art"), th.Expand("good")} {
		for i, r := range rs {
			if r.Weight <= 0 || r.Weight >= 1 || i > 0 && r.Weight > rs[i-1].Weight {
				t.Errorf("weight %v at %d: want in (0,1), descending", r.Weight, i)
			}
		}
	}
	if th.Expand("unknownword") != nil || th.Expand("") != nil || th.Expand("живопись") != nil {
		t.Error("expansion for a word not in the thesaurus")
	}
}

func TestWordNetCaps(t *testing.T) {
	syns := []wnSyn{{id: "thing", pos: 'n', words: []string{"thing"}}}
	for i := range 40 {
		id := fmt.Sprintf("kind%c%c", 'a'+i/26, 'a'+i%26)
		syns = append(syns, wnSyn{id: id, pos: 'n', words: []string{id}, ptrs: [][2]string{{"@", "thing"}}})
		syns[0].ptrs = append(syns[0].ptrs, [2]string{"~", id})
	}
	for i := range 6 { // six more senses of "thing"
		syns = append(syns, wnSyn{id: fmt.Sprint("s", i), pos: 'n', words: []string{"thing", fmt.Sprintf("sense%c", 'a'+i)}})
	}
	dir := writeWordNet(t, syns)
	th, err := Load(Config{Paths: []string{dir}, MaxPerWord: 100, MaxSenses: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	got := th.Expand("thing")
	n := 0
	for _, r := range got {
		if r.Relation == Narrower {
			n++
		}
		if r.Term == "sensec" {
			t.Error("third sense expanded with MaxSenses 2")
		}
	}
	if n != maxNarrower {
		t.Errorf("%d narrower terms, want %d", n, maxNarrower)
	}
	th2, _ := Load(Config{Paths: []string{dir}, MaxPerWord: 5})
	defer th2.Close()
	if got := th2.Expand("thing"); len(got) != 5 {
		t.Errorf("MaxPerWord 5: got %d", len(got))
	}
}

func TestParseWordNetLines(t *testing.T) {
	e, err := parseIndexLine([]byte("art n 4 6 @ ~ #p + ; - 4 4 02743547 00933420 05638987 06998748  "))
	if err != nil || e.lemma != "art" || e.pos != 'n' || !slices.Equal(e.synsets, []uint32{2743547, 933420, 5638987, 6998748}) {
		t.Errorf("index line: %+v, %v", e, err)
	}
	s, err := parseDataLine([]byte("00933420 04 n 03 art 0 artistic_creation 0 artistic_production 0 002 @ 00908492 n 0000 + 09812338 n 0101 | the creation of beautiful or significant things  "))
	if err != nil || s.off != 933420 || s.pos != 'n' || !slices.Equal(s.words, []string{"art", "artistic creation", "artistic production"}) ||
		len(s.ptrs) != 2 || s.ptrs[0] != (wnPointer{"@", 908492, 'n'}) {
		t.Errorf("data line: %+v, %v", s, err)
	}
	// w_cnt and lex_id are hexadecimal; verbs carry frames; adjectives markers.
	s, err = parseDataLine([]byte("01234567 00 s 0b a 0 b 0 c 0 d 0 e 0 f 0 g 0 h 0 i 0 j 0 k(p) a 000 | gloss"))
	if err != nil || len(s.words) != 11 || s.words[10] != "k" {
		t.Errorf("hex w_cnt: %+v, %v", s, err)
	}
	if _, err := parseDataLine([]byte("00001740 29 v 01 breathe 0 001 @ 00002325 v 0000 02 + 02 00 + 08 00 | draw air")); err != nil {
		t.Errorf("verb frames: %v", err)
	}
	for _, bad := range []string{
		"", "  1 This software and database", "art x 1 0 1 0 00000001", "art n 2 0 2 0 00000001",
		"art n one 0 1 0 00000001", "art n 1 9 1 0 00000001", "art n 1 0 1 0 notanoffset",
	} {
		if _, err := parseIndexLine([]byte(bad)); !errors.Is(err, errWNFormat) {
			t.Errorf("index line %q: err %v", bad, err)
		}
	}
	for _, bad := range []string{
		"", "00000001 04 n 00 000 | no words", "00000001 04 n 02 art 0 000 | short",
		"00000001 04 q 01 art 0 000 |", "00000001 04 n zz art 0 000 |", "x 04 n 01 art 0 000 |",
		"00000001 04 n 01 art 0 001 @ 00000002 |", "00000001 04 n 01 art 0 001 @ 00000002 k 0000 |",
		"00000001 04 n 01 art 0 -1 |", "00000001 04 n 01 art z 000 |",
	} {
		if _, err := parseDataLine([]byte(bad)); !errors.Is(err, errWNFormat) {
			t.Errorf("data line %q: err %v", bad, err)
		}
	}
}

func FuzzParseWordNet(f *testing.F) {
	for _, s := range []string{
		"art n 4 6 @ ~ #p + ; - 4 4 02743547 00933420 05638987 06998748  ",
		"00933420 04 n 03 art 0 artistic_creation 0 artistic_production 0 002 @ 00908492 n 0000 + 09812338 n 0101 | gloss",
		"00001740 29 v 01 breathe 0 001 @ 00002325 v 0000 02 + 02 00 + 08 00 | draw air",
		"01234567 00 s 0b a 0 b 0 c 0 d 0 e 0 f 0 g 0 h 0 i 0 j 0 k(p) a 000 | gloss",
		"art n 99999999999 0 1 0", "  1 licence", "a n 1 -5 x",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if e, err := parseIndexLine(line); err == nil && (e.lemma == "" || len(e.synsets) == 0) {
			t.Errorf("index entry without lemma or senses: %+v", e)
		}
		if s, err := parseDataLine(line); err == nil && len(s.words) == 0 {
			t.Errorf("synset without words: %+v", s)
		}
	})
}

func TestWordNetBadFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "index.noun"), wnLicence+"this is not an index\n")
	write(t, filepath.Join(dir, "data.noun"), wnLicence)
	if _, err := Load(Config{Paths: []string{dir}}); err == nil || !strings.Contains(err.Error(), "index.noun") {
		t.Errorf("bad index.noun: err %v", err)
	}
	// Offsets that point nowhere give no expansions, not a panic.
	dir = writeWordNet(t, sampleWordNet)
	b, _ := os.ReadFile(filepath.Join(dir, "data.noun"))
	write(t, filepath.Join(dir, "data.noun"), string(b[:len(b)/2]))
	th, err := Load(Config{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	for _, w := range []string{"art", "hobby", "sculpture", "pastime"} {
		th.Expand(w)
	}
}
