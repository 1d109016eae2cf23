package embed

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// wordPiece is the WordPiece model of BERT tokenizers: each word is split
// greedily into the longest vocabulary pieces from the left, pieces after
// the first carrying the continuing-subword prefix ("##"). A word with a
// part no piece covers becomes the unknown token.
type wordPiece struct {
	start    map[string]int32 // word-initial pieces
	cont     map[string]int32 // continuation pieces, prefix removed
	tokens   []string         // by id
	unk      int
	maxChars int
}

func parseWordPiece(raw json.RawMessage) (*wordPiece, error) {
	var c struct {
		Vocab    map[string]int `json:"vocab"`
		Unk      string         `json:"unk_token"`
		Prefix   *string        `json:"continuing_subword_prefix"`
		MaxChars int            `json:"max_input_chars_per_word"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	tokens, err := vocabIDs(c.Vocab)
	if err != nil {
		return nil, fmt.Errorf("WordPiece: %w", err)
	}
	prefix := "##"
	if c.Prefix != nil {
		prefix = *c.Prefix
	}
	m := &wordPiece{start: map[string]int32{}, cont: map[string]int32{}, tokens: tokens, unk: -1, maxChars: c.MaxChars}
	if m.maxChars <= 0 {
		m.maxChars = 100
	}
	for tok, id := range c.Vocab {
		m.start[tok] = int32(id)
		if prefix != "" && len(tok) > len(prefix) && tok[:len(prefix)] == prefix {
			m.cont[tok[len(prefix):]] = int32(id)
		}
	}
	if prefix == "" {
		m.cont = m.start
	}
	if id, ok := c.Vocab[c.Unk]; ok {
		m.unk = id
	}
	return m, nil
}

func (m *wordPiece) tokenize(word string, ids []int32) []int32 {
	if utf8.RuneCountInString(word) > m.maxChars {
		return m.unknown(ids)
	}
	n := len(ids)
	for start := 0; start < len(word); {
		vocab := m.start
		if start > 0 {
			vocab = m.cont
		}
		end := len(word)
		found := false
		for end > start {
			if id, ok := vocab[word[start:end]]; ok {
				ids = append(ids, id)
				found = true
				break
			}
			// Step back one character.
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if !found {
			return m.unknown(ids[:n])
		}
		start = end
	}
	return ids
}

func (m *wordPiece) unknown(ids []int32) []int32 {
	if m.unk >= 0 {
		ids = append(ids, int32(m.unk))
	}
	return ids
}

// wordLevel maps each whole word to its id, or to the unknown token.
type wordLevel struct {
	vocab  map[string]int32
	tokens []string
	unk    int
}

func parseWordLevel(raw json.RawMessage) (*wordLevel, error) {
	var c struct {
		Vocab map[string]int `json:"vocab"`
		Unk   string         `json:"unk_token"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	tokens, err := vocabIDs(c.Vocab)
	if err != nil {
		return nil, fmt.Errorf("WordLevel: %w", err)
	}
	m := &wordLevel{vocab: make(map[string]int32, len(c.Vocab)), tokens: tokens, unk: -1}
	for tok, id := range c.Vocab {
		m.vocab[tok] = int32(id)
	}
	if id, ok := c.Vocab[c.Unk]; ok {
		m.unk = id
	}
	return m, nil
}

func (m *wordLevel) tokenize(word string, ids []int32) []int32 {
	if id, ok := m.vocab[word]; ok {
		return append(ids, id)
	}
	if m.unk >= 0 {
		ids = append(ids, int32(m.unk))
	}
	return ids
}
