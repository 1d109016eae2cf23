package thesaurus

import (
	"strings"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// Members: the kinds and instances WordNet files under a noun.
//
// A question names a category ("which cities", "what instruments", "board
// games") where the memory that answers it names a member (Paris, the
// clarinet, chess): no shared word, no synonym, and one level of hyponyms
// rarely reaches (the clarinet is four levels below "musical instrument").
// Members walks the hyponym and instance-hyponym pointers of the noun's
// commonest senses down to maxMemberDepth, and gives up on a sense whose
// kinds outnumber maxMemberSynsets: "activity" or "event" holds most of
// the language and points at nothing in particular.

const (
	// maxMemberSynsets bounds a sense's closure: larger ones are too
	// general to expand (city: 915 synsets, musical instrument: 164,
	// activity: 3,118, person: 10,015).
	maxMemberSynsets = 1000
	// maxMemberDepth bounds how far below the noun a member may be.
	maxMemberDepth = 6
	// memberDecay scales a member's weight per level below the first.
	memberDecay = 0.85
	// memberBase scales the weight of a direct hyponym for a member: a
	// member of the category a question asks for is as good as a synonym
	// (0.8, chosen on LoCoMo conversations 1–5 among 0.4–1.0, which moved
	// recall@10 by less than 0.003).
	memberBase = 2.0
)

// Members returns the one-word kinds and instances of a noun (one word, or
// a two-word compound such as "board games" given as two words), best
// first: nearer levels and commoner senses weigh more, every weight below
// that of a direct hyponym. Only English WordNet has such a hierarchy;
// without it Members returns nothing. The result is shared: callers must
// not modify it.
func (t *Thesaurus) Members(word ...string) []Related {
	if t == nil || len(word) == 0 || len(word) > 2 {
		return nil
	}
	var wn *lazyResource
	for _, r := range t.res {
		if _, ok := r.resource.(*wordNet); ok {
			wn = r
		}
	}
	if wn == nil {
		return nil
	}
	folded := make([]string, len(word))
	for i, w := range word {
		folded[i] = words.Fold(strings.TrimSpace(w))
		if len([]rune(words.Stem(folded[i]))) < 2 || scriptOf(folded[i]) != unicode.Latin {
			return nil
		}
	}
	key := "members\x00" + strings.Join(folded, "_")
	if out, ok := t.fromCache(key); ok {
		return out
	}
	var out []Related
	if wn.ensure() == nil {
		c := &collector{maxSenses: t.maxSenses, best: map[string]int{}, source: wn.source().Name}
		wn.resource.(*wordNet).members(folded, c)
		out = c.result(maxMemberSynsets)
	}
	t.cached(key, out)
	return out
}

// members adds the members of the noun senses of the folded word (or
// two-word compound) to c.
func (w *wordNet) members(folded []string, c *collector) {
	// The head's lemmas: "cities" is "city", "board games" is "board game".
	last := newQuery(folded[len(folded)-1], unicode.Latin)
	var heads []string
	for _, f := range last.forms {
		if len(folded) == 2 {
			f = folded[0] + "_" + f
		}
		heads = append(heads, f)
	}
	keys := map[string]bool{}
	for _, h := range heads {
		keys[compoundKey(h)] = true
	}
	seen := map[uint32]bool{}
	for k := range keys {
		for _, o := range w.ki.find(k) {
			if o>>30 != 0 { // nouns only
				continue
			}
			lines, err := readLines(w.index[0], int64(o&(1<<30-1)), 1)
			if err != nil || len(lines) == 0 {
				continue
			}
			e, err := parseIndexLine(lines[0])
			if err != nil || !containsFold(heads, e.lemma) {
				continue
			}
			c.self = append(c.self, Key(folded[len(folded)-1]))
			for i, off := range e.synsets {
				if i >= c.maxSenses || seen[off] {
					break
				}
				seen[off] = true
				w.closure(off, memberBase*senseWeight(Narrower, i), c)
			}
		}
	}
}

// closure adds the one-word members of the noun synset at off, unless it
// has more than maxMemberSynsets of them.
func (w *wordNet) closure(off uint32, weight float64, c *collector) {
	type item struct {
		off   uint32
		depth int
	}
	seen := map[uint32]bool{off: true}
	queue := []item{{off, 0}}
	var found []item
	var lemmas [][]string
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		syn, ok := w.synset('n', it.off)
		if !ok {
			continue
		}
		if it.depth > 0 {
			found = append(found, it)
			lemmas = append(lemmas, syn.words)
			if len(found) > maxMemberSynsets {
				return // too general to point at anything
			}
		}
		if it.depth == maxMemberDepth {
			continue
		}
		for _, p := range syn.ptrs {
			if (p.sym == "~" || p.sym == "~i") && p.pos == 'n' && !seen[p.off] {
				seen[p.off] = true
				queue = append(queue, item{p.off, it.depth + 1})
			}
		}
	}
	for i, it := range found {
		wt := weight
		for range it.depth - 1 {
			wt *= memberDecay
		}
		for _, lemma := range lemmas[i] {
			if !strings.Contains(lemma, " ") && !strings.Contains(lemma, "-") {
				c.add(lemma, Narrower, wt)
			}
		}
	}
}

// compoundKey is the key-index key of a headword of one word or of words
// joined by underscores ("board_game"): each word's Key, joined by "_".
func compoundKey(h string) string {
	parts := strings.Split(h, "_")
	for i, p := range parts {
		parts[i] = Key(p)
	}
	return strings.Join(parts, "_")
}

// containsFold reports whether lemma, folded, is one of heads.
func containsFold(heads []string, lemma string) bool {
	l := words.Fold(lemma)
	for _, h := range heads {
		if h == l {
			return true
		}
	}
	return false
}
