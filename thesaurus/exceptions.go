package thesaurus

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// WordNet's exception lists (noun.exc, verb.exc, adj.exc, adv.exc; one
// "inflected base…" pair a line, wndb(5)) name the English inflections no
// suffix rule undoes: bought/buy, went/go, children/child, better/good. A
// stemmer keeps them apart, so a question about buying would never meet a
// memory that says "bought".

// exceptions maps irregular inflections to their base forms and back,
// folded.
type exceptions struct {
	base  map[string][]string // inflection -> base forms
	forms map[string][]string // base form -> inflections
}

// readExceptions reads the exception lists of the WordNet database in dir;
// a missing list is skipped, a malformed line ignored.
func readExceptions(dir string) *exceptions {
	x := &exceptions{base: map[string][]string{}, forms: map[string][]string{}}
	for _, p := range wnPOS {
		b, err := os.ReadFile(filepath.Join(dir, p.name+".exc"))
		if err != nil {
			continue
		}
		x.parse(b)
	}
	return x
}

// parse adds the pairs of one exception list; a malformed line is ignored.
func (x *exceptions) parse(b []byte) {
	eachLine(b, func(_ int, l []byte) {
		f := bytes.Fields(l)
		if len(f) < 2 || !isSingleWord(f[0]) {
			return
		}
		infl := words.Fold(string(f[0]))
		if infl == "" { // accents only, which folding removes
			return
		}
		for _, bw := range f[1:] {
			if !isSingleWord(bw) {
				continue
			}
			base := words.Fold(string(bw))
			if base == infl || base == "" {
				continue
			}
			if !slices.Contains(x.base[infl], base) {
				x.base[infl] = append(x.base[infl], base)
			}
			if !slices.Contains(x.forms[base], infl) {
				x.forms[base] = append(x.forms[base], infl)
			}
		}
	})
}

// Variants returns the irregular English forms related to word by
// WordNet's exception lists, folded: a base form's irregular inflections
// ("buy": bought; "child": children) and an inflection's base forms
// ("bought": buy). Nothing without WordNet, or for a regular word. The
// result is shared: callers must not modify it.
func (t *Thesaurus) Variants(word string) []string {
	w := t.wordNet()
	if w == nil {
		return nil
	}
	x := w.exceptions()
	f := words.Fold(strings.TrimSpace(word))
	if len(x.base[f]) == 0 {
		return x.forms[f]
	}
	if len(x.forms[f]) == 0 {
		return x.base[f]
	}
	return append(slices.Clip(x.base[f]), x.forms[f]...)
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
	w.excOnce.Do(func() { w.exc = readExceptions(w.dir) })
	return w.exc
}
