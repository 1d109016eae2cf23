// Package embed provides mnemo.Embedder implementations: Hash, a fast
// offline embedder that needs no model (the default), OpenAI, a client of
// any OpenAI-compatible /embeddings endpoint (OpenAI, Ollama, vLLM,
// llama.cpp, TEI), and Cached, an LRU cache in front of either.
package embed

import (
	"context"
	"math"
	"sync"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/words"
)

// DefaultHashDim is the dimension NewHash uses when given none.
const DefaultHashDim = 384

// Feature weights of the hash embedder.
const (
	weightStem     = 1.0  // the word's stem: "deployment" -> "deploy"
	weightWord     = 0.5  // the exact word form
	weightStop     = 0.15 // a function word ("the", "и", "та"), stem only
	weightBigram   = 0.6  // two consecutive content words
	weightCharGram = 0.6  // the L2 norm of one word's character n-grams together
)

// Feature classes seed the hash, so a word and an n-gram with equal text
// land on unrelated features.
const (
	classStem uint64 = iota + 1
	classWord
	classBigram
	classCharGram
)

// Word boundary markers of character n-grams; never produced by tokenizing.
const (
	bow = 0x02
	eow = 0x03
)

// Hash is a deterministic feature-hashing embedder. It needs no model and no
// network, and the same text gives the same vector in every process and
// version, so stores built with it never need re-embedding.
//
// A text is split into words of letters and digits in any script and
// folded as words.HashWords does (version 1 of the word model, frozen:
// lower case, "é"→"e", "ё"→"е", "й"→"и").
// Features are word stems (a light suffix-stripping stemmer for English,
// Russian and Ukrainian), exact word forms, bigrams of consecutive content
// words and character 3- to 5-grams of each word with boundary markers, at
// decreasing weights; function words get a small weight. Each feature is
// hashed with 64-bit FNV-1a over its code points (fixed seeds) into a signed
// bucket; repeated features count sublinearly (1+ln tf) and the vector is
// L2-normalised.
//
// A text without any letter or digit gives the zero vector (never NaN); its
// cosine similarity with anything is 0.
//
// Hash is safe for concurrent use.
type Hash struct {
	dim  int
	pool sync.Pool
}

// NewHash returns a hash embedder with vectors of dim dimensions
// (DefaultHashDim when dim <= 0).
func NewHash(dim int) *Hash {
	if dim <= 0 {
		dim = DefaultHashDim
	}
	return &Hash{dim: dim}
}

// Info returns {Name: "hash", Dim: dim}.
func (h *Hash) Info() mnemo.EmbedderInfo {
	return mnemo.EmbedderInfo{Name: "hash", Dim: h.dim}
}

// Version returns HashVersion.
func (h *Hash) Version() string { return HashVersion }

// Local reports that the vectors are computed in this process
// (mnemo.LocalEmbedder).
func (h *Hash) Local() bool { return true }

// HashVersion names the hash embedder's rules (hashing, word splitting,
// stemming): the vectors of testdata/hash_<HashVersion>.txt. A change that
// moves any vector takes a new version, and a new golden file with it
// (TestHashGolden), so that what is stored under the old one (the
// relevance floor's calibration) is measured again.
const HashVersion = "v1"

// Embed returns one L2-normalised vector per text. It fails only when ctx is
// done.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, _ := h.pool.Get().(*scratch)
	if s == nil {
		s = newScratch()
	}
	defer func() {
		// A huge text grew the table; let it go rather than pin the memory.
		if len(s.keys) <= maxPooledTable {
			h.pool.Put(s)
		}
	}()
	slab := make([]float32, h.dim*len(texts))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := slab[i*h.dim : (i+1)*h.dim : (i+1)*h.dim]
		s.embed(t, v)
		out[i] = v
	}
	return out, nil
}

// sublinear holds 1 + ln n for the counts of a feature within a text
// (sublinear term frequency), as float32, computed as the embedding
// computes it for larger counts: the same values, a logarithm saved per
// repeated feature.
var sublinear = func() (t [64]float32) {
	for n := range t {
		t[n] = 1 + float32(math.Log(float64(n)))
	}
	return t
}()

// maxPooledTable is the largest feature table kept for reuse.
const maxPooledTable = 1 << 15

// scratch is the per-call working memory of Hash, reused through a pool.
type scratch struct {
	word []rune // scratch of words.HashWords
	pad  []rune // the current word with boundary markers

	// An open-addressing table from feature key to summed weight and count,
	// for sublinear term frequency. used lists the occupied slots.
	keys []uint64
	sums []float32
	cnts []uint32
	used []int32

	prev uint64 // stem key of the previous content word, 0 at the start

	// weight, when set, scales the features of each word by the weight of
	// its stem (EmbedWeighted); scale is the current word's, 1 otherwise.
	weight func(stem string) float64
	scale  float32
}

func newScratch() *scratch {
	s := &scratch{word: make([]rune, 0, 32), pad: make([]rune, 0, 34), scale: 1}
	s.resize(1024)
	return s
}

func (s *scratch) resize(n int) {
	oldKeys, oldSums, oldCnts, oldUsed := s.keys, s.sums, s.cnts, s.used
	s.keys = make([]uint64, n)
	s.sums = make([]float32, n)
	s.cnts = make([]uint32, n)
	s.used = make([]int32, 0, n/2)
	for _, i := range oldUsed {
		s.insert(oldKeys[i], oldSums[i], oldCnts[i])
	}
}

// add counts one occurrence of feature key with weight w.
func (s *scratch) add(key uint64, w float32) {
	w *= s.scale
	if 2*(len(s.used)+1) > len(s.keys) {
		s.resize(2 * len(s.keys))
	}
	s.insert(key, w, 1)
}

func (s *scratch) insert(key uint64, w float32, n uint32) {
	mask := uint64(len(s.keys) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		switch s.keys[i] {
		case key:
			s.sums[i] += w
			s.cnts[i] += n
			return
		case 0:
			s.keys[i] = key
			s.sums[i] = w
			s.cnts[i] = n
			s.used = append(s.used, int32(i))
			return
		}
	}
}

// embed writes the vector of text into v (zeroed, len dim).
func (s *scratch) embed(text string, v []float32) {
	s.prev = 0
	s.word = words.HashWords(text, s.word, s.addWord)

	dim := uint64(len(v))
	for _, i := range s.used {
		k := s.keys[i]
		w := s.sums[i]
		if n := s.cnts[i]; n > 1 {
			if n < uint32(len(sublinear)) {
				w = w / float32(n) * sublinear[n]
			} else {
				w = w / float32(n) * (1 + float32(math.Log(float64(n))))
			}
		}
		if k>>63 != 0 {
			w = -w
		}
		// The usual dimensions by constant divisors, which compile to a
		// multiplication: a division per feature was a tenth of a write's
		// embedding.
		var b uint64
		switch dim {
		case 384:
			b = (k >> 1) % 384
		case 256:
			b = (k >> 1) % 256
		default:
			b = (k >> 1) % dim
		}
		v[b] += w
		s.keys[i] = 0
	}
	s.used = s.used[:0]

	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= inv
	}
}

// addWord turns one folded word into features.
func (s *scratch) addWord(w []rune) {
	n := words.StemLen(w)
	ks := featureKey(classStem, w[:n])
	if stopwords()[ks] {
		s.add(ks, weightStop)
		return
	}
	if s.weight != nil {
		s.scale = float32(s.weight(string(w[:n])))
		defer func() { s.scale = 1 }()
	}
	s.add(ks, weightStem)
	s.add(featureKey(classWord, w), weightWord)
	if s.prev != 0 {
		s.add(mix(s.prev*prime64^ks^classBigram), weightBigram)
	}
	s.prev = ks

	digits := true
	for _, r := range w {
		if r < '0' || r > '9' {
			digits = false
			break
		}
	}
	if digits || len(w) < 2 {
		return
	}
	p := append(s.pad[:0], bow)
	p = append(p, w...)
	p = append(p, eow)
	s.pad = p
	grams := 0
	for g := 3; g <= 5; g++ {
		if len(p) >= g {
			grams += len(p) - g + 1
		}
	}
	cw := float32(weightCharGram / math.Sqrt(float64(grams)))
	for i := 0; i+3 <= len(p); i++ {
		h := offset64 ^ classCharGram*prime64
		for j := i; j < i+5 && j < len(p); j++ {
			h ^= uint64(p[j])
			h *= prime64
			if j-i >= 2 {
				s.add(mix(h), cw)
			}
		}
	}
}

// 64-bit FNV-1a parameters.
const (
	offset64 = 14695981039346656037
	prime64  = 1099511628211
)

// featureKey hashes runes with FNV-1a (one step per code point) seeded by
// class, then mixes the bits. It never returns 0, the table's empty mark.
func featureKey(class uint64, rs []rune) uint64 {
	h := uint64(offset64) ^ class*prime64
	for _, r := range rs {
		h ^= uint64(r)
		h *= prime64
	}
	return mix(h)
}

// mix is the murmur3 64-bit finaliser; it spreads FNV's bits so that the
// bucket index and the sign are independent. The result is never 0.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	if h == 0 {
		h = 1
	}
	return h
}

// EmbedWeighted embeds one query text with each word's features scaled by
// weight(stem) (the word's folded stem): a keyword index's inverse document
// frequencies make the hashed features weigh rare words as BM25 does.
func (h *Hash) EmbedWeighted(ctx context.Context, text string, weight func(stem string) float64) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := newScratch()
	s.weight = weight
	v := make([]float32, h.dim)
	s.embed(text, v)
	return v, nil
}
