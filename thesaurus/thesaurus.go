// Package thesaurus expands a word into related words — synonyms and, at
// lower weight, broader and narrower terms — using lexical resources the
// machine already has: the WordNet database (Debian wordnet-base) and the
// LibreOffice MyThes thesauri (mythes-en-us, mythes-ru, mythes-uk).
//
// Lookups are keyed by the folded, stemmed form of package stem, so that a
// query word in any inflection finds its entries and every expansion names
// the stemmed term a keyword index holds. Load only opens the resources;
// each is indexed on the first Expand that needs it (or by Warm), so a
// one-shot command that never expands pays nothing. The index keeps one
// key and one file offset per headword; senses are read from the files
// when a word is expanded.
package thesaurus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// DefaultPaths are the standard system locations of WordNet and MyThes
// searched when Config.Paths is empty.
var DefaultPaths = []string{"/usr/share/wordnet", "/usr/share/mythes"}

// Defaults for the zero Config.
const (
	DefaultMaxPerWord = 32
	DefaultMaxSenses  = 3
)

// Config says where the thesauri are and how much Expand returns.
type Config struct {
	// Paths lists directories or files: a WordNet database directory
	// (index.noun, data.noun, …), a directory of MyThes th_*.dat files, or
	// one such file. Empty means DefaultPaths, where a missing location is
	// skipped; a listed location that is missing or holds no thesaurus is
	// an error.
	Paths []string
	// Off disables every resource: Load returns an empty Thesaurus.
	Off bool
	// MaxPerWord caps the related words Expand returns (DefaultMaxPerWord
	// when zero).
	MaxPerWord int
	// MaxSenses caps the senses of a word that are expanded, most frequent
	// first (DefaultMaxSenses when zero).
	MaxSenses int
	// CacheDir is where the resources' key indexes are kept between
	// processes (cache.go; DefaultCacheDir is the usual place); empty
	// keeps them in memory only.
	CacheDir string
}

// ParseLocation turns the value of a location setting (such as the
// MNEMO_THESAURUS environment variable) into a Config: empty means the
// default locations, "off" disables the thesaurus, anything else is a list
// of directories or files separated by the OS path-list separator or commas.
func ParseLocation(s string) Config {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "":
		return Config{}
	case "off", "none", "0", "false":
		return Config{Off: true}
	}
	var c Config
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == os.PathListSeparator || r == ',' }) {
		if p = strings.TrimSpace(p); p != "" {
			c.Paths = append(c.Paths, p)
		}
	}
	return c
}

// Relation says how an expansion relates to the word expanded.
type Relation uint8

// Relations, from the closest.
const (
	Synonym    Relation = iota + 1 // same sense
	Similar                        // similar sense (adjective clusters, "similar term")
	Associated                     // related term, cross-reference
	Broader                        // hypernym ("generic term")
	Narrower                       // hyponym
)

// MarshalText gives the relation's name in JSON.
func (r Relation) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

func (r Relation) String() string {
	switch r {
	case Synonym:
		return "synonym"
	case Similar:
		return "similar"
	case Associated:
		return "related"
	case Broader:
		return "broader"
	case Narrower:
		return "narrower"
	}
	return fmt.Sprintf("relation(%d)", uint8(r))
}

// Base weights of the relations, multiplied by senseDecay per sense rank
// and by phrasePart for one word of a multi-word expansion.
var relWeight = [...]float64{Synonym: 0.8, Similar: 0.65, Associated: 0.55, Broader: 0.5, Narrower: 0.4}

const (
	senseDecay = 0.8
	phrasePart = 0.6
	// siblingFactor weighs the entries of other headwords sharing the
	// word's stem ("paint" when expanding "painting").
	siblingFactor = 0.6
)

// Related is one expansion of a word.
type Related struct {
	// Term is the folded, stemmed form (see Key): what a keyword index
	// built with package stem holds.
	Term string `json:"term"`
	// Word is the word as the resource spells it; one word of a phrase
	// when the resource gave a phrase.
	Word string `json:"word"`
	// Weight in (0, 1): lower for broader and narrower terms, later
	// senses and parts of phrases.
	Weight float64 `json:"weight"`
	// Relation to the word expanded.
	Relation Relation `json:"relation"`
	// Source names the resource (see Source.Name).
	Source string `json:"source"`
}

// Source describes one lexical resource.
type Source struct {
	Name    string `json:"name"`    // "wordnet" or "mythes:<locale>"
	Lang    string `json:"lang"`    // ISO 639-1 language code
	Path    string `json:"path"`    // the directory or .dat file
	Entries int    `json:"entries"` // headwords in the resource
	Loaded  bool   `json:"loaded"`  // indexed in memory (after the first Expand in its script)
}

// Key returns the form lookups are keyed by: w lower-cased, folded and
// stemmed by package stem.
func Key(w string) string { return words.Stem(words.Fold(w)) }

// resource is one thesaurus file set.
type resource interface {
	// path is the directory or file the resource was opened from.
	path() string
	source() Source
	script() *unicode.RangeTable
	// load builds the in-memory index; called once.
	load() error
	// lookup adds the expansions of the headwords under q's keys.
	lookup(q query, c *collector)
	close() error
}

type lazyResource struct {
	resource
	once sync.Once
	err  error
}

func (l *lazyResource) ensure() error {
	l.once.Do(func() { l.err = l.load() })
	return l.err
}

// Thesaurus expands words with the resources Load found. A nil
// *Thesaurus is valid and expands nothing. It is safe for concurrent use.
type Thesaurus struct {
	res        []*lazyResource
	maxPerWord int
	maxSenses  int

	mu    sync.Mutex
	cache map[string][]Related
}

// cacheSize bounds the expansions remembered; the cache is cleared when full.
const cacheSize = 4096

// Load opens the thesauri cfg names (the default locations when it names
// none). It reads only file headers: each resource is indexed on first use.
// When some resource cannot be opened, Load returns the others together
// with an error naming the failures, so a caller can warn and go on.
func Load(cfg Config) (*Thesaurus, error) {
	t := &Thesaurus{maxPerWord: cfg.MaxPerWord, maxSenses: cfg.MaxSenses, cache: map[string][]Related{}}
	if t.maxPerWord <= 0 {
		t.maxPerWord = DefaultMaxPerWord
	}
	if t.maxSenses <= 0 {
		t.maxSenses = DefaultMaxSenses
	}
	if cfg.Off {
		return t, nil
	}
	paths, explicit := cfg.Paths, len(cfg.Paths) > 0
	if !explicit {
		paths = DefaultPaths
	}
	var errs []error
	seen := map[string]bool{}
	add := func(r resource, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		if p := r.path(); !seen[p] {
			seen[p] = true
			t.res = append(t.res, &lazyResource{resource: r})
		} else {
			r.close()
		}
	}
	for _, p := range paths {
		found, err := open(p, add)
		switch {
		case err != nil && (explicit || !errors.Is(err, os.ErrNotExist)):
			errs = append(errs, err)
		case err == nil && found == 0 && explicit:
			errs = append(errs, fmt.Errorf("thesaurus: %s: no WordNet database or MyThes th_*.dat file", p))
		}
	}
	haveWordNet := slices.ContainsFunc(t.res, func(r *lazyResource) bool { _, ok := r.resource.(*wordNet); return ok })
	for _, r := range t.res {
		switch x := r.resource.(type) {
		case *myThes:
			x.scanListed = !(haveWordNet && x.lang == "en")
			x.cacheDir = cfg.CacheDir
		case *wordNet:
			x.cacheDir = cfg.CacheDir
		}
	}
	return t, errors.Join(errs...)
}

// open adds the resources at path p and returns how many it found.
func open(p string, add func(resource, error)) (int, error) {
	st, err := os.Stat(p)
	if err != nil {
		return 0, fmt.Errorf("thesaurus: %w", err)
	}
	if !st.IsDir() {
		base := filepath.Base(p)
		switch {
		case strings.HasSuffix(base, ".dat") && !strings.HasPrefix(base, "data."):
			add(openMythes(p))
		case strings.HasSuffix(base, ".idx"):
			add(openMythes(strings.TrimSuffix(p, ".idx") + ".dat"))
		case strings.HasPrefix(base, "data.") || strings.HasPrefix(base, "index."):
			add(openWordNet(filepath.Dir(p)))
		default:
			return 0, fmt.Errorf("thesaurus: %s: not a WordNet or MyThes file", p)
		}
		return 1, nil
	}
	n := 0
	if isWordNetDir(p) {
		add(openWordNet(p))
		n++
	}
	dats, _ := filepath.Glob(filepath.Join(p, "th_*.dat"))
	slices.Sort(dats)
	for _, d := range dats {
		add(openMythes(d))
		n++
	}
	return n, nil
}

// Sources describes the active resources, in the order they are consulted.
func (t *Thesaurus) Sources() []Source {
	if t == nil {
		return nil
	}
	out := make([]Source, 0, len(t.res))
	for _, r := range t.res {
		out = append(out, r.source())
	}
	return out
}

// Warm indexes every resource now instead of on first use, for a server
// that would rather pay at start-up than on its first query.
func (t *Thesaurus) Warm() error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, r := range t.res {
		errs = append(errs, r.ensure())
	}
	return errors.Join(errs...)
}

// Close releases the open files; it must not run concurrently with
// Expand, which returns nothing afterwards.
func (t *Thesaurus) Close() error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, r := range t.res {
		errs = append(errs, r.close())
	}
	t.res = nil
	return errors.Join(errs...)
}

// Prefetch starts indexing, in the background, the resources that
// expanding the words of text reads (those of its scripts), so that a
// short-lived process does it while it loads its other data.
func (t *Thesaurus) Prefetch(text string) {
	if t == nil {
		return
	}
	scripts := map[*unicode.RangeTable]bool{}
	for _, w := range strings.Fields(text) {
		scripts[scriptOf(words.Fold(w))] = true
	}
	for _, r := range t.res {
		if scripts[r.script()] {
			go r.ensure()
		}
	}
}

// Expand returns words related to word, best first, at most MaxPerWord,
// never word itself (nor another word with its key). Each carries the
// stemmed term to match, a weight below 1 and the resource it came from.
// The result is shared: callers must not modify it.
func (t *Thesaurus) Expand(word string) []Related { return t.ExpandIn(word, "") }

// ExpandIn is Expand from the resources of one language only (an ISO 639-1
// code, e.g. from words.Letters.Lang), or from every resource of the word's script
// when lang is "": Russian and Ukrainian share a script and many spellings
// whose meanings differ («оклад» is a salary in Russian, a setting in
// Ukrainian), so a query known to be in one of them is expanded from its
// own thesaurus only.
func (t *Thesaurus) ExpandIn(word, lang string) []Related {
	if t == nil || len(t.res) == 0 {
		return nil
	}
	folded := words.Fold(strings.TrimSpace(word))
	if len([]rune(words.Stem(folded))) < 2 {
		return nil
	}
	sc := scriptOf(folded)
	if lang != "" {
		own := false
		for _, r := range t.res {
			own = own || r.script() == sc && r.source().Lang == lang
		}
		if !own {
			lang = "" // no thesaurus of that language: use what there is
		}
	}
	key := lang + "\x00" + folded
	if out, ok := t.fromCache(key); ok {
		return out
	}
	q := newQuery(folded, sc)
	if sc == unicode.Latin {
		// Irregular inflections: "bought" is looked up as "buy".
		if w := t.wordNet(); w != nil {
			for _, b := range w.exceptions().lookup(folded, true) {
				if !slices.Contains(q.forms, b) {
					q.forms = append(q.forms, b)
					if k := words.Stem(b); !slices.Contains(q.keys, k) {
						q.keys = append(q.keys, k)
					}
				}
			}
		}
	}
	c := &collector{self: q.keys, maxSenses: t.maxSenses, best: map[string]int{}}
	for _, r := range t.res {
		if r.script() != sc || lang != "" && r.source().Lang != lang || r.ensure() != nil {
			continue
		}
		c.source = r.source().Name
		r.lookup(q, c)
	}
	out := c.result(t.maxPerWord)
	t.cached(key, out)
	return out
}

// fromCache returns the expansions cached under key.
func (t *Thesaurus) fromCache(key string) ([]Related, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out, ok := t.cache[key]
	return out, ok
}

// cached keeps out under key, emptying the cache when it is full.
func (t *Thesaurus) cached(key string, out []Related) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.cache) >= cacheSize {
		clear(t.cache)
	}
	t.cache[key] = out
}

// scriptOf returns the script of w's first letter: Cyrillic or Latin (the
// default for anything else, which no resource but WordNet and English
// MyThes would hold).
func scriptOf(w string) *unicode.RangeTable {
	for _, r := range w {
		if unicode.IsLetter(r) {
			if unicode.Is(unicode.Cyrillic, r) {
				return unicode.Cyrillic
			}
			return unicode.Latin
		}
	}
	return unicode.Latin
}

// scriptOfLang returns the script a language's thesaurus is written in.
func scriptOfLang(lang string) *unicode.RangeTable {
	switch lang {
	case "ru", "uk", "be", "bg", "mk", "sr", "kk", "ky", "mn", "tg":
		return unicode.Cyrillic
	}
	return unicode.Latin
}

// collector merges expansions, keeping the best weight per term.
type collector struct {
	self      []string // the keys of the word expanded
	source    string
	maxSenses int
	out       []Related
	best      map[string]int // term -> index in out
}

// phraseStop are function words dropped when a multi-word expansion is
// split ("state of the art" gives "state" and "art").
var phraseStop = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true,
	"at": true, "by": true, "for": true, "from": true, "with": true, "and": true, "or": true,
	"up": true, "out": true, "off": true, "into": true, "as": true, "one": true, "someone": true,
	"something": true, "somebody": true, "oneself": true,
	"и": true, "в": true, "на": true, "с": true, "со": true, "по": true, "к": true, "о": true,
	"за": true, "из": true, "от": true, "до": true, "для": true, "что": true, "кто": true,
	"і": true, "з": true, "у": true, "та": true, "від": true, "що": true, "хто": true,
	"себе": true, "себя": true, "собі": true,
}

// add records word (a word or phrase) at weight w.
func (c *collector) add(word string, rel Relation, w float64) {
	parts := strings.FieldsFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) })
	if len(parts) > 1 {
		w *= phrasePart
	}
	for _, p := range parts {
		f := words.Fold(p)
		if phraseStop[f] {
			continue
		}
		term := words.Stem(f)
		if slices.Contains(c.self, term) || len([]rune(term)) < 3 {
			continue
		}
		if i, ok := c.best[term]; ok {
			if w > c.out[i].Weight {
				c.out[i] = Related{Term: term, Word: p, Weight: w, Relation: rel, Source: c.source}
			}
			continue
		}
		c.best[term] = len(c.out)
		c.out = append(c.out, Related{Term: term, Word: p, Weight: w, Relation: rel, Source: c.source})
	}
}

func (c *collector) result(max int) []Related {
	out := c.out
	slices.SortStableFunc(out, func(a, b Related) int {
		switch {
		case a.Weight > b.Weight:
			return -1
		case a.Weight < b.Weight:
			return 1
		}
		return 0
	})
	if len(out) > max {
		out = out[:max:max]
	}
	return out
}

// senseWeight is the weight of relation rel in the sense of rank i
// (0 = most frequent).
func senseWeight(rel Relation, i int) float64 {
	w := relWeight[rel]
	for ; i > 0; i-- {
		w *= senseDecay
	}
	return w
}

// query is a word to expand: its folded forms (the word and, in English,
// the lemmas it may be an inflection of) and their keys. Under keys[0],
// the word's own key, every headword is taken; under the others only a
// headword equal to one of the forms.
type query struct {
	forms []string
	keys  []string
}

// accept reports whether the headword found under keys[i] is taken; exact
// says whether the word itself is a headword of the resource, in which
// case its lemmas are not looked up ("interest" is not "inter" + "est").
func (q query) accept(i int, headword string, exact bool) bool {
	return i == 0 || !exact && q.own(headword)
}

// newQuery returns the forms and keys under which word is looked up.
func newQuery(word string, sc *unicode.RangeTable) query {
	q := query{forms: []string{word}}
	if sc == unicode.Latin {
		q.forms = append(q.forms, lemmas(word)...)
	} else if sc == unicode.Cyrillic {
		q.forms = append(q.forms, cyrillicLemmas(word)...)
	}
	for _, f := range q.forms {
		if k := words.Stem(f); !slices.Contains(q.keys, k) {
			q.keys = append(q.keys, k)
		}
	}
	return q
}

// own reports whether headword (folded) is the word itself or one of its lemmas.
func (q query) own(headword string) bool { return slices.Contains(q.forms, headword) }

// siblingWeights returns the factor for each headword: 1 for the word's
// own headwords; siblingFactor for the others sharing its stem ("paint"
// when expanding "painting"), unless the word has no headword of its own.
func (q query) siblingWeights(heads []string) []float64 {
	own := slices.ContainsFunc(heads, q.own)
	out := make([]float64, len(heads))
	for i, h := range heads {
		out[i] = 1
		if own && !q.own(h) {
			out[i] = siblingFactor
		}
	}
	return out
}

// morphy are WordNet's detachment rules for English inflections (wndb(5),
// morphy(7)), the ones package stem does not already undo.
var morphy = [][2]string{
	{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"},
	{"men", "man"}, {"ies", "y"}, {"ied", "y"}, {"ier", "y"}, {"iest", "y"},
	{"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
	{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"},
}

// lemmas returns the base forms an English word may be an inflection of:
// "hobbies" gives "hobby", "stopped" gives "stop".
func lemmas(w string) []string {
	var out []string
	for _, r := range morphy {
		base, ok := strings.CutSuffix(w, r[0])
		if !ok || len(base) < 2 {
			continue
		}
		out = append(out, base+r[1])
		// Doubled final consonant: "stopped", "running".
		if n := len(base); r[1] == "" && (r[0] == "ed" || r[0] == "ing") && n >= 3 && base[n-1] == base[n-2] && !strings.ContainsRune("aeiouls", rune(base[n-1])) {
			out = append(out, base[:n-1])
		}
	}
	return out
}

// cyrillicDetach are Russian and Ukrainian verb endings package stem does
// not map to the infinitive's stem: past tense and passive participles
// ("устал" → "устать", "відмовився" → "відмовитися", "сломан" →
// "сломать"), and present-tense endings. Folded on first use.
var cyrillicDetach = sync.OnceValue(func() [][2]string {
	var out [][2]string
	for _, r := range [][2]string{
		{"лся", "ться"}, {"лась", "ться"}, {"лось", "ться"}, {"лись", "ться"},
		{"вся", "тися"}, {"лася", "тися"}, {"лося", "тися"}, {"лися", "тися"},
		{"л", "ть"}, {"ла", "ть"}, {"ло", "ть"}, {"ли", "ть"},
		{"в", "ти"}, {"ла", "ти"}, {"ло", "ти"}, {"ли", "ти"},
		{"ан", "ать"}, {"ана", "ать"}, {"анный", "ать"}, {"анная", "ать"}, {"анное", "ать"}, {"анные", "ать"},
		{"ен", "ить"}, {"ена", "ить"}, {"енный", "ить"}, {"енная", "ить"}, {"енное", "ить"}, {"енные", "ить"},
		{"аний", "ати"}, {"ана", "ати"}, {"ане", "ати"}, {"ані", "ати"},
		{"ений", "ити"}, {"ена", "ити"}, {"ене", "ити"}, {"ені", "ити"},
		// Infinitives in -сти and -йти, whose past tense drops them:
		// «приобрёл» is «приобрести», «пришёл» «прийти», «знайшов» «знайти».
		{"ел", "ести"}, {"ела", "ести"}, {"ело", "ести"}, {"ели", "ести"},
		{"шел", "йти"}, {"шла", "йти"}, {"шло", "йти"}, {"шли", "йти"},
		{"йшов", "йти"}, {"йшла", "йти"}, {"йшло", "йти"}, {"йшли", "йти"},
		// Present tense, third person and first singular, which the light
		// stemmer keeps apart from the infinitive («пугают»: «пугать»,
		// «растит»: «растить», «боится»: «бояться», «лякають»: «лякати»).
		{"ает", "ать"}, {"ают", "ать"}, {"аю", "ать"},
		{"яет", "ять"}, {"яют", "ять"}, {"яю", "ять"},
		{"еет", "еть"}, {"еют", "еть"},
		{"ует", "овать"}, {"уют", "овать"},
		{"ит", "ить"}, {"ят", "ить"}, {"ит", "еть"}, {"ят", "еть"},
		{"ается", "аться"}, {"аются", "аться"}, {"яется", "яться"}, {"яются", "яться"},
		{"ится", "иться"}, {"ятся", "иться"}, {"ится", "яться"}, {"ятся", "яться"},
		{"ится", "еться"}, {"уется", "оваться"}, {"уются", "оваться"},
		{"ає", "ати"}, {"ають", "ати"}, {"яє", "яти"}, {"яють", "яти"},
		{"ує", "увати"}, {"ують", "увати"},
		{"ить", "ити"}, {"ять", "ити"}, {"ить", "іти"}, {"ять", "іти"},
		{"ається", "атися"}, {"аються", "атися"}, {"яється", "ятися"}, {"яються", "ятися"}, {"иться", "итися"}, {"яться", "итися"},
		{"ується", "уватися"}, {"уються", "уватися"},
	} {
		out = append(out, [2]string{words.Fold(r[0]), words.Fold(r[1])})
	}
	return out
})

// cyrillicLemmas returns the infinitives a Russian or Ukrainian verb form
// may come from, and the nominative of a noun whose vowel drops out of its
// other forms («щенка»: «щенок»).
func cyrillicLemmas(w string) []string {
	var out []string
	for _, r := range cyrillicDetach() {
		if base, ok := strings.CutSuffix(w, r[0]); ok && len([]rune(base)) >= 2 {
			out = append(out, base+r[1])
		}
	}
	return append(out, fleetingNominatives(w)...)
}

// caseEndings are the Russian and Ukrainian noun endings after which a
// fleeting vowel is missing from the stem (folded).
var caseEndings = []string{"ами", "ями", "ові", "еві", "ом", "ем", "ов", "ів", "ам", "ям", "ах", "ях", "ою", "ей",
	"а", "у", "е", "и", "ы", "я", "ю", "і"}

// fleetingNominatives returns the nominatives a noun form (folded) may
// come from when its last syllable's vowel drops out of the other forms:
// «щенка», «щенков» of «щенок», «отца» of «отец», «хлопця» of «хлопець»,
// «дня» of «день». The vowel sits between two consonants, the second к, ц
// or н; a guess that is no headword finds nothing.
func fleetingNominatives(w string) []string {
	var out []string
	for _, e := range caseEndings {
		base, ok := strings.CutSuffix(w, e)
		r := []rune(base)
		if !ok || len(r) < 2 || isVowel(r[len(r)-2]) || isVowel(r[len(r)-1]) {
			continue
		}
		head := string(r[:len(r)-1])
		switch r[len(r)-1] {
		case 'к':
			out = append(out, head+"ок", head+"ек")
		case 'ц':
			out = append(out, head+"ец", head+"ець")
		case 'н':
			out = append(out, head+"ень")
		}
	}
	return out
}

// isVowel reports whether r is a Russian or Ukrainian vowel letter, or a
// soft or hard sign (folded: no ё, ї or й).
func isVowel(r rune) bool { return strings.ContainsRune("аеиоуыэюяієьъ", r) }
