package thesaurus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// mtEntry is one headword of a MyThes file: its sense lines.
type mtEntry struct {
	word   string
	senses []string
}

// writeMythes writes th_<locale>.dat (and its .idx when idx is set) in
// encoding enc ("UTF-8", "KOI8-R", "ISO8859-1", …) and returns the .dat path.
func writeMythes(t testing.TB, dir, locale, enc string, idx bool, entries []mtEntry) string {
	t.Helper()
	encode := func(s string) string { return s }
	switch enc {
	case "KOI8-R":
		encode = func(s string) string { b, _ := charmap.KOI8R.NewEncoder().String(s); return b }
	case "KOI8-U":
		encode = func(s string) string { b, _ := charmap.KOI8U.NewEncoder().String(s); return b }
	case "ISO8859-1":
		encode = func(s string) string { b, _ := charmap.ISO8859_1.NewEncoder().String(s); return b }
	}
	var dat, ix strings.Builder
	dat.WriteString(enc + "\n")
	fmt.Fprintf(&ix, "%s\n%d\n", enc, len(entries))
	for _, e := range entries {
		fmt.Fprintf(&ix, "%s|%d\n", encode(e.word), dat.Len())
		fmt.Fprintf(&dat, "%s|%d\n", encode(e.word), len(e.senses))
		for _, s := range e.senses {
			dat.WriteString(encode(s) + "\n")
		}
	}
	path := filepath.Join(dir, "th_"+locale+"_v2.dat")
	write(t, path, dat.String())
	if idx {
		write(t, strings.TrimSuffix(path, ".dat")+".idx", ix.String())
	}
	return path
}

var sampleEnglish = []mtEntry{
	{"hobby", []string{
		"(noun)|avocation|by-line|pursuit|sideline|spare-time activity|pastime (generic term)|interest (generic term)",
		"(noun)|hobbyhorse|rocking horse|plaything (generic term)|toy (generic term)",
	}},
	{"good", []string{"(adj)|bad (antonym)|satisfactory (similar term)|virtue (related term)"}},
	{"bad", []string{"(antonym)|good"}},
	{"café", []string{"(noun)|coffeehouse|coffee shop|restaurant (generic term)"}},
}

var sampleRussian = []mtEntry{
	{"живопись", []string{"(связанный термин)|художество|искусство"}},
	{"увлечение", []string{"(синоним)|интерес|страсть|хобби", "(антоним)|равнодушие"}},
	{"ёлка", []string{"(синоним)|ель|ёлочка (уменьш.)"}},
	{"автомобиль", []string{"(синоним)|машина|авто (разг.)", "(сходный термин)|грузовик"}},
	{"купить", []string{"(синоним)|приобрести|закупить"}},
	{"приобрести", []string{"(синоним)|обзавестись|обрести"}},
}

var sampleUkrainian = []mtEntry{
	{"абетка", []string{"|(див.) азбука"}},
	{"азбука", []string{"|алфавіт|абетка|(розм.) граматка"}},
	{"захоплення", []string{"|(див.) пристрасть|інтерес"}},
	{"пристрасть", []string{"|жага|(перен.) вогонь"}},
}

func TestMythesExpand(t *testing.T) {
	dir := t.TempDir()
	writeMythes(t, dir, "en_US", "UTF-8", true, sampleEnglish)
	writeMythes(t, dir, "ru_RU", "KOI8-R", false, sampleRussian)
	writeMythes(t, dir, "uk_UA", "KOI8-U", true, sampleUkrainian)
	th, err := Load(Config{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	src := th.Sources()
	if len(src) != 3 || src[0].Name != "mythes:en_US" || src[1].Lang != "ru" || src[2].Lang != "uk" || src[0].Entries != 4 || src[1].Entries != 0 {
		t.Fatalf("sources = %+v", src)
	}

	en := terms(th.Expand("hobby"))
	if en["avoc"].Relation != Synonym || en["pastim"].Relation != Broader || en["toy"].Relation != Broader {
		t.Errorf("Expand(hobby) = %v", en)
	}
	if en["activ"].Word != "activity" || en["activ"].Weight >= en["avoc"].Weight {
		t.Errorf("phrase part: %+v", en["activ"])
	}
	if en["pastim"].Weight <= en["toy"].Weight {
		t.Error("second sense weighs as much as the first")
	}
	g := terms(th.Expand("good"))
	if _, ok := g["bad"]; ok || g["satisfactory"].Relation != Similar || g["virtu"].Relation != Associated {
		t.Errorf("Expand(good) = %v", g)
	}
	if c := terms(th.Expand("Cafe")); c["coffeehous"].Relation != Synonym {
		t.Errorf("folded headword: Expand(Cafe) = %v", c)
	}
	if th.Sources()[1].Loaded {
		t.Error("Russian thesaurus loaded by an English lookup")
	}

	// KOI8-R without an .idx; inflected query; notes removed; antonym lines dropped.
	ru := terms(th.Expand("Увлечением"))
	for _, w := range []string{"интерес", "страс", "хобб"} {
		if ru[w].Relation != Synonym || ru[w].Source != "mythes:ru_RU" {
			t.Errorf("Expand(Увлечением)[%s] = %+v", w, ru[w])
		}
	}
	if _, ok := ru["равнодуш"]; ok {
		t.Error("antonym line used")
	}
	if r := terms(th.Expand("живописью"))["искусств"]; r.Relation != Associated {
		t.Errorf("related term: %+v", r)
	}
	if r := terms(th.Expand("елки"))["ель"]; r.Word != "ель" {
		t.Errorf("ё folded: %+v", terms(th.Expand("елки")))
	}
	// A word listed but without an entry of its own («машина») is looked
	// up where it is listed: the headword and the sense's other words, a
	// sense step lower; a sense that does not list it gives nothing.
	if m := terms(th.Expand("машиной")); m["автомобил"].Relation != Synonym || m["авт"].Weight == 0 || m["автомобил"].Weight >= ru["интерес"].Weight {
		t.Errorf("Expand(машиной) = %v", m)
	} else if _, ok := m["грузовик"]; ok {
		t.Errorf("Expand(машиной) took a sense that does not list it: %v", m)
	}
	// A word with an entry of its own is also looked up where it is
	// listed, a step further still («приобрести» does not list «купить»,
	// «купить» lists «приобрести»); its past tense finds it too.
	for _, w := range []string{"приобрести", "приобрёл", "приобрела"} {
		p := terms(th.Expand(w))
		if p["куп"].Weight == 0 || p["куп"].Weight >= p[Key("обзавестись")].Weight {
			t.Errorf("Expand(%s) = %v", w, p)
		}
	}
	if s := th.Sources()[1]; !s.Loaded || s.Entries != 6 {
		t.Errorf("after use: %+v", s)
	}

	// KOI8-U; "(див.) X" is a synonym whose own synonyms follow.
	uk := terms(th.Expand("абетка"))
	if uk["азбук"].Relation != Synonym || uk["алфавіт"].Relation != Synonym || uk["алфавіт"].Weight >= uk["азбук"].Weight {
		t.Errorf("Expand(абетка) = %v", uk)
	}
	if z := terms(th.Expand("захоплення")); z["жаг"].Weight == 0 || z["інтерес"].Weight == 0 {
		t.Errorf("Expand(захоплення) = %v", z)
	}
}

func TestMythesLegacyEncoding(t *testing.T) {
	dir := t.TempDir()
	dat := writeMythes(t, dir, "de_DE", "ISO8859-1", true, []mtEntry{{"größe", []string{"(Substantiv)|Ausmaß|Umfang"}}})
	th, err := Load(Config{Paths: []string{dat}})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	got := terms(th.Expand("Grösse"))
	if got["ausmass"].Word != "Ausmaß" || got["umfang"].Weight == 0 {
		t.Errorf("Expand(Grösse) = %v", got)
	}
}

func TestParseSense(t *testing.T) {
	for line, want := range map[string][]mtItem{
		"(noun)|picture|graphic art (generic term)":         {{"picture", Synonym, false}, {"graphic art", Broader, false}},
		"(adj)|a priori (antonym)|deductive (similar term)": {{"deductive", Similar, false}},
		"(антоним)|равнодушие":                              nil,
		"(сходный термин)|грузовик":                         {{"грузовик", Similar, false}},
		"|(див.) азбука|(дещо зневажливо) сякий-такий":      {{"азбука", Synonym, true}, {"сякий-такий", Synonym, false}},
		"|(пор.) лад|unclosed (note":                        {{"лад", Associated, false}, {"unclosed", Synonym, false}},
		"":                                                  nil,
		"no bars at all":                                    nil,
	} {
		if got := parseSense(line); !slices.Equal(got, want) {
			t.Errorf("parseSense(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestParseMythesErrors(t *testing.T) {
	for name, dat := range map[string]string{
		"no encoding":       "\nword|1\n(noun)|syn\n",
		"unknown encoding":  "EBCDIC-FANCY\nword|1\n(noun)|syn\n",
		"no count":          "UTF-8\nword\n(noun)|syn\n",
		"bad count":         "UTF-8\nword|x\n(noun)|syn\n",
		"negative count":    "UTF-8\nword|-1\n",
		"huge count":        "UTF-8\nword|99999999\n",
		"truncated entry":   "UTF-8\nword|3\n(noun)|syn\n",
		"no newline at all": "UTF-8",
	} {
		err := parseDat([]byte(dat), func(int, []byte, [][]byte) {})
		if !errors.Is(err, errMTFormat) {
			t.Errorf("%s: err %v, want a format error", name, err)
		}
	}
	n := 0
	if err := parseDat([]byte("\xef\xbb\xbfUTF-8\r\nа|1\r\n(x)|b\r\n\r\nc|0\n"), func(_ int, w []byte, s [][]byte) { n++ }); err != nil || n != 2 {
		t.Errorf("BOM, CRLF, blank line, empty entry: %d entries, %v", n, err)
	}
	for name, idx := range map[string]string{
		"no header":  "UTF-8",
		"bad count":  "UTF-8\nmany\n",
		"bad offset": "UTF-8\n1\nword|x\n",
		"no offset":  "UTF-8\n1\nword\n",
	} {
		if err := parseIdx([]byte(idx), func([]byte, int) {}); !errors.Is(err, errMTFormat) {
			t.Errorf("idx %s: err %v", name, err)
		}
	}

	// Load reports a broken file by name and keeps the good ones.
	dir := t.TempDir()
	writeMythes(t, dir, "en_US", "UTF-8", true, sampleEnglish)
	write(t, filepath.Join(dir, "th_xx_XX.dat"), "EBCDIC\nword|1\n")
	th, err := Load(Config{Paths: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "th_xx_XX.dat") || !strings.Contains(err.Error(), "unsupported encoding") {
		t.Errorf("err = %v", err)
	}
	if len(th.Sources()) != 1 {
		t.Errorf("good resource dropped: %+v", th.Sources())
	}
	th.Close()

	// A truncated .dat without .idx fails on first use: Warm says why,
	// Expand returns nothing.
	dir = t.TempDir()
	write(t, filepath.Join(dir, "th_ru_RU.dat"), "UTF-8\nслово|2\n(синоним)|речь\n")
	th, err = Load(Config{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	if got := th.Expand("слово"); got != nil {
		t.Errorf("Expand on a broken file = %v", got)
	}
	if err := th.Warm(); err == nil || !strings.Contains(err.Error(), "ends early") {
		t.Errorf("Warm: %v", err)
	}

	// A broken .idx falls back to scanning the .dat.
	dir = t.TempDir()
	dat := writeMythes(t, dir, "en_US", "UTF-8", true, sampleEnglish)
	write(t, strings.TrimSuffix(dat, ".dat")+".idx", "UTF-8\n4\nhobby|notanumber\n")
	th2, err := Load(Config{Paths: []string{dat}})
	if err != nil {
		t.Fatal(err)
	}
	defer th2.Close()
	if terms(th2.Expand("hobby"))["avoc"].Weight == 0 {
		t.Error("no fallback to the .dat")
	}
	// Offsets past the end or mid-line give nothing, not a panic.
	write(t, strings.TrimSuffix(dat, ".dat")+".idx", "UTF-8\n3\nhobby|3\ngood|999999\ncafé|1\n")
	th3, _ := Load(Config{Paths: []string{dat}})
	defer th3.Close()
	for _, w := range []string{"hobby", "good", "café"} {
		th3.Expand(w)
	}
}

func FuzzParseMythes(f *testing.F) {
	f.Add([]byte("UTF-8\nhobby|2\n(noun)|avocation|pastime (generic term)\n(noun)|hobbyhorse|toy (generic term)\n"))
	f.Add([]byte("\xef\xbb\xbfUTF-8\nживопись|1\n(связанный термин)|художество|искусство\n"))
	f.Add([]byte("KOI8-R\n\xd6\xc9\xd7\xcf\xd0\xc9\xd3\xd8|1\n(\xd3\xc9\xce\xcf\xce\xc9\xcd)|\xc9\xd3\xcb\xd5\xd3\xd3\xd4\xd7\xcf\n"))
	f.Add([]byte("KOI8-U\n|(див.) азбука\n"))
	f.Add([]byte("UTF-8\n2\nhobby|6\ngood|40\n"))
	f.Add([]byte("ISO8859-1\nw|1\n|a (b|c) (d\n"))
	f.Add([]byte("UTF-8\nw|1000\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := parseDat(b, func(off int, w []byte, senses [][]byte) {
			if off < 0 || off >= len(b) {
				t.Fatalf("offset %d outside %d bytes", off, len(b))
			}
			for _, s := range senses {
				for _, it := range parseSense(string(s)) {
					if it.text == "" || it.rel == 0 {
						t.Fatalf("empty item from %q", s)
					}
				}
			}
		})
		_ = parseIdx(b, func(w []byte, off int) {
			if len(w) == 0 || off < 0 {
				t.Fatalf("idx entry %q at %d", w, off)
			}
		})
		parseSense(string(b))
		if err != nil {
			return
		}
		// A well-formed file goes the whole way: written, loaded, expanded.
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "th_ru_RU.dat"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		th, err := Load(Config{Paths: []string{dir}})
		if err != nil {
			return
		}
		defer th.Close()
		for _, w := range []string{"hobby", "живопись", "w"} {
			for _, r := range th.Expand(w) {
				if r.Weight <= 0 || r.Weight >= 1 || r.Term == "" {
					t.Fatalf("bad expansion %+v", r)
				}
			}
		}
	})
}

// TestParseEncodingNames checks the spellings thesauri use for their
// character sets, and that the East Asian multi-byte sets, which no MyThes
// thesaurus uses, are refused.
func TestParseEncodingNames(t *testing.T) {
	want := map[string]encoding.Encoding{
		"UTF-8": nil, "utf8": nil,
		"ISO8859-1": charmap.Windows1252, "ISO-8859-1": charmap.Windows1252, "latin1": charmap.Windows1252,
		"ISO8859-2": charmap.ISO8859_2, "ISO8859-7": charmap.ISO8859_7, "ISO8859-15": charmap.ISO8859_15,
		"iso-8859-5": charmap.ISO8859_5, "ISO8859-9": charmap.Windows1254,
		"KOI8-R": charmap.KOI8R, "koi8-u": charmap.KOI8U,
		"CP1251": charmap.Windows1251, "windows-1251": charmap.Windows1251, "Windows-1250": charmap.Windows1250,
		"IBM866": charmap.CodePage866, "cp866": charmap.CodePage866, "US-ASCII": charmap.Windows1252,
		"\xef\xbb\xbfKOI8-R\r": charmap.KOI8R,
	}
	for name, enc := range want {
		got, err := parseEncoding([]byte(name))
		if err != nil || got != enc {
			t.Errorf("parseEncoding(%q) = %v, %v; want %v", name, got, err, enc)
		}
	}
	for _, name := range []string{"EUC-JP", "Shift_JIS", "GBK", "Big5", "EBCDIC-FANCY", "ISO8859-99"} {
		if enc, err := parseEncoding([]byte(name)); err == nil || !strings.Contains(err.Error(), "unsupported encoding") {
			t.Errorf("parseEncoding(%q) = %v, %v; want unsupported", name, enc, err)
		}
	}
}
