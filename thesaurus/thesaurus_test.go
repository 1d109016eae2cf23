package thesaurus

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/words"
)

func TestParseLocation(t *testing.T) {
	sep := string(os.PathListSeparator)
	for in, want := range map[string]Config{
		"":                    {},
		"  ":                  {},
		"off":                 {Off: true},
		"OFF":                 {Off: true},
		"/a/wordnet":          {Paths: []string{"/a/wordnet"}},
		"/a" + sep + "/b":     {Paths: []string{"/a", "/b"}},
		"/a, /b/th_en_US.dat": {Paths: []string{"/a", "/b/th_en_US.dat"}},
	} {
		if got := ParseLocation(in); got.Off != want.Off || !slices.Equal(got.Paths, want.Paths) {
			t.Errorf("ParseLocation(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestLoadLocations(t *testing.T) {
	empty := t.TempDir()
	if _, err := Load(Config{Paths: []string{filepath.Join(empty, "missing")}}); err == nil {
		t.Error("a listed location that does not exist: no error")
	}
	if _, err := Load(Config{Paths: []string{empty}}); err == nil || !strings.Contains(err.Error(), "no WordNet database or MyThes") {
		t.Errorf("a listed directory without thesauri: %v", err)
	}
	write(t, filepath.Join(empty, "notes.txt"), "x")
	if _, err := Load(Config{Paths: []string{filepath.Join(empty, "notes.txt")}}); err == nil {
		t.Error("a listed file that is no thesaurus: no error")
	}

	saved := DefaultPaths
	defer func() { DefaultPaths = saved }()
	DefaultPaths = []string{filepath.Join(empty, "wordnet"), filepath.Join(empty, "mythes")}
	th, err := Load(Config{})
	if err != nil || len(th.Sources()) != 0 || th.Expand("hobby") != nil {
		t.Errorf("missing defaults: %v, %+v", err, th.Sources())
	}

	// Both kinds in one directory, one resource per path however named.
	dir := writeWordNet(t, sampleWordNet)
	writeMythes(t, dir, "en_US", "UTF-8", true, sampleEnglish)
	DefaultPaths = []string{dir}
	th, err = Load(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	if src := th.Sources(); len(src) != 2 || src[0].Name != "wordnet" || src[1].Name != "mythes:en_US" {
		t.Errorf("sources = %+v", src)
	}
	th2, err := Load(Config{Paths: []string{dir, filepath.Join(dir, "index.noun"), filepath.Join(dir, "th_en_US_v2.idx")}})
	if err != nil || len(th2.Sources()) != 2 {
		t.Errorf("duplicates: %v, %+v", err, th2.Sources())
	}
	th2.Close()
	// Both resources contribute, one entry per term, best weight kept.
	got := th.Expand("hobby")
	seen := map[string]bool{}
	sources := map[string]bool{}
	for _, r := range got {
		if seen[r.Term] {
			t.Errorf("term %q twice", r.Term)
		}
		seen[r.Term] = true
		sources[r.Source] = true
	}
	if !seen["avoc"] || !seen["lin"] || !sources["wordnet"] || !sources["mythes:en_US"] {
		t.Errorf("Expand(hobby) = %v", got)
	}

	off, err := Load(Config{Off: true, Paths: []string{dir}})
	if err != nil || len(off.Sources()) != 0 || off.Expand("hobby") != nil {
		t.Error("Off does not disable")
	}
	var none *Thesaurus
	if none.Expand("hobby") != nil || none.Sources() != nil || none.Warm() != nil || none.Close() != nil {
		t.Error("nil Thesaurus is not empty")
	}
}

func TestLemmas(t *testing.T) {
	for w, want := range map[string]string{"устал": "устать", "відмовився": "відмовитися", "сломанный": "сломать", "зламаний": "зламати",
		// Present tense.
		"пугают": "пугать", "растит": "растить", "боится": "бояться", "лякають": "лякати", "вирощує": "вирощувати",
		"рисует": "рисовать", "садить": "садити", "зачиняється": "зачинятися",
		// Fleeting vowels.
		"щенка": "щенок", "щенков": "щенок", "отца": "отец", "хлопця": "хлопець", "дня": "день", "кусочком": "кусочек"} {
		if got := cyrillicLemmas(words.Fold(w)); !slices.Contains(got, words.Fold(want)) {
			t.Errorf("cyrillicLemmas(%q) = %v, want %q among them", w, got, want)
		}
	}
	// A vowel before the last consonant, or none to drop: no guessed noun.
	for _, w := range []string{"рука", "банку", "мама"} {
		for _, l := range fleetingNominatives(words.Fold(w)) {
			if l == "рок" || l == "бок" || l == "мамок" {
				t.Errorf("fleetingNominatives(%q) guessed %q", w, l)
			}
		}
	}
	for w, want := range map[string]string{"hobbies": "hobby", "stopped": "stop", "running": "run", "carried": "carry", "women": "woman", "boxes": "box"} {
		if got := lemmas(w); !slices.Contains(got, want) {
			t.Errorf("lemmas(%q) = %v, want %q among them", w, got, want)
		}
	}
}

func TestExpandConcurrent(t *testing.T) {
	dir := writeWordNet(t, sampleWordNet)
	writeMythes(t, dir, "ru_RU", "UTF-8", false, sampleRussian)
	th, err := Load(Config{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	want := len(th.Expand("hobby"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				w := []string{"hobby", "art", "увлечение", "painting", "good"}[(i+j)%5]
				if got := th.Expand(w); w == "hobby" && len(got) != want {
					t.Errorf("concurrent Expand(hobby): %d results, want %d", len(got), want)
				}
			}
		}()
	}
	wg.Wait()
}

// installed loads the thesauri installed at the standard locations, or
// skips the test.
func installed(t testing.TB) *Thesaurus {
	t.Helper()
	th, err := Load(Config{})
	if err != nil {
		t.Fatalf("installed thesauri: %v", err)
	}
	if len(th.Sources()) == 0 {
		t.Skipf("no thesaurus installed under %v (apt-get install wordnet-base mythes-en-us mythes-ru mythes-uk)", DefaultPaths)
	}
	t.Cleanup(func() { th.Close() })
	return th
}

// TestInstalled loads the real Debian files: load time, memory, and a few
// expansions a memory search needs.
func TestInstalled(t *testing.T) {
	t0 := time.Now()
	th := installed(t)
	open := time.Since(t0)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 = time.Now()
	if err := th.Warm(); err != nil {
		t.Fatal(err)
	}
	warm := time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	t.Logf("Load %v, index all %v, index memory %.1f MB", open, warm, float64(m1.HeapAlloc-m0.HeapAlloc)/1e6)
	for _, s := range th.Sources() {
		t.Logf("%s (%s) %s: %d entries", s.Name, s.Lang, s.Path, s.Entries)
		if s.Entries == 0 || !s.Loaded {
			t.Errorf("%+v", s)
		}
	}
	if open > time.Second || warm > 5*time.Second {
		t.Errorf("too slow: load %v, index %v", open, warm)
	}
	want := map[string][]string{}
	names := map[string]bool{}
	for _, s := range th.Sources() {
		names[s.Name] = true
		switch s.Lang {
		case "en":
			want["hobby"] = []string{"pastim"}
			want["painting"] = []string{"art", "pictur"}
			want["automobile"] = []string{"car"}
		case "ru":
			want["автомобиль"] = []string{"машин"}
		case "uk":
			want["автомобіль"] = []string{"машин"}
		}
	}
	for w, terms := range want {
		t0 := time.Now()
		got := th.Expand(w)
		d := time.Since(t0)
		for _, term := range terms {
			if !slices.ContainsFunc(got, func(r Related) bool { return r.Term == term }) {
				t.Errorf("Expand(%q) lacks %q: %v", w, term, got)
			}
		}
		t.Logf("Expand(%q) in %v: %d related", w, d, len(got))
	}
}

// paraphrase is one line of testdata/paraphrases.jsonl: a memory, a
// question about it that shares no content word with it, and distractors.
type paraphrase struct {
	Lang        string   `json:"lang"`
	Memory      string   `json:"memory"`
	Question    string   `json:"question"`
	Distractors []string `json:"distractors"`
}

func readParaphrases(t testing.TB) []paraphrase {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "paraphrases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []paraphrase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var p paraphrase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("paraphrases.jsonl:%d: %v", n, err)
		}
		out = append(out, p)
	}
	return out
}

// stopwords are the function and question words a paraphrase may share.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or of to in on at for by with from is are was were be been
		did do does what which who whom when where why how you your he she his her him it its my me i we our us
		they them their this that there after until ago now last every
		и в во не что он она на я с со как а то все так его но да ты к у же вы за бы по её ее ли есть теперь
		мой моя мое мы наш наша ваш ваше ваша из от до о какой какая какое какие когда где кто чего кого сколько
		почему насколько после был была было были тебя тебе очень который которые
		і й та в у на з із зі до від за що як не це той але або чи ти він вона ми ви я мій моя наш наша ваш ваше
		її його їх в неї яке який яка які коли де хто кого скільки чому наскільки після був була було були тебе
		дуже тому тепер о`) {
		stopwords[Key(w)] = true
	}
}

// contentKeys returns the keys of the content words of s.
func contentKeys(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if k := Key(w); !stopwords[k] && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func TestParaphraseSet(t *testing.T) {
	perLang := map[string]int{}
	for i, p := range readParaphrases(t) {
		perLang[p.Lang]++
		if p.Memory == "" || p.Question == "" || len(p.Distractors) < 2 {
			t.Errorf("line %d: incomplete: %+v", i+1, p)
		}
		mem := contentKeys(p.Memory)
		for _, q := range contentKeys(p.Question) {
			if slices.Contains(mem, q) {
				t.Errorf("line %d: memory and question share %q", i+1, q)
			}
		}
	}
	if perLang["en"] != 20 || perLang["ru"] != 20 || perLang["uk"] != 20 || len(perLang) != 3 {
		t.Errorf("pairs per language = %v, want 20 each of en, ru, uk", perLang)
	}
}

// TestParaphraseConnections reports how many no-shared-word pairs the
// installed thesauri connect: a content word of the question expands to
// a content word of the memory (and, for comparison, either way round).
func TestParaphraseConnections(t *testing.T) {
	th := installed(t)
	type count struct{ pairs, forward, either, distract int }
	counts := map[string]*count{}
	connects := func(from, to string) []string {
		target := contentKeys(to)
		var via []string
		for _, w := range contentKeys(from) {
			for _, r := range th.Expand(w) {
				if slices.Contains(target, r.Term) {
					via = append(via, w+"→"+r.Word)
				}
			}
		}
		return via
	}
	for _, p := range readParaphrases(t) {
		c := counts[p.Lang]
		if c == nil {
			c = &count{}
			counts[p.Lang] = c
		}
		c.pairs++
		fwd := connects(p.Question, p.Memory)
		back := connects(p.Memory, p.Question)
		if len(fwd) > 0 {
			c.forward++
		}
		if len(fwd)+len(back) > 0 {
			c.either++
		}
		for _, d := range p.Distractors {
			if len(connects(p.Question, d)) > 0 {
				c.distract++
				break
			}
		}
		if testing.Verbose() {
			t.Logf("%s %q / %q: %v %v", p.Lang, p.Memory, p.Question, fwd, back)
		}
	}
	for _, lang := range []string{"en", "ru", "uk"} {
		if c := counts[lang]; c != nil {
			t.Logf("%s: question→memory %d/%d, either way %d/%d; question→a distractor %d/%d",
				lang, c.forward, c.pairs, c.either, c.pairs, c.distract, c.pairs)
		}
	}
}

func BenchmarkExpandInstalled(b *testing.B) {
	th := installed(b)
	if err := th.Warm(); err != nil {
		b.Fatal(err)
	}
	words := []string{"hobby", "painting", "started", "automobile", "увлечение", "автомобіль"}
	b.ResetTimer()
	for i := range b.N {
		th.mu.Lock()
		clear(th.cache)
		th.mu.Unlock()
		th.Expand(words[i%len(words)])
	}
}

func BenchmarkLoadInstalled(b *testing.B) { benchmarkLoad(b, "") }

// BenchmarkLoadInstalledCached loads with a cache directory written
// before the timing starts (cache.go).
func BenchmarkLoadInstalledCached(b *testing.B) {
	dir := b.TempDir()
	th, _ := Load(Config{CacheDir: dir})
	th.Warm()
	th.Close()
	b.ResetTimer()
	benchmarkLoad(b, dir)
}

func benchmarkLoad(b *testing.B, cache string) {
	for range b.N {
		th, err := Load(Config{CacheDir: cache})
		if err != nil || len(th.Sources()) == 0 {
			b.Skip("no thesaurus installed")
		}
		th.Warm()
		th.Close()
	}
}
