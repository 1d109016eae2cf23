package thesaurus

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/words"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// The MyThes format (LibreOffice thesauri): th_<locale>.dat starts with
// its character encoding on a line of its own ("UTF-8", "KOI8-R",
// "ISO8859-1", …), then for each headword a line "word|count" followed by
// count sense lines "(pos)|syn1|syn2|…". A synonym may carry notes in
// parentheses: "(generic term)", "(antonym)", "(сходный термин)",
// "(див.)" (see also), "(розм.)" (colloquial). The optional .idx beside
// it holds the encoding, the number of headwords, then "word|offset" lines
// giving each entry's byte offset in the .dat.

// maxSenseLines bounds the count of an entry.
const maxSenseLines = 1000

var errMTFormat = errors.New("not in MyThes format")

// parseEncoding returns the encoding named on the first line of a .dat or
// .idx file; nil means UTF-8.
func parseEncoding(line []byte) (encoding.Encoding, error) {
	name := strings.ToLower(strings.TrimSpace(string(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))))
	switch name {
	case "utf-8", "utf8":
		return nil, nil
	case "":
		return nil, fmt.Errorf("%w: no encoding on the first line", errMTFormat)
	}
	enc := singleByte()[encodingKey(name)]
	if enc == nil || len(name) > 40 {
		return nil, fmt.Errorf("%w: unsupported encoding %q", errMTFormat, name)
	}
	return enc, nil
}

// singleByte maps the key of each single-byte character set's names
// (encodingKey) to it. MyThes thesauri are in UTF-8 or a single-byte set
// (ISO 8859-x, which MyThes spells "ISO8859-x", KOI8-R/U, Windows-125x);
// the multi-byte East Asian encodings, whose tables would be most of the
// binary's initialised data, are not among them. Built on first use.
var singleByte = sync.OnceValue(func() map[string]encoding.Encoding {
	m := make(map[string]encoding.Encoding)
	for _, e := range charmap.All {
		cm, ok := e.(*charmap.Charmap)
		if !ok {
			continue
		}
		key := encodingKey(cm.String()) // "ISO 8859-1", "KOI8-R", "Windows 1251", "IBM Code Page 866"
		m[key] = cm
		switch {
		case strings.HasPrefix(key, "windows"):
			m["cp"+key[len("windows"):]] = cm
		case strings.HasPrefix(key, "ibmcodepage"):
			m["ibm"+key[len("ibmcodepage"):]] = cm
			m["cp"+key[len("ibmcodepage"):]] = cm
		}
	}
	m["latin2"] = charmap.ISO8859_2
	m["maccyrillic"] = charmap.MacintoshCyrillic
	// As the WHATWG labels have it: ASCII and Latin-1 read as Windows-1252,
	// Latin-5 as Windows-1254, supersets whose extra characters files
	// labelled so often hold.
	for _, k := range []string{"ascii", "usascii", "latin1", "iso88591"} {
		m[k] = charmap.Windows1252
	}
	m["iso88599"], m["latin5"] = charmap.Windows1254, charmap.Windows1254
	return m
})

// encodingKey is name lowercased with everything but letters and digits
// left out: "ISO8859-1", "iso-8859-1" and "ISO 8859-1" are one key.
func encodingKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// decode converts b from enc to UTF-8.
func decode(enc encoding.Encoding, b []byte) []byte {
	if enc == nil {
		return b
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return nil
	}
	return out
}

// parseHeader parses "word|count".
func parseHeader(line []byte) (word []byte, count int, err error) {
	i := bytes.LastIndexByte(line, '|')
	if i < 0 {
		return nil, 0, fmt.Errorf("%w: entry %q has no \"|count\"", errMTFormat, clip(line))
	}
	count, err = strconv.Atoi(string(bytes.TrimSpace(line[i+1:])))
	if err != nil || count < 0 || count > maxSenseLines {
		return nil, 0, fmt.Errorf("%w: entry %q: bad sense count", errMTFormat, clip(line))
	}
	return line[:i], count, nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

// parseDat calls fn for every entry of a whole .dat file: its byte
// offset, headword and sense lines (not yet decoded).
func parseDat(b []byte, fn func(off int, word []byte, senses [][]byte)) error {
	first, rest, ok := bytes.Cut(b, []byte{'\n'})
	if !ok {
		return fmt.Errorf("%w: no entries", errMTFormat)
	}
	if _, err := parseEncoding(first); err != nil {
		return err
	}
	off := len(first) + 1
	lineNo := 1
	next := func() ([]byte, int, bool) {
		if len(rest) == 0 {
			return nil, 0, false
		}
		l, r, _ := bytes.Cut(rest, []byte{'\n'})
		at := off
		off += len(l) + 1
		rest = r
		lineNo++
		return bytes.TrimSuffix(l, []byte{'\r'}), at, true
	}
	for {
		head, at, ok := next()
		if !ok {
			return nil
		}
		if len(bytes.TrimSpace(head)) == 0 {
			continue
		}
		word, count, err := parseHeader(head)
		if err != nil {
			return fmt.Errorf("line %d: %w", lineNo, err)
		}
		senses := make([][]byte, 0, count)
		for range count {
			l, _, ok := next()
			if !ok {
				return fmt.Errorf("line %d: %w: entry %q ends early", lineNo, errMTFormat, clip(word))
			}
			senses = append(senses, l)
		}
		fn(at, word, senses)
	}
}

// parseIdx calls fn for every "word|offset" line of a .idx file.
func parseIdx(b []byte, fn func(word []byte, off int)) error {
	n := 0
	var err error
	eachLine(b, func(_ int, l []byte) {
		n++
		switch {
		case err != nil:
		case n == 1:
			_, err = parseEncoding(l)
		case n == 2:
			if _, e := strconv.Atoi(string(bytes.TrimSpace(l))); e != nil {
				err = fmt.Errorf("%w: line 2 is not the entry count", errMTFormat)
			}
		case len(l) == 0:
		default:
			i := bytes.LastIndexByte(l, '|')
			off, e := -1, error(nil)
			if i >= 0 {
				off, e = strconv.Atoi(string(bytes.TrimSpace(l[i+1:])))
			}
			if i < 0 || e != nil || off < 0 {
				err = fmt.Errorf("line %d: %w: %q is not \"word|offset\"", n, errMTFormat, clip(l))
				return
			}
			if i > 0 {
				fn(l[:i], off)
			}
		}
	})
	if err == nil && n < 2 {
		err = fmt.Errorf("%w: index has no header", errMTFormat)
	}
	return err
}

// mtItem is one synonym of a sense line.
type mtItem struct {
	text string
	rel  Relation
	ref  bool // "(див.)": a headword to look up
}

// parseSense parses "(pos)|syn1|syn2…" into its usable items: notes
// removed, antonyms dropped.
func parseSense(line string) []mtItem {
	fields := strings.Split(line, "|")
	_, posNotes := stripNotes(fields[0])
	lineRel := Synonym
	for _, n := range posNotes {
		switch rel, skip, _ := classifyNote(n); {
		case skip:
			return nil
		case rel != 0:
			lineRel = rel
		}
	}
	var out []mtItem
	for _, f := range fields[1:] {
		text, notes := stripNotes(f)
		if text == "" {
			continue
		}
		it := mtItem{text: text, rel: lineRel}
		skip := false
		for _, n := range notes {
			rel, sk, ref := classifyNote(n)
			skip = skip || sk
			it.ref = it.ref || ref
			if rel != 0 {
				it.rel = rel
			}
		}
		if !skip {
			out = append(out, it)
		}
	}
	return out
}

// stripNotes removes the parenthesised notes of s and returns them.
func stripNotes(s string) (string, []string) {
	var b strings.Builder
	var notes []string
	for {
		i := strings.IndexByte(s, '(')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			notes = append(notes, s[i+1:])
			break
		}
		notes = append(notes, s[i+1:i+j])
		s = s[i+j+1:]
	}
	return strings.Join(strings.Fields(b.String()), " "), notes
}

// classifyNote reads a note: the relation it implies, whether the item is
// to be dropped (antonyms), whether it is a cross-reference.
func classifyNote(n string) (rel Relation, skip, ref bool) {
	switch strings.ToLower(strings.TrimSpace(n)) {
	case "generic term", "родовое понятие", "родове поняття":
		return Broader, false, false
	case "similar term", "сходный термин", "схожий термін":
		return Similar, false, false
	case "related term", "связанный термин", "пов'язаний термін", "пор.", "див. ще":
		return Associated, false, false
	case "antonym", "антоним", "антонім":
		return 0, true, false
	case "див.", "см.":
		return 0, false, true
	}
	return 0, false, false
}

// myThes is one MyThes thesaurus.
type myThes struct {
	dat, idx     string // idx is "" when there is none
	locale, lang string
	f            *dataFile
	enc          encoding.Encoding
	ki           keyIndex
	// rev indexes entries under the single words their senses list:
	// MyThes files are not all symmetric («врач» lists «доктор», and
	// «доктор» has no entry; «купить» lists «приобрести», whose entry does
	// not list «купить»), so a word is also looked up where it is listed.
	rev keyIndex
	// scanListed says whether load builds rev, which reads the whole .dat
	// file: not for the English file beside WordNet, which is WordNet's
	// words in both directions (5 of its 71,000 listed words lack an entry,
	// against 18,000 of 26,000 in Russian) and whose 18 MB would cost every
	// process half a second.
	scanListed bool
	cacheDir   string // Config.CacheDir
	loaded     atomic.Bool
	entries    atomic.Int64
}

// openMythes opens a .dat file and reads its encoding and, from the .idx
// when there is one, its entry count.
func openMythes(dat string) (_ resource, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("thesaurus: mythes %s: %w", dat, err)
		}
	}()
	f, err := openData(dat)
	if err != nil {
		return nil, err
	}
	lines, err := readLines(f, 0, 1)
	if err == nil && len(lines) == 0 {
		err = fmt.Errorf("%w: empty file", errMTFormat)
	}
	var enc encoding.Encoding
	if err == nil {
		enc, err = parseEncoding(lines[0])
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	locale := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(dat), "th_"), ".dat")
	locale = strings.TrimSuffix(locale, "_v2")
	lang, _, _ := strings.Cut(strings.ReplaceAll(locale, "-", "_"), "_")
	m := &myThes{dat: dat, locale: locale, lang: strings.ToLower(lang), f: f, enc: enc}
	idx := strings.TrimSuffix(dat, ".dat") + ".idx"
	if g, err := os.Open(idx); err == nil {
		m.idx = idx
		if l, err := readLines(g, 0, 2); err == nil && len(l) == 2 {
			n, _ := strconv.Atoi(string(bytes.TrimSpace(l[1])))
			m.entries.Store(int64(n))
		}
		g.Close()
	}
	return m, nil
}

func (m *myThes) script() *unicode.RangeTable { return scriptOfLang(m.lang) }

func (m *myThes) path() string { return m.dat }

func (m *myThes) source() Source {
	return Source{Name: "mythes:" + m.locale, Lang: m.lang, Path: m.dat, Entries: int(m.entries.Load()), Loaded: m.loaded.Load()}
}

// addListed indexes the entry at off in rev under the single words its
// senses list.
func (m *myThes) addListed(senses [][]byte, off int, keys map[string]string) {
	if off >= 1<<32-1 {
		return
	}
	for _, s := range senses {
		_, s, _ = bytes.Cut(s, []byte{'|'}) // the part of speech
		for len(s) > 0 {
			var f []byte
			f, s, _ = bytes.Cut(s, []byte{'|'})
			if i := bytes.IndexByte(f, '('); i >= 0 {
				f = f[:i]
			}
			f = bytes.TrimSpace(f)
			if len(f) == 0 {
				continue
			}
			k, ok := keys[string(f)]
			if !ok {
				if w := decode(m.enc, f); isSingleWord(w) {
					k = Key(string(w))
				}
				keys[string(f)] = k
			}
			if k != "" {
				m.rev.add(k, uint32(off))
			}
		}
	}
}

func (m *myThes) add(word []byte, off int) {
	if off >= 1<<32-1 {
		return
	}
	if w := decode(m.enc, word); isSingleWord(w) {
		m.ki.add(Key(string(w)), uint32(off))
	}
}

func (m *myThes) load() error {
	files := []string{m.dat}
	if m.idx != "" {
		files = append(files, m.idx)
	}
	extra := "mythes"
	if m.scanListed {
		extra = "mythes+listed"
	}
	n, err := cached(m.cacheDir, extra, files, m.build, &m.ki, &m.rev)
	if err != nil {
		return err
	}
	m.entries.Store(n)
	m.loaded.Store(true)
	return nil
}

// build indexes the headwords (and, with scanListed, the listed words)
// of the files (load, when the cache has them not).
func (m *myThes) build() (int64, error) {
	n := 0
	err := errors.New("no index")
	rev := m.scanListed
	addHead := func(w []byte, off int) {
		n++
		m.add(w, off)
	}
	if m.idx != "" {
		var b []byte
		if b, err = os.ReadFile(m.idx); err == nil {
			err = parseIdx(b, addHead)
		}
	}
	if err != nil || rev {
		b, err2 := readAll(m.f)
		if err2 == nil && err != nil { // no usable .idx: the headwords come from the .dat
			m.ki, n = keyIndex{}, 0
			err2 = parseDat(b, func(off int, w []byte, _ [][]byte) { addHead(w, off) })
		}
		if err2 == nil && rev {
			keys := map[string]string{} // listed word -> its key ("" for a phrase)
			err2 = parseDat(b, func(off int, _ []byte, senses [][]byte) { m.addListed(senses, off, keys) })
		}
		if err2 != nil {
			return 0, fmt.Errorf("thesaurus: mythes %s: %w", m.dat, err2)
		}
	}
	m.ki.finish()
	m.rev.finish()
	return int64(n), nil
}

// entry reads the entry at off: its folded headword and sense lines.
func (m *myThes) entry(off uint32) (string, []string, bool) {
	lines, err := readLines(m.f, int64(off), 1)
	if err != nil || len(lines) == 0 {
		return "", nil, false
	}
	word, count, err := parseHeader(lines[0])
	if err != nil {
		return "", nil, false
	}
	if lines, err = readLines(m.f, int64(off), 1+count); err != nil {
		return "", nil, false
	}
	senses := make([]string, 0, count)
	for _, l := range lines[1:] {
		senses = append(senses, string(decode(m.enc, l)))
	}
	return words.Fold(string(decode(m.enc, word))), senses, true
}

// maxRefs caps the cross-references followed for one word.
const maxRefs = 3

func (m *myThes) lookup(q query, c *collector) {
	type entry struct {
		factor float64
		senses []string
	}
	var entries []entry
	var heads []string
	exact := false
	for i, key := range q.keys {
		for _, off := range m.ki.find(key) {
			if head, senses, ok := m.entry(off); ok && q.accept(i, head, exact) {
				entries = append(entries, entry{1, senses})
				heads = append(heads, head)
				exact = exact || head == q.forms[0]
			}
		}
	}
	for i, f := range q.siblingWeights(heads) {
		entries[i].factor = f
	}
	var refs []string
	addSenses := func(e entry, follow bool) {
		for i, s := range e.senses {
			if i >= c.maxSenses {
				break
			}
			items := parseSense(s)
			if len(items) > 0 && e.factor < 1 && isProperName(items[0].text) {
				continue // names reached only through a shared stem are noise
			}
			for j, it := range items {
				w := e.factor * senseWeight(it.rel, i) * max(0.5, 1-0.03*float64(j))
				c.add(it.text, it.rel, w)
				if it.ref && follow && len(refs) < maxRefs {
					refs = append(refs, it.text)
				}
			}
		}
	}
	for _, e := range entries {
		addSenses(e, true)
	}
	// Entries listing the word: all it has when it has no entry of its
	// own; beside its own entry a step further, since files are not all
	// symmetric («купить» lists «приобрести», whose entry does not list
	// «купить»).
	listed := 1.0
	if slices.ContainsFunc(heads, q.own) {
		listed = senseDecay
	}
	m.lookupListed(q, c, listed)
	// "(див.) X" sends the reader to X: its synonyms are this word's too.
	for _, r := range refs {
		fr := words.Fold(r)
		for _, off := range m.ki.find(words.Stem(fr)) {
			if head, senses, ok := m.entry(off); ok && head == fr {
				addSenses(entry{senseDecay, senses}, false)
			}
		}
	}
}

// lookupListed adds the entries whose senses list the word: their
// headword and the sense's other words, one step further (senseDecay)
// than the word's own entry would give them, times factor.
func (m *myThes) lookupListed(q query, c *collector, factor float64) {
	var done []uint32
	for k, key := range q.keys {
		// Under the word's own key any listed form is it ("машиной" finds
		// "машина"); under a lemma's key, only the lemma.
		lists := func(it mtItem) bool {
			f := words.Fold(it.text)
			return words.Stem(f) == key && (k == 0 || q.own(f))
		}
		for _, off := range m.rev.find(key) {
			if slices.Contains(done, off) {
				continue
			}
			done = append(done, off)
			head, senses, ok := m.entry(off)
			if !ok {
				continue
			}
			for i, s := range senses {
				if i >= c.maxSenses {
					break
				}
				items := parseSense(s)
				if !slices.ContainsFunc(items, lists) {
					continue
				}
				c.add(head, Synonym, factor*senseDecay*senseWeight(items[0].rel, i))
				for j, it := range items {
					if !lists(it) {
						c.add(it.text, it.rel, factor*senseDecay*senseWeight(it.rel, i)*max(0.5, 1-0.03*float64(j)))
					}
				}
			}
		}
	}
}

func (m *myThes) close() error { return m.f.Close() }
