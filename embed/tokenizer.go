package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxTokenizerDepth bounds the nesting of Sequence normalizers and
// pre-tokenizers.
const maxTokenizerDepth = 8

// tokenizer is the part of a Hugging Face tokenizer.json that turns a text
// into token ids: a normalizer, a pre-tokenizer splitting the normalized text
// into words, and a model turning each word into ids. Post-processing
// (special tokens, padding, truncation) is not applied.
type tokenizer struct {
	normalize   []normalizer
	preTokenize []preTokenizer
	model       tokenModel
	// vocab is the number of token ids (1 + the largest id).
	vocab int
	// unk is the id of the unknown token, -1 if the model has none.
	unk int
	// special marks ids of special added tokens ([CLS], [SEP], [PAD], …).
	special map[int]bool
	// tokenLens are the lengths in code points of every token, for the
	// median Model2Vec truncates texts by.
	tokenLens []int
}

// tokenModel turns one pre-tokenized word into token ids, appended to ids.
type tokenModel interface {
	tokenize(word string, ids []int32) []int32
}

// normalizer rewrites a whole text.
type normalizer func(string) string

// preTokenizer splits each word into smaller words.
type preTokenizer func(words []string) []string

// tokenizerFile is the subset of tokenizer.json read here.
type tokenizerFile struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        json.RawMessage `json:"model"`
}

// parseTokenizer reads a tokenizer.json. Supported: the WordPiece, Unigram
// and WordLevel models; the BertNormalizer, Lowercase, StripAccents,
// NFC/NFD/NFKC/NFKD, Strip, Replace, Prepend and Sequence normalizers
// (Precompiled is read as NFKC); the BertPreTokenizer, Whitespace,
// WhitespaceSplit, Metaspace, Punctuation and Sequence pre-tokenizers. Other
// types (BPE, ByteLevel, Split, …) are refused with an error naming them.
func parseTokenizer(b []byte) (*tokenizer, error) {
	var f tokenizerFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	t := &tokenizer{unk: -1, special: map[int]bool{}}
	var err error
	if t.normalize, err = parseNormalizer(f.Normalizer, 0); err != nil {
		return nil, fmt.Errorf("tokenizer.json: normalizer: %w", err)
	}
	if t.preTokenize, err = parsePreTokenizer(f.PreTokenizer, 0); err != nil {
		return nil, fmt.Errorf("tokenizer.json: pre_tokenizer: %w", err)
	}
	if err := t.parseModel(f.Model); err != nil {
		return nil, fmt.Errorf("tokenizer.json: model: %w", err)
	}
	for _, a := range f.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("tokenizer.json: added token %q has id %d", a.Content, a.ID)
		}
		if a.Special {
			t.special[a.ID] = true
		}
	}
	return t, nil
}

// kind reads the "type" of a component.
func kind(raw json.RawMessage) (string, error) {
	var k struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", err
	}
	return k.Type, nil
}

// isNull reports whether a component is absent.
func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

func (t *tokenizer) parseModel(raw json.RawMessage) error {
	if isNull(raw) {
		return errors.New("missing")
	}
	typ, err := kind(raw)
	if err != nil {
		return err
	}
	var tokens []string // by id
	switch typ {
	case "WordPiece":
		m, err := parseWordPiece(raw)
		if err != nil {
			return err
		}
		t.model, tokens, t.unk = m, m.tokens, m.unk
	case "Unigram":
		m, err := parseUnigram(raw)
		if err != nil {
			return err
		}
		t.model, tokens, t.unk = m, m.tokens, m.unk
	case "WordLevel":
		m, err := parseWordLevel(raw)
		if err != nil {
			return err
		}
		t.model, tokens, t.unk = m, m.tokens, m.unk
	case "":
		return errors.New(`no "type"`)
	default:
		return fmt.Errorf("type %q is not supported (want WordPiece, Unigram or WordLevel)", typ)
	}
	t.vocab = len(tokens)
	t.tokenLens = make([]int, 0, len(tokens))
	for _, tok := range tokens {
		t.tokenLens = append(t.tokenLens, utf8.RuneCountInString(tok))
	}
	return nil
}

// vocabIDs checks a token → id table and returns the tokens by id.
func vocabIDs(vocab map[string]int) ([]string, error) {
	if len(vocab) == 0 {
		return nil, errors.New("empty vocab")
	}
	tokens := make([]string, len(vocab))
	seen := make([]bool, len(vocab))
	for tok, id := range vocab {
		if id < 0 || id >= len(vocab) {
			return nil, fmt.Errorf("token %q has id %d outside [0, %d)", tok, id, len(vocab))
		}
		if seen[id] {
			return nil, fmt.Errorf("id %d is used twice", id)
		}
		seen[id] = true
		tokens[id] = tok
	}
	return tokens, nil
}

// ids tokenizes text into token ids, appended to ids.
func (t *tokenizer) ids(text string, ids []int32) []int32 {
	// Normalizers may lengthen a text (CJK spacing, Replace); a file whose
	// rules would blow it up is cut short rather than followed.
	limit := 4*len(text) + 1024
	for _, n := range t.normalize {
		if text = n(text); len(text) > limit {
			text = text[:limit]
		}
	}
	words := []string{text}
	for _, p := range t.preTokenize {
		words = p(words)
	}
	for _, w := range words {
		if w != "" {
			ids = t.model.tokenize(w, ids)
		}
	}
	return ids
}

// parseStep reads what normalizers and pre-tokenizers of tokenizer.json
// have in common: null (none), a nesting past maxTokenizerDepth (an error)
// and a Sequence (its list under field, each item parsed by parse), which
// it parses (done); else it returns the step's type for its caller.
func parseStep[T any](raw json.RawMessage, depth int, field string, parse func(json.RawMessage, int) ([]T, error)) (typ string, out []T, done bool, err error) {
	if isNull(raw) {
		return "", nil, true, nil
	}
	if depth > maxTokenizerDepth {
		return "", nil, true, errors.New("nested too deeply")
	}
	if typ, err = kind(raw); err != nil {
		return "", nil, true, err
	}
	if typ == "Sequence" {
		out, err = parseSequence(raw, field, depth, parse)
		return typ, out, true, err
	}
	return typ, nil, false, nil
}

// parseSequence parses a Sequence step of tokenizer.json: the list under
// field, each item parsed by parse one level deeper, flattened in order.
func parseSequence[T any](raw json.RawMessage, field string, depth int, parse func(json.RawMessage, int) ([]T, error)) ([]T, error) {
	var seq map[string]json.RawMessage
	if err := json.Unmarshal(raw, &seq); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if v, ok := seq[field]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, err
		}
	}
	var out []T
	for _, r := range items {
		xs, err := parse(r, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, xs...)
	}
	return out, nil
}

// ---- normalizers ----

func parseNormalizer(raw json.RawMessage, depth int) ([]normalizer, error) {
	typ, out, done, err := parseStep(raw, depth, "normalizers", parseNormalizer)
	if done {
		return out, err
	}
	switch typ {
	case "BertNormalizer":
		var c struct {
			CleanText          *bool `json:"clean_text"`
			HandleChineseChars *bool `json:"handle_chinese_chars"`
			StripAccents       *bool `json:"strip_accents"`
			Lowercase          *bool `json:"lowercase"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		def := func(p *bool, d bool) bool {
			if p == nil {
				return d
			}
			return *p
		}
		b := bertNormalizer{
			clean:     def(c.CleanText, true),
			chinese:   def(c.HandleChineseChars, true),
			lowercase: def(c.Lowercase, true),
		}
		// strip_accents null follows lowercase.
		b.strip = def(c.StripAccents, b.lowercase)
		return []normalizer{b.normalize}, nil
	case "Lowercase":
		return []normalizer{strings.ToLower}, nil
	case "StripAccents":
		return []normalizer{stripMarks}, nil
	case "NFD":
		return []normalizer{norm.NFD.String}, nil
	case "NFKD":
		return []normalizer{norm.NFKD.String}, nil
	case "NFC":
		return []normalizer{norm.NFC.String}, nil
	case "NFKC", "Precompiled":
		// Precompiled holds SentencePiece's character map, in practice NFKC
		// with a few extras; NFKC is read in its place.
		return []normalizer{norm.NFKC.String}, nil
	case "Strip":
		var c struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		return []normalizer{func(s string) string {
			if c.Left {
				s = strings.TrimLeftFunc(s, unicode.IsSpace)
			}
			if c.Right {
				s = strings.TrimRightFunc(s, unicode.IsSpace)
			}
			return s
		}}, nil
	case "Prepend":
		var c struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		return []normalizer{func(s string) string {
			if s == "" {
				return s
			}
			return c.Prepend + s
		}}, nil
	case "Replace":
		var c struct {
			Pattern struct {
				String *string `json:"String"`
				Regex  *string `json:"Regex"`
			} `json:"pattern"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		switch {
		case c.Pattern.String != nil:
			old := *c.Pattern.String
			if old == "" {
				return nil, nil
			}
			return []normalizer{func(s string) string { return strings.ReplaceAll(s, old, c.Content) }}, nil
		case c.Pattern.Regex != nil:
			re, err := regexp.Compile(*c.Pattern.Regex)
			if err != nil {
				return nil, fmt.Errorf("Replace: regex %q: %w", *c.Pattern.Regex, err)
			}
			return []normalizer{func(s string) string { return re.ReplaceAllLiteralString(s, c.Content) }}, nil
		default:
			return nil, errors.New("Replace: no String or Regex pattern")
		}
	case "":
		return nil, errors.New(`no "type"`)
	default:
		return nil, fmt.Errorf("type %q is not supported", typ)
	}
}

// bertNormalizer is the BertNormalizer of Hugging Face tokenizers.
type bertNormalizer struct {
	clean, chinese, strip, lowercase bool
}

func (b bertNormalizer) normalize(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	for _, r := range s {
		if b.clean {
			if r == 0 || r == utf8.RuneError || isBertControl(r) {
				continue
			}
			if isBertSpace(r) {
				r = ' '
			}
		}
		if b.chinese && isCJK(r) {
			sb.WriteByte(' ')
			sb.WriteRune(r)
			sb.WriteByte(' ')
			continue
		}
		sb.WriteRune(r)
	}
	s = sb.String()
	if b.strip {
		s = stripMarks(s)
	}
	if b.lowercase {
		s = strings.ToLower(s)
	}
	return s
}

// stripMarks decomposes s (NFD) and drops its non-spacing marks: "é" → "e".
func stripMarks(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	s = norm.NFD.String(s)
	return strings.Map(func(r rune) rune {
		if r >= 0x300 && unicode.Is(unicode.Mn, r) { // no mark below U+0300
			return -1
		}
		return r
	}, s)
}

// isBertSpace is the whitespace test of BertNormalizer and BertPreTokenizer.
func isBertSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.IsSpace(r)
}

// isBertControl reports control, format, private-use and unassigned
// characters other than tab, newline and carriage return.
func isBertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	if unicode.IsLetter(r) { // the common case, one table
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co) ||
		!unicode.In(r, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cs)
}

// isCJK reports CJK ideographs, which BertNormalizer surrounds with spaces.
func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF ||
		r >= 0x20000 && r <= 0x2A6DF || r >= 0x2A700 && r <= 0x2B73F ||
		r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}

// isBertPunct is the punctuation test of BertPreTokenizer: ASCII punctuation
// (including symbols such as $ + < = > ^ ` | ~) and Unicode P* characters.
func isBertPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '!' && r <= '/' || r >= ':' && r <= '@' || r >= '[' && r <= '`' || r >= '{' && r <= '~'
	}
	return unicode.IsPunct(r)
}

// ---- pre-tokenizers ----

func parsePreTokenizer(raw json.RawMessage, depth int) ([]preTokenizer, error) {
	typ, out, done, err := parseStep(raw, depth, "pretokenizers", parsePreTokenizer)
	if done {
		return out, err
	}
	switch typ {
	case "BertPreTokenizer":
		return []preTokenizer{splitWords(isBertSpace, isBertPunct)}, nil
	case "WhitespaceSplit":
		return []preTokenizer{splitWords(unicode.IsSpace, nil)}, nil
	case "Punctuation":
		var c struct {
			Behavior string `json:"behavior"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		if c.Behavior != "" && c.Behavior != "Isolated" {
			return nil, fmt.Errorf("Punctuation behavior %q is not supported (want Isolated)", c.Behavior)
		}
		return []preTokenizer{splitWords(nil, isBertPunct)}, nil
	case "Whitespace":
		return []preTokenizer{whitespace}, nil
	case "Metaspace":
		var c struct {
			Replacement    string `json:"replacement"`
			PrependScheme  string `json:"prepend_scheme"`
			AddPrefixSpace *bool  `json:"add_prefix_space"`
			Split          *bool  `json:"split"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		m := metaspace{repl: "▁", prepend: true, split: true}
		if c.Replacement != "" {
			if utf8.RuneCountInString(c.Replacement) != 1 {
				return nil, fmt.Errorf("Metaspace replacement %q is not one character", c.Replacement)
			}
			m.repl = c.Replacement
		}
		switch c.PrependScheme {
		case "always", "first":
			m.prepend = true
		case "never":
			m.prepend = false
		case "":
			if c.AddPrefixSpace != nil {
				m.prepend = *c.AddPrefixSpace
			}
		default:
			return nil, fmt.Errorf("Metaspace prepend_scheme %q is unknown", c.PrependScheme)
		}
		if c.Split != nil {
			m.split = *c.Split
		}
		return []preTokenizer{m.preTokenize}, nil
	case "":
		return nil, errors.New(`no "type"`)
	default:
		return nil, fmt.Errorf("type %q is not supported", typ)
	}
}

// splitWords splits words at characters for which drop holds (removed) and
// around characters for which isolate holds (kept as words of their own).
func splitWords(drop, isolate func(rune) bool) preTokenizer {
	return func(words []string) []string {
		out := make([]string, 0, len(words)+8)
		for _, w := range words {
			start := 0
			for i := 0; i < len(w); {
				r, size := utf8.DecodeRuneInString(w[i:])
				end := i + size
				d := drop != nil && drop(r)
				iso := !d && isolate != nil && isolate(r)
				if !d && !iso {
					i = end
					continue
				}
				if start < i {
					out = append(out, w[start:i])
				}
				if iso {
					out = append(out, w[i:end])
				}
				start, i = end, end
			}
			if start < len(w) {
				out = append(out, w[start:])
			}
		}
		return out
	}
}

// whitespace is the Whitespace pre-tokenizer: runs of word characters and
// runs of other non-space characters (the regex \w+|[^\w\s]+).
func whitespace(words []string) []string {
	out := make([]string, 0, len(words)+8)
	isWord := func(r rune) bool {
		return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
	}
	for _, w := range words {
		start, cls := 0, 0 // cls: 0 none, 1 word, 2 other
		for i, r := range w {
			c := 2
			if unicode.IsSpace(r) {
				c = 0
			} else if isWord(r) {
				c = 1
			}
			if c != cls {
				if cls != 0 {
					out = append(out, w[start:i])
				}
				start, cls = i, c
			}
		}
		if cls != 0 {
			out = append(out, w[start:])
		}
	}
	return out
}

// metaspace is the Metaspace pre-tokenizer: spaces become the replacement
// character (▁), one is prepended, and with split each ▁ starts a new word.
type metaspace struct {
	repl    string
	prepend bool
	split   bool
}

func (m metaspace) preTokenize(words []string) []string {
	out := make([]string, 0, len(words)+8)
	for _, w := range words {
		w = strings.ReplaceAll(w, " ", m.repl)
		if m.prepend && w != "" && !strings.HasPrefix(w, m.repl) {
			w = m.repl + w
		}
		if !m.split {
			out = append(out, w)
			continue
		}
		for w != "" {
			i := strings.Index(w[1:], m.repl)
			if i < 0 {
				out = append(out, w)
				break
			}
			out = append(out, w[:i+1])
			w = w[i+1:]
		}
	}
	return out
}
