package thesaurus

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// WordNet's exception lists (noun.exc, verb.exc, adj.exc, adv.exc; one
// "inflected base…" pair a line, wndb(5)) name the English inflections no
// suffix rule undoes: bought/buy, went/go, children/child, better/good. A
// stemmer keeps them apart, so a question about buying would never meet a
// memory that says "bought".

// exceptions indexes WordNet's exception lists both ways, folded: by
// inflection and by base form, each key naming the lines that hold it
// (the list's number in the top two bits, the line's offset below). The
// lines are read from the lists as they are asked for, and the two
// indexes go to the cache beside WordNet's own (cache.go), so that a
// process reads no list whole: parsing them into maps took 10 ms of every
// hook and one-shot command.
type exceptions struct {
	lists [4][]byte // by wnPOS, nil when missing (mapped when the system maps files)
	infl  keyIndex  // folded inflection -> lines
	base  keyIndex  // folded base form -> lines
}

// excRef names line off of list i.
func excRef(i, off int) uint32 { return uint32(i)<<30 | uint32(off) }

// readExceptions opens the exception lists of the WordNet database in dir
// and indexes them, from the cache in cacheDir ("" for none) when it is
// current; a missing list is skipped, a malformed line ignored.
func readExceptions(dir, cacheDir string) *exceptions {
	x := &exceptions{}
	var files []string
	for i, p := range wnPOS {
		path := filepath.Join(dir, p.name+".exc")
		f, err := openData(path)
		if err != nil {
			continue
		}
		b, err := readAll(f)
		f.Close()
		if err != nil || len(b) >= 1<<30 {
			continue
		}
		x.lists[i] = b
		files = append(files, path)
	}
	if len(files) == 0 {
		return x
	}
	if _, err := cached(cacheDir, "wordnet-exceptions", files, x.build, &x.infl, &x.base); err != nil {
		return &exceptions{}
	}
	return x
}

// build indexes the lists (when the cache cannot answer).
func (x *exceptions) build() (int64, error) {
	var fields [][]byte
	pairs := int64(0)
	for i, b := range x.lists {
		eachLine(b, func(off int, l []byte) {
			infl, bases := x.pairs(l, fields[:0])
			fields = bases[:0]
			if infl == "" || len(bases) == 0 {
				return
			}
			x.infl.add(infl, excRef(i, off))
			for _, bw := range bases {
				x.base.add(words.Fold(string(bw)), excRef(i, off))
				pairs++
			}
		})
	}
	x.infl.finish()
	x.base.finish()
	return pairs, nil
}

// pairs parses one line: its inflection, folded ("" for a malformed
// line), and the fields of the base forms that are single words other
// than it (appended to out's array).
func (x *exceptions) pairs(l []byte, out [][]byte) (string, [][]byte) {
	fields := appendFields(out, l)
	if len(fields) < 2 || !isSingleWord(fields[0]) {
		return "", nil
	}
	infl := words.Fold(string(fields[0]))
	if infl == "" || len(infl) > maxKey { // accents only, which folding removes; or not a word
		return "", nil
	}
	bases := fields[:0]
	for _, bw := range fields[1:] {
		if isSingleWord(bw) {
			if b := words.Fold(string(bw)); b != infl && b != "" && len(b) <= maxKey {
				bases = append(bases, bw)
			}
		}
	}
	return infl, bases
}

// line returns the line ref names.
func (x *exceptions) line(ref uint32) []byte {
	b := x.lists[ref>>30]
	off := int(ref & (1<<30 - 1))
	if off >= len(b) {
		return nil // a cache of other lists: their stamp would differ
	}
	l := b[off:]
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	return bytes.TrimSuffix(l, []byte{'\r'})
}

// lookup returns the base forms of inflection w (bases) or the
// inflections of base form w, folded, each once, in the lists' order.
func (x *exceptions) lookup(w string, bases bool) []string {
	idx := &x.base
	if bases {
		idx = &x.infl
	}
	var out []string
	var fields [][]byte
	for _, ref := range idx.find(w) {
		infl, bs := x.pairs(x.line(ref), fields[:0])
		fields = bs[:0]
		for _, bw := range bs {
			b := words.Fold(string(bw))
			switch {
			case bases && infl == w && !slices.Contains(out, b):
				out = append(out, b)
			case !bases && b == w && !slices.Contains(out, infl):
				out = append(out, infl)
			}
		}
	}
	return out
}

// appendFields appends the fields of l, as bytes.Fields cuts them, to
// out (whose array is reused from line to line).
func appendFields(out [][]byte, l []byte) [][]byte {
	for len(l) > 0 {
		i := bytes.IndexFunc(l, func(r rune) bool { return !unicode.IsSpace(r) })
		if i < 0 {
			break
		}
		l = l[i:]
		j := bytes.IndexFunc(l, unicode.IsSpace)
		if j < 0 {
			j = len(l)
		}
		out = append(out, l[:j:j])
		l = l[j:]
	}
	return out
}

// Variants returns the irregular English forms related to word by
// WordNet's exception lists, folded: a base form's irregular inflections
// ("buy": bought; "child": children) and an inflection's base forms
// ("bought": buy). Nothing without WordNet, or for a regular word.
func (t *Thesaurus) Variants(word string) []string {
	w := t.wordNet()
	if w == nil {
		return nil
	}
	x := w.exceptions()
	f := words.Fold(strings.TrimSpace(word))
	if f == "" {
		return nil
	}
	return append(x.lookup(f, true), x.lookup(f, false)...)
}

// wordNet returns the WordNet resource, nil when there is none or it
// cannot be indexed.
func (t *Thesaurus) wordNet() *wordNet {
	if t == nil {
		return nil
	}
	for _, r := range t.res {
		if w, ok := r.resource.(*wordNet); ok && r.ensure() == nil {
			return w
		}
	}
	return nil
}

// exceptions returns the database's exception lists, read on first use.
func (w *wordNet) exceptions() *exceptions {
	w.excOnce.Do(func() { w.exc = readExceptions(w.dir, w.cacheDir) })
	return w.exc
}
