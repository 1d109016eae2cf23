package tokenize

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Counting by pieces. A byte-level BPE encoding first cuts the text into
// pieces with its split pattern and encodes each piece on its own, so a
// text's count is the sum of its pieces' counts. o200k_base's pattern is
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// which the tokenizer library runs through a backtracking regular
// expression engine (\s is unicode.IsSpace, \p{X} Go's unicode tables).
// splitO200k cuts text exactly as that engine does, written out by hand
// (TestSplitO200kMatchesRegexp compares the two), and the count of each
// distinct piece is remembered (pieceCache): most pieces of a store's
// texts are words seen before. A piece counted on its own gives the count
// it has within the text: the pattern matches it again whole, since
// nothing of it depends on what follows it but the lookahead of \s+(?!\S),
// which the end of the piece satisfies as well.

// splitO200k calls piece with each piece of the valid UTF-8 text s, in
// order.
func splitO200k(s string, piece func(string)) {
	for i := 0; i < len(s); {
		if s[i] == 0x7f {
			// Within this pattern the engine matches U+007F with none of
			// the classes that hold it ([^\r\n\p{L}\p{N}] and
			// [^\s\p{L}\p{N}], which do when compiled alone): it is in no
			// piece, and no token.
			i++
			continue
		}
		n := matchASCIIWord(s, i)
		if n == 0 {
			n = matchO200k(s, i)
		}
		piece(s[i : i+n])
		i += n
	}
}

// at returns the rune at byte offset i of s and its size, or (-1, 0) at
// the end.
func at(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isL(r rune) bool {
	return r >= 0 && (r < utf8.RuneSelf && asciiLetter(r) || r >= utf8.RuneSelf && unicode.IsLetter(r))
}
func isN(r rune) bool {
	return r >= 0 && (r < utf8.RuneSelf && r >= '0' && r <= '9' || r >= utf8.RuneSelf && unicode.IsNumber(r))
}
func asciiLetter(r rune) bool { return r|0x20 >= 'a' && r|0x20 <= 'z' }

// isSpace is \s.
func isSpace(r rune) bool { return r >= 0 && unicode.IsSpace(r) }

// isPrefix is [^\r\n\p{L}\p{N}].
// (U+007F excepted: see splitO200k).
func isPrefix(r rune) bool {
	return r >= 0 && r != 0x7f && r != '\r' && r != '\n' && !isL(r) && !isN(r)
}

// isUpper is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpper(r rune) bool {
	if r < 0 {
		return false
	}
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLower is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLower(r rune) bool {
	if r < 0 {
		return false
	}
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isPunct is [^\s\p{L}\p{N}].
// (U+007F excepted: see splitO200k).
func isPunct(r rune) bool { return r >= 0 && r != 0x7f && !isSpace(r) && !isL(r) && !isN(r) }

// run returns the end of the longest run of runes from byte offset i that
// satisfy in.
func run(s string, i int, in func(rune) bool) int {
	for {
		r, n := at(s, i)
		if !in(r) {
			return i
		}
		i += n
	}
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at byte
// offset i, 0 when there is none. Case-insensitive as the engine is: by
// Unicode simple case folding, so the long s (ſ) is an s.
func contraction(s string, i int) int {
	if r, _ := at(s, i); r != '\'' {
		return 0
	}
	r1, n1 := at(s, i+1)
	var want rune
	switch {
	case foldsTo(r1, 's'), foldsTo(r1, 't'), foldsTo(r1, 'm'), foldsTo(r1, 'd'):
		return 1 + n1
	case foldsTo(r1, 'r'), foldsTo(r1, 'v'):
		want = 'e'
	case foldsTo(r1, 'l'):
		want = 'l'
	default:
		return 0
	}
	if r2, n2 := at(s, i+1+n1); foldsTo(r2, want) {
		return 1 + n1 + n2
	}
	return 0
}

// foldsTo reports whether r equals the lower-case ASCII letter c under
// simple case folding.
func foldsTo(r, c rune) bool {
	if r < 0 {
		return false
	}
	if r < utf8.RuneSelf {
		return r|0x20 == c
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == c {
			return true
		}
	}
	return false
}

// letters matches, at byte offset i, [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*
// followed by [\p{Ll}\p{Lm}\p{Lo}\p{M}]+ (or, second, the first class
// + and the second *), as the backtracking engine does, and returns the
// end, or -1.
func letters(s string, i int, second bool) int {
	// j runs over the greedy run of the first class; the last position
	// within it (or at its end) where a rune of the second class starts is
	// where the engine, giving back runes, finds the second class.
	j, from := i, -1
	for {
		r, n := at(s, j)
		if isLower(r) {
			from = j
		}
		if !isUpper(r) {
			break
		}
		j += n
	}
	if second {
		if j == i {
			return -1
		}
		return run(s, j, isLower)
	}
	if from < 0 {
		return -1
	}
	return run(s, from, isLower)
}

// matchASCIIWord returns the byte length of the piece at byte offset i
// of s when it is the commonest kind, ASCII all through: an optional
// prefix ([^\r\n\p{L}\p{N}]) and a word of ASCII letters, [A-Z]*[a-z]+
// or else [A-Z]+, that ends at the end of s or before an ASCII byte that
// cannot continue it nor start a contraction. It returns 0 for anything
// else, which matchO200k decides: a byte past ASCII may be a letter or
// mark that continues the word.
func matchASCIIWord(s string, i int) int {
	j := i
	if c := s[j]; !asciiLetter(rune(c)) {
		if c >= utf8.RuneSelf || c == '\r' || c == '\n' || c == 0x7f || c >= '0' && c <= '9' {
			return 0
		}
		j++ // a prefix
	}
	k := j
	for k < len(s) && s[k] >= 'A' && s[k] <= 'Z' {
		k++
	}
	m := k
	for m < len(s) && s[m] >= 'a' && s[m] <= 'z' {
		m++
	}
	if m == j { // no letter after the prefix
		return 0
	}
	// Both branches stop where the run of lower case (or, without one, of
	// upper case) does; the next byte decides whether that is the end.
	if m < len(s) {
		if c := s[m]; c >= utf8.RuneSelf || c == '\'' {
			return 0
		}
	}
	return m - i
}

// matchO200k returns the byte length of the piece that starts at byte
// offset i of s (at least one rune).
func matchO200k(s string, i int) int {
	r0, n0 := at(s, i)
	// Branches 1 and 2: an optional prefix rune, then letters.
	for _, second := range []bool{false, true} {
		if isPrefix(r0) {
			if e := letters(s, i+n0, second); e >= 0 {
				return e + contraction(s, e) - i
			}
		}
		if e := letters(s, i, second); e >= 0 {
			return e + contraction(s, e) - i
		}
	}
	// \p{N}{1,3}
	if isN(r0) {
		e := i + n0
		for k := 0; k < 2; k++ {
			r, n := at(s, e)
			if !isN(r) {
				break
			}
			e += n
		}
		return e - i
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
	p := i
	if r0 == ' ' {
		p = i + 1
	}
	if r, _ := at(s, p); isPunct(r) {
		e := run(s, p, isPunct)
		e = run(s, e, func(r rune) bool { return r == '\r' || r == '\n' || r == '/' })
		return e - i
	}
	// \s*[\r\n]+. The library's engine runs it, within this pattern, as
	// [^\S\r\n]*[\r\n]+: the spaces up to the first line break of the
	// run, and the line breaks that follow it (on "\n \n" it matches "\n",
	// not the whole; the test holds the engine to it).
	w := run(s, i, isSpace)
	for j := i; j < w; {
		r, n := at(s, j)
		if r == '\r' || r == '\n' {
			return run(s, j, func(r rune) bool { return r == '\r' || r == '\n' }) - i
		}
		j += n
	}
	// \s+(?!\S), then \s+.
	if w > i {
		if w == len(s) {
			return w - i
		}
		_, last := utf8.DecodeLastRuneInString(s[i:w])
		if w-last > i {
			return w - last - i
		}
		return w - i
	}
	// Unreachable: every rune is a letter, a number, a space or none of
	// them, and one of the branches above matches each.
	return n0
}

// pieceCache remembers the token counts of pieces, up to pieceCacheMax of
// them (then it stops adding: a store's common pieces come early). A text
// looks all its pieces up under one read lock (count).
type pieceCache struct {
	mu sync.RWMutex
	m  map[string]int
}

const (
	pieceCacheMax = 1 << 16
	pieceMaxBytes = 48
)

// count returns the sum of the counts of text's pieces (splitO200k), each
// looked up here or else counted by codec and remembered.
func (c *pieceCache) count(text string, codec func(string) int) int {
	total := 0
	var miss []string
	c.mu.RLock()
	splitO200k(text, func(p string) {
		if n, ok := c.m[p]; ok {
			total += n
		} else {
			miss = append(miss, p)
		}
	})
	c.mu.RUnlock()
	for _, p := range miss {
		n := codec(p)
		total += n
		c.add(p, n)
	}
	return total
}

func (c *pieceCache) add(p string, n int) {
	if len(p) > pieceMaxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]int)
	}
	if len(c.m) >= pieceCacheMax {
		return
	}
	if _, ok := c.m[p]; !ok {
		c.m[string([]byte(p))] = n
	}
}
