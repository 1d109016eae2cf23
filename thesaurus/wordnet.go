package thesaurus

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// The WordNet database (wndb(5)): for each part of speech an index file
// ("lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt
// synset_offset…", senses most frequent first) and a data file whose
// synset_offset is the byte offset of the synset's line ("synset_offset
// lex_filenum ss_type w_cnt word lex_id … p_cnt [ptr…] [frames] | gloss",
// w_cnt and lex_id in hex). Lines starting with a space are the licence.

// wnPOS are the parts of speech in file order; an offset's top two bits
// in the key index say which index file it is in.
var wnPOS = [4]struct {
	name string
	pos  byte
}{{"noun", 'n'}, {"verb", 'v'}, {"adj", 'a'}, {"adv", 'r'}}

func wnPOSIndex(pos byte) int {
	switch pos {
	case 'n':
		return 0
	case 'v':
		return 1
	case 'a', 's':
		return 2
	case 'r':
		return 3
	}
	return -1
}

// maxNarrower caps the hyponyms taken from one synset.
const maxNarrower = 12

var errWNFormat = errors.New("not in WordNet database format")

// wnIndexEntry is one line of an index file.
type wnIndexEntry struct {
	lemma   string
	pos     byte
	synsets []uint32 // synset offsets, most frequent sense first
}

func parseIndexLine(line []byte) (wnIndexEntry, error) {
	f := strings.Fields(string(line))
	if len(f) < 6 || len(f[1]) != 1 || wnPOSIndex(f[1][0]) < 0 || f[1][0] == 's' {
		return wnIndexEntry{}, errWNFormat
	}
	nSyn, err1 := strconv.Atoi(f[2])
	nPtr, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || nSyn < 1 || nPtr < 0 || nPtr > len(f) || nSyn > len(f) {
		return wnIndexEntry{}, errWNFormat
	}
	i := 4 + nPtr + 2 // pointer symbols, sense_cnt, tagsense_cnt
	if len(f) < i+nSyn {
		return wnIndexEntry{}, errWNFormat
	}
	e := wnIndexEntry{lemma: f[0], pos: f[1][0], synsets: make([]uint32, nSyn)}
	for k := range nSyn {
		off, err := strconv.ParseUint(f[i+k], 10, 32)
		if err != nil {
			return wnIndexEntry{}, errWNFormat
		}
		e.synsets[k] = uint32(off)
	}
	return e, nil
}

// wnPointer is one pointer of a synset.
type wnPointer struct {
	sym string // "@" hypernym, "~" hyponym, "&" similar to, "!" antonym, …
	off uint32
	pos byte
}

// wnSynset is one line of a data file.
type wnSynset struct {
	off   uint32
	pos   byte
	words []string // spaces for underscores, adjective markers removed
	ptrs  []wnPointer
}

func parseDataLine(line []byte) (wnSynset, error) {
	s := string(line)
	if i := strings.IndexByte(s, '|'); i >= 0 {
		s = s[:i]
	}
	f := strings.Fields(s)
	if len(f) < 6 || len(f[2]) != 1 || wnPOSIndex(f[2][0]) < 0 {
		return wnSynset{}, errWNFormat
	}
	off, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return wnSynset{}, errWNFormat
	}
	if _, err := strconv.ParseUint(f[1], 10, 8); err != nil {
		return wnSynset{}, errWNFormat
	}
	nw, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil || nw == 0 || len(f) < 4+2*int(nw)+1 {
		return wnSynset{}, errWNFormat
	}
	syn := wnSynset{off: uint32(off), pos: f[2][0]}
	for k := range int(nw) {
		w := f[4+2*k]
		if i := strings.IndexByte(w, '('); i > 0 && strings.HasSuffix(w, ")") {
			w = w[:i] // adjective position marker: (a), (p), (ip)
		}
		if _, err := strconv.ParseUint(f[5+2*k], 16, 8); err != nil {
			return wnSynset{}, errWNFormat
		}
		syn.words = append(syn.words, strings.ReplaceAll(w, "_", " "))
	}
	i := 4 + 2*int(nw)
	np, err := strconv.Atoi(f[i])
	if err != nil || np < 0 || len(f) < i+1+4*np {
		return wnSynset{}, errWNFormat
	}
	for k := range np {
		p := f[i+1+4*k : i+5+4*k]
		poff, err := strconv.ParseUint(p[1], 10, 32)
		if err != nil || len(p[2]) != 1 || wnPOSIndex(p[2][0]) < 0 {
			return wnSynset{}, errWNFormat
		}
		if _, err := strconv.ParseUint(p[3], 16, 16); err != nil {
			return wnSynset{}, errWNFormat
		}
		syn.ptrs = append(syn.ptrs, wnPointer{sym: p[0], off: uint32(poff), pos: p[2][0]})
	}
	return syn, nil
}

// wordNet is an English WordNet database directory.
type wordNet struct {
	dir      string
	cacheDir string       // Config.CacheDir
	index    [4]*dataFile // nil when the part of speech is absent
	data     [4]*dataFile
	ki       keyIndex

	excOnce sync.Once
	exc     *exceptions

	loaded    atomic.Bool
	countOnce sync.Once
	entries   atomic.Int64
}

func isWordNetDir(dir string) bool {
	for _, f := range []string{"index.noun", "data.noun"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// openWordNet opens the database in dir and checks the first entry of
// index.noun.
func openWordNet(dir string) (_ resource, err error) {
	w := &wordNet{dir: dir}
	defer func() {
		if err != nil {
			w.close()
			err = fmt.Errorf("thesaurus: wordnet %s: %w", dir, err)
		}
	}()
	for i, p := range wnPOS {
		for _, kind := range []string{"index", "data"} {
			f, err := openData(filepath.Join(dir, kind+"."+p.name))
			if err != nil {
				if i == 0 || !errors.Is(err, os.ErrNotExist) {
					return nil, err
				}
				continue
			}
			if kind == "index" {
				w.index[i] = f
			} else {
				w.data[i] = f
			}
		}
		if (w.index[i] == nil) != (w.data[i] == nil) {
			return nil, fmt.Errorf("%s: index and data files must come together", p.name)
		}
	}
	lines, err := readLines(w.index[0], 0, 64)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if len(l) == 0 || l[0] == ' ' {
			continue
		}
		if _, err := parseIndexLine(l); err != nil {
			return nil, fmt.Errorf("index.noun: %w", err)
		}
		return w, nil
	}
	return nil, fmt.Errorf("index.noun: %w", errWNFormat)
}

func (w *wordNet) script() *unicode.RangeTable { return unicode.Latin }

func (w *wordNet) path() string { return w.dir }

func (w *wordNet) source() Source {
	w.countOnce.Do(func() {
		if w.loaded.Load() {
			return
		}
		n := 0
		for _, f := range w.index {
			if f == nil {
				continue
			}
			if b, err := readAll(f); err == nil {
				eachLine(b, func(_ int, l []byte) {
					if len(l) > 0 && l[0] != ' ' {
						n++
					}
				})
			}
		}
		w.entries.Store(int64(n))
	})
	return Source{Name: "wordnet", Lang: "en", Path: w.dir, Entries: int(w.entries.Load()), Loaded: w.loaded.Load()}
}

func (w *wordNet) load() error {
	var files []string
	for i, f := range w.index {
		if f != nil {
			files = append(files, filepath.Join(w.dir, "index."+wnPOS[i].name), filepath.Join(w.dir, "data."+wnPOS[i].name))
		}
	}
	n, err := cached(w.cacheDir, "wordnet", files, w.build, &w.ki)
	if err != nil {
		return err
	}
	w.countOnce.Do(func() {})
	w.entries.Store(n)
	w.loaded.Store(true)
	return nil
}

// build indexes the headwords of the index files (load, when the cache
// has them not).
func (w *wordNet) build() (int64, error) {
	n := 0
	for i, f := range w.index {
		if f == nil {
			continue
		}
		b, err := readAll(f)
		if err != nil {
			return 0, fmt.Errorf("thesaurus: wordnet %s: %w", w.dir, err)
		}
		if len(b) >= 1<<30 {
			return 0, fmt.Errorf("thesaurus: wordnet %s: index.%s too large", w.dir, wnPOS[i].name)
		}
		eachLine(b, func(off int, l []byte) {
			if len(l) == 0 || l[0] == ' ' {
				return
			}
			n++
			lemma, _, _ := bytes.Cut(l, []byte{' '})
			if isSingleWord(lemma) {
				w.ki.add(Key(string(lemma)), uint32(i)<<30|uint32(off))
			} else if i == 0 && isCompound(lemma) {
				// Two-word nouns ("board_game"), for Members.
				w.ki.add(compoundKey(string(lemma)), uint32(i)<<30|uint32(off))
			}
		})
	}
	w.ki.finish()
	return int64(n), nil
}

func (w *wordNet) synset(pos byte, off uint32) (wnSynset, bool) {
	i := wnPOSIndex(pos)
	if i < 0 || w.data[i] == nil {
		return wnSynset{}, false
	}
	lines, err := readLines(w.data[i], int64(off), 1)
	if err != nil || len(lines) == 0 {
		return wnSynset{}, false
	}
	s, err := parseDataLine(lines[0])
	return s, err == nil && s.off == off
}

func (w *wordNet) lookup(q query, c *collector) {
	var entries []wnIndexEntry
	var heads []string
	exact := false
	for i, key := range q.keys {
		for _, o := range w.ki.find(key) {
			lines, err := readLines(w.index[o>>30], int64(o&(1<<30-1)), 1)
			if err != nil || len(lines) == 0 {
				continue
			}
			e, err := parseIndexLine(lines[0])
			if head := words.Fold(e.lemma); err == nil && q.accept(i, head, exact) {
				entries = append(entries, e)
				heads = append(heads, head)
				exact = exact || head == q.forms[0]
			}
		}
	}
	factors := q.siblingWeights(heads)
	for k, e := range entries {
		factor := factors[k]
		for i, off := range e.synsets {
			if i >= c.maxSenses {
				break
			}
			syn, ok := w.synset(e.pos, off)
			if !ok || factor < 1 && isProperName(syn.words[0]) {
				continue // names reached only through a shared stem are noise
			}
			for _, word := range syn.words {
				c.add(word, Synonym, factor*senseWeight(Synonym, i))
			}
			narrower := 0
			for _, p := range syn.ptrs {
				var rel Relation
				switch p.sym {
				case "@", "@i":
					rel = Broader
				case "~", "~i":
					if narrower++; narrower > maxNarrower {
						continue
					}
					rel = Narrower
				case "&":
					rel = Similar
				case "%p", "#p":
					// A place's parts and wholes: Portugal and Lisbon.
					if !isProperName(syn.words[0]) {
						continue
					}
					rel = Associated
				default:
					continue
				}
				if t, ok := w.synset(p.pos, p.off); ok {
					for _, word := range t.words {
						c.add(word, rel, factor*senseWeight(rel, i))
					}
				}
			}
		}
	}
}

func (w *wordNet) close() error {
	var errs []error
	for i := range w.index {
		for _, f := range []*dataFile{w.index[i], w.data[i]} {
			if f != nil {
				errs = append(errs, f.Close())
			}
		}
		w.index[i], w.data[i] = nil, nil
	}
	return errors.Join(errs...)
}

// isSingleWord reports whether a headword is one word (letters only), the
// only kind a word lookup can reach.
func isSingleWord(w []byte) bool {
	if len(w) == 0 {
		return false
	}
	for _, r := range string(w) {
		if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) {
			return false
		}
	}
	return true
}

// isCompound reports whether a headword is two words joined by an
// underscore.
func isCompound(w []byte) bool {
	a, b, ok := bytes.Cut(w, []byte{'_'})
	return ok && isSingleWord(a) && isSingleWord(b)
}

// eachLine calls fn with the offset and bytes of every line of b.
func eachLine(b []byte, fn func(off int, line []byte)) {
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b) - off
		}
		fn(off, bytes.TrimSuffix(b[off:off+end], []byte{'\r'}))
		off += end + 1
	}
}

// isProperName reports whether a synset word is capitalised.
func isProperName(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}
