package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"unicode/utf8"
)

// unkPenalty is how much less than the rarest piece an unknown character
// scores in the Unigram lattice (the value Hugging Face tokenizers use).
const unkPenalty = 10.0

// unigram is the Unigram (SentencePiece) model: a word is split into the
// sequence of vocabulary pieces whose log-probabilities sum highest (Viterbi
// over all segmentations). A character no piece starts with becomes the
// unknown token.
type unigram struct {
	scores []float64 // by id
	tokens []string  // by id
	sorted []int32   // ids of the distinct non-empty pieces, in byte order
	// byPrefix holds the range of sorted whose pieces start with the
	// piece's first character, or first two characters, of each piece.
	byPrefix map[string][2]int32
	unk      int
	unkScore float64
}

func parseUnigram(raw json.RawMessage) (*unigram, error) {
	var c struct {
		Vocab        [][2]json.RawMessage `json:"vocab"`
		UnkID        *int                 `json:"unk_id"`
		ByteFallback bool                 `json:"byte_fallback"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	if len(c.Vocab) == 0 {
		return nil, errors.New("Unigram: empty vocab")
	}
	if c.ByteFallback {
		return nil, errors.New("Unigram: byte_fallback is not supported")
	}
	m := &unigram{scores: make([]float64, len(c.Vocab)), tokens: make([]string, len(c.Vocab)), unk: -1}
	seen := make(map[string]bool, len(c.Vocab))
	minScore := math.Inf(1)
	for id, e := range c.Vocab {
		var piece string
		var score float64
		if err := json.Unmarshal(e[0], &piece); err != nil {
			return nil, fmt.Errorf("Unigram: vocab entry %d: %w", id, err)
		}
		if err := json.Unmarshal(e[1], &score); err != nil {
			return nil, fmt.Errorf("Unigram: vocab entry %d: %w", id, err)
		}
		if math.IsNaN(score) || math.IsInf(score, 0) {
			return nil, fmt.Errorf("Unigram: vocab entry %d has score %v", id, score)
		}
		if !seen[piece] && piece != "" {
			seen[piece] = true
			m.sorted = append(m.sorted, int32(id)) // the first of equal pieces wins
		}
		m.scores[id], m.tokens[id] = score, piece
		minScore = math.Min(minScore, score)
	}
	sort.Slice(m.sorted, func(a, b int) bool { return m.tokens[m.sorted[a]] < m.tokens[m.sorted[b]] })
	m.byPrefix = map[string][2]int32{}
	for i, id := range m.sorted {
		p := m.tokens[id]
		_, n1 := utf8.DecodeRuneInString(p)
		_, n2 := utf8.DecodeRuneInString(p[n1:])
		for _, k := range []string{p[:n1], p[:n1+n2]} {
			r, ok := m.byPrefix[k]
			if !ok {
				r[0] = int32(i)
			}
			r[1] = int32(i + 1) // sorted order keeps each prefix's pieces together
			m.byPrefix[k] = r
		}
	}
	m.unkScore = minScore - unkPenalty
	if c.UnkID != nil {
		if *c.UnkID < 0 || *c.UnkID >= len(c.Vocab) {
			return nil, fmt.Errorf("Unigram: unk_id %d outside the vocab", *c.UnkID)
		}
		m.unk = *c.UnkID
	}
	return m, nil
}

// lattice node: the best segmentation of word[:i] ends with the piece
// word[start:i] of id (-1 for an unknown character).
type uniNode struct {
	score float64
	start int32
	id    int32
	set   bool
}

func (m *unigram) tokenize(word string, ids []int32) []int32 {
	n := len(word)
	best := make([]uniNode, n+1)
	best[0].set = true
	for i := 0; i < n; {
		_, size := utf8.DecodeRuneInString(word[i:])
		if best[i].set {
			base := best[i].score
			single := false
			// Walk the sorted pieces: [lo, hi) holds the pieces that start
			// with word[i:j]; the first of them is word[i:j] itself when that
			// is a piece (a prefix sorts first). The first one and two
			// characters come from byPrefix, the rest byte by byte.
			_, size2 := utf8.DecodeRuneInString(word[i+size:])
			lo, hi := 0, 0
			for j := i + 1; j <= n; j++ {
				switch {
				case j == i+size || j == i+size+size2:
					r := m.byPrefix[word[i:j]]
					lo, hi = int(r[0]), int(r[1])
				case j < i+size+size2:
					continue
				default:
					lo, hi = m.narrow(lo, hi, j-i-1, word[j-1])
				}
				if lo >= hi {
					break
				}
				if len(m.tokens[m.sorted[lo]]) == j-i {
					id := m.sorted[lo]
					if j == i+size {
						single = true
					}
					if s := base + m.scores[id]; !best[j].set || s > best[j].score {
						best[j] = uniNode{score: s, start: int32(i), id: id, set: true}
					}
				}
			}
			if !single {
				j := i + size
				if s := base + m.unkScore; !best[j].set || s > best[j].score {
					best[j] = uniNode{score: s, start: int32(i), id: int32(m.unk), set: true}
				}
			}
		}
		i += size
	}
	// Walk back from the end, then reverse the appended ids.
	from := len(ids)
	for i := n; i > 0; {
		nd := best[i]
		if nd.id >= 0 {
			ids = append(ids, nd.id)
		}
		i = int(nd.start)
	}
	for a, b := from, len(ids)-1; a < b; a, b = a+1, b-1 {
		ids[a], ids[b] = ids[b], ids[a]
	}
	return ids
}

// narrow returns the sub-range of sorted[lo:hi] (pieces sharing their first
// k bytes) whose byte k is c.
func (m *unigram) narrow(lo, hi, k int, c byte) (int, int) {
	// key orders the range: -1 for a piece of k bytes, else its byte k.
	key := func(i int) int {
		p := m.tokens[m.sorted[i]]
		if len(p) <= k {
			return -1
		}
		return int(p[k])
	}
	// Binary searches for the first key >= c and the first key > c.
	a, b := lo, hi
	for a < b {
		h := int(uint(a+b) >> 1)
		if key(h) < int(c) {
			a = h + 1
		} else {
			b = h
		}
	}
	first := a
	b = hi
	for a < b {
		h := int(uint(a+b) >> 1)
		if key(h) <= int(c) {
			a = h + 1
		} else {
			b = h
		}
	}
	return first, a
}
