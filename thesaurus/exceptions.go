package thesaurus

import (
	"bytes"
	"os"
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

// exceptions maps irregular inflections to their base forms and back,
// folded.
type exceptions struct {
	base  map[string][]string // inflection -> base forms
	forms map[string][]string // base form -> inflections
}

// readExceptions reads the exception lists of the WordNet database in dir;
// a missing list is skipped, a malformed line ignored.
func readExceptions(dir string) *exceptions {
	var lists [][]byte
	lines := 0
	for _, p := range wnPOS {
		b, err := os.ReadFile(filepath.Join(dir, p.name+".exc"))
		if err != nil {
			continue
		}
		lists = append(lists, b)
		lines += bytes.Count(b, []byte{'\n'}) + 1
	}
	// Sized once: grown pair by pair, the maps were most of the cost.
	x := &exceptions{base: make(map[string][]string, lines), forms: make(map[string][]string, lines)}
	for _, b := range lists {
		x.parse(b)
	}
	return x
}

// parse adds the pairs of one exception list; a malformed line is ignored.
func (x *exceptions) parse(b []byte) {
	var fields [][]byte
	eachLine(b, func(_ int, l []byte) {
		fields = appendFields(fields[:0], l)
		if len(fields) < 2 || !isSingleWord(fields[0]) {
			return
		}
		infl := words.Fold(string(fields[0]))
		if infl == "" { // accents only, which folding removes
			return
		}
		for _, bw := range fields[1:] {
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
