// Package tokenize counts tokens exactly with the BPE vocabularies of
// OpenAI models, those of github.com/tiktoken-go/tokenizer. o200k_base,
// the default, is counted from a table of that vocabulary the binary
// carries (ranks.go), so that a short-lived process does not build the
// library's map of it; cl100k_base, long pieces and invalid UTF-8 are
// counted by the library.
//
// Token counts are what mnemo budgets digests with, so they are exact: a
// Count is the number of tokens the encoding produces for the text as given,
// byte for byte, without normalisation.
package tokenize

import (
	"sync"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/tiktoken-go/tokenizer"
)

// Default is the encoding New uses when given an empty name.
const Default = "o200k_base"

// Names lists the encodings New accepts.
var Names = []string{"o200k_base", "cl100k_base"}

// Tokenizer counts tokens of one encoding. It implements mnemo.Tokenizer and
// is safe for concurrent use.
type Tokenizer struct {
	name string
	// codec is the library's codec, loaded on first use: at once for an
	// encoding counted by the library, only for invalid UTF-8 and pieces
	// of bpeMax bytes or more when the vocabulary is also in ranks.
	codec func() (tokenizer.Codec, error)
	// pieces counts by pieces (split.go) when the encoding's split is
	// written out here (o200k_base), nil otherwise.
	pieces *pieceCache
	// bpe is the encoding's vocabulary as the embedded table (ranks.go),
	// nil when there is none.
	bpe *ranks
}

// entry loads one encoding at most once per process.
type entry struct {
	enc  tokenizer.Encoding
	once sync.Once
	tok  *Tokenizer
	err  error
}

var encodings = map[string]*entry{
	"o200k_base":  {enc: tokenizer.O200kBase},
	"cl100k_base": {enc: tokenizer.Cl100kBase},
}

// New returns the tokenizer of the named encoding: "o200k_base" (the
// default, also for "") or "cl100k_base". Each encoding's vocabulary is
// loaded once per process and shared by every caller.
//
// Errors: EINVALID for an unknown encoding name.
func New(name string) (mnemo.Tokenizer, error) {
	return Get(name)
}

// Get is New with the concrete type.
func Get(name string) (*Tokenizer, error) {
	if name == "" {
		name = Default
	}
	e, ok := encodings[name]
	if !ok {
		return nil, mnemo.Errorf(mnemo.EINVALID, "unknown tokenizer %q (known: o200k_base, cl100k_base)", name)
	}
	e.once.Do(func() {
		codec := sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(e.enc) })
		e.tok = &Tokenizer{name: name, codec: codec}
		if name == "o200k_base" {
			e.tok.pieces = &pieceCache{}
			if r, ok := parseRanks(o200kRanksFile); ok {
				e.tok.bpe = &r
				return
			}
		}
		if _, err := codec(); err != nil {
			e.err = mnemo.Errorf(mnemo.EINTERNAL, "load tokenizer %s: %v", name, err)
			e.tok = nil
		}
	})
	return e.tok, e.err
}

// Name returns the encoding name, e.g. "o200k_base".
func (t *Tokenizer) Name() string { return t.name }

// Count returns the number of tokens of text. Invalid UTF-8 is counted as
// given (byte-level BPE). Should the encoder ever fail, Count returns the
// byte length of text, an upper bound of any byte-level BPE count, so token
// budgets are never exceeded.
func (t *Tokenizer) Count(text string) int {
	if text == "" {
		return 0
	}
	if t.pieces != nil && utf8.ValidString(text) {
		if t.bpe != nil {
			return t.pieces.count(text, t.countPiece)
		}
		return t.pieces.count(text, t.countCodec)
	}
	return t.countCodec(text)
}

// countPiece counts one piece with the embedded table, or the library
// when it is long.
func (t *Tokenizer) countPiece(piece string) int {
	if len(piece) < bpeMax {
		return t.bpe.count(piece)
	}
	return t.countCodec(piece)
}

// countCodec counts text with the library's own split.
func (t *Tokenizer) countCodec(text string) int {
	c, err := t.codec()
	if err != nil {
		return len(text)
	}
	n, err := c.Count(text)
	if err != nil {
		return len(text)
	}
	return n
}

// Lazy returns a tokenizer of the named encoding whose vocabulary starts
// loading in the background now; the first Count waits for it. Short-lived
// processes use it to overlap the load (tens of milliseconds) with other
// start-up work. Errors: EINVALID for an unknown encoding name.
func Lazy(name string) (mnemo.Tokenizer, error) {
	if name == "" {
		name = Default
	}
	if _, ok := encodings[name]; !ok {
		return nil, mnemo.Errorf(mnemo.EINVALID, "unknown tokenizer %q (known: o200k_base, cl100k_base)", name)
	}
	l := &lazy{name: name}
	go l.get()
	return l, nil
}

type lazy struct {
	name string
	once sync.Once
	tok  *Tokenizer
}

func (l *lazy) get() *Tokenizer {
	l.once.Do(func() { l.tok, _ = Get(l.name) })
	return l.tok
}

// Name returns the encoding name.
func (l *lazy) Name() string { return l.name }

// Count waits for the vocabulary and counts text; if it failed to load, it
// returns the byte length, an upper bound of any byte-level BPE count.
func (l *lazy) Count(text string) int {
	if t := l.get(); t != nil {
		return t.Count(text)
	}
	return len(text)
}
