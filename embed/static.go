package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// StaticMaxTokens is how many tokens of a text Static pools, as Model2Vec's
// encode does by default; the text is first cut to StaticMaxTokens times the
// vocabulary's median token length in characters.
const StaticMaxTokens = 512

// Static is a static embedding model in the Model2Vec format (for example
// minishlab/potion-base-8M), run in process: the text is tokenized as the
// model's tokenizer.json says, each token id selects a row of the embedding
// matrix (scaled by the token's weight when the model has per-token
// weights), the rows are averaged and the mean is L2-normalised.
//
// As in Model2Vec, special tokens are never added and unknown tokens
// ([UNK]) are left out of the mean; texts longer than StaticMaxTokens tokens
// are truncated. A text with no known token gives the zero vector (never
// NaN), as with Hash; its cosine similarity with anything is 0.
//
// The vectors are always normalised, whatever the model's config.json says
// about "normalize": normalising does not change a vector's direction, so
// cosine similarities are the model's either way.
//
// Static is safe for concurrent use.
type Static struct {
	name     string
	dim      int
	rows     []float32 // len(embedding rows) × dim
	mapping  []int32   // token id → row; nil: the id is the row
	weights  []float32 // token id → weight; nil: 1
	skip     []bool    // token id → left out of the mean (unknown, special)
	tok      *tokenizer
	maxChars int // texts are cut to this many characters before tokenizing
}

// Model files larger than this are refused rather than read into memory.
const maxStaticModelBytes = 8 << 30

// NewStatic loads the Model2Vec model in dir: model.safetensors (an
// "embeddings" matrix of one row per token, F32, F16, BF16, F64 or I8;
// optional "weights" per token and "mapping" from token to row) and
// tokenizer.json (WordPiece, Unigram or WordLevel; see the package
// documentation for the normalizers and pre-tokenizers read). A
// sentence-transformers folder with 0_StaticEmbedding/ also loads.
// config.json is not read.
func NewStatic(dir string) (*Static, error) {
	dir = filepath.Clean(dir)
	if _, err := os.Stat(filepath.Join(dir, "model.safetensors")); errors.Is(err, os.ErrNotExist) {
		if sub := filepath.Join(dir, "0_StaticEmbedding"); fileExists(filepath.Join(sub, "model.safetensors")) {
			dir = sub
		}
	}
	s, err := loadStatic(dir)
	if err != nil {
		return nil, fmt.Errorf("static model %s: %w", dir, err)
	}
	return s, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func loadStatic(dir string) (*Static, error) {
	tb, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	tok, err := parseTokenizer(tb)
	if err != nil {
		return nil, err
	}
	mpath := filepath.Join(dir, "model.safetensors")
	fi, err := os.Stat(mpath)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxStaticModelBytes {
		return nil, fmt.Errorf("model.safetensors: %d bytes is larger than the %d-byte limit", fi.Size(), int64(maxStaticModelBytes))
	}
	mb, err := os.ReadFile(mpath)
	if err != nil {
		return nil, err
	}
	ts, err := parseSafetensors(mb)
	if err != nil {
		return nil, fmt.Errorf("model.safetensors: %w", err)
	}
	s, err := newStatic(tok, ts)
	if err != nil {
		return nil, fmt.Errorf("model.safetensors: %w", err)
	}
	s.name = "static:" + staticModelName(dir)
	return s, nil
}

var hubSnapshot = lazyRegexp(`^[0-9a-f]{40}$`)

// staticModelName names a model after its folder; a Hugging Face cache
// snapshot (models--org--name/snapshots/HASH) is named org/name.
func staticModelName(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	base := filepath.Base(abs)
	if base == "0_StaticEmbedding" {
		abs = filepath.Dir(abs)
		base = filepath.Base(abs)
	}
	if hubSnapshot().MatchString(base) && filepath.Base(filepath.Dir(abs)) == "snapshots" {
		repo := filepath.Base(filepath.Dir(filepath.Dir(abs)))
		if r, ok := strings.CutPrefix(repo, "models--"); ok {
			return strings.Replace(r, "--", "/", 1)
		}
	}
	return base
}

// newStatic assembles a model from its tokenizer and tensors.
func newStatic(tok *tokenizer, ts map[string]tensor) (*Static, error) {
	emb, err := pickEmbeddings(ts)
	if err != nil {
		return nil, err
	}
	nrows, dim := emb.shape[0], emb.shape[1]
	if nrows == 0 || dim == 0 {
		return nil, fmt.Errorf("embeddings have shape %v", emb.shape)
	}
	rows, err := emb.floats()
	if err != nil {
		return nil, err
	}
	s := &Static{dim: dim, rows: rows, tok: tok}

	ids := nrows // how many token ids the tensors cover
	if t, ok := ts["mapping"]; ok {
		m, err := t.ints()
		if err != nil {
			return nil, err
		}
		if len(t.shape) != 1 {
			return nil, fmt.Errorf("mapping has shape %v, want 1 dimension", t.shape)
		}
		s.mapping = make([]int32, len(m))
		for i, r := range m {
			if r < 0 || r >= int64(nrows) {
				return nil, fmt.Errorf("mapping sends token %d to row %d of %d", i, r, nrows)
			}
			s.mapping[i] = int32(r)
		}
		ids = len(m)
	}
	if t, ok := ts["weights"]; ok {
		w, err := t.floats()
		if err != nil {
			return nil, err
		}
		if len(t.shape) != 1 || len(w) != ids {
			return nil, fmt.Errorf("weights have shape %v, want [%d]", t.shape, ids)
		}
		s.weights = w
	}
	if tok.vocab > ids {
		return nil, fmt.Errorf("the tokenizer has %d tokens, the model covers %d", tok.vocab, ids)
	}
	s.skip = make([]bool, ids)
	if tok.unk >= 0 {
		s.skip[tok.unk] = true
	}
	for id := range tok.special {
		if id < ids {
			s.skip[id] = true
		}
	}
	s.maxChars = StaticMaxTokens * medianInt(tok.tokenLens)
	if s.maxChars <= 0 {
		s.maxChars = StaticMaxTokens
	}
	return s, nil
}

// medianInt is int(numpy.median(xs)): the mean of the two middle values of
// an even count, truncated.
func medianInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	c := append([]int(nil), xs...)
	sort.Ints(c)
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}

// Info returns {Name: "static:MODEL", Dim: the model's dimension}, MODEL being
// the folder's name (org/name for a Hugging Face cache snapshot). A store
// records this name: the same model under a folder of another name counts
// as another embedder until 'mnemo reembed'.
func (s *Static) Info() mnemo.EmbedderInfo {
	return mnemo.EmbedderInfo{Name: s.name, Dim: s.dim}
}

// Local reports that the vectors are computed in this process
// (mnemo.LocalEmbedder).
func (s *Static) Local() bool { return true }

// Embed returns one L2-normalised vector per text. It fails only when ctx is
// done.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slab := make([]float32, s.dim*len(texts))
	out := make([][]float32, len(texts))
	ids := make([]int32, 0, 64)
	for i, t := range texts {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := slab[i*s.dim : (i+1)*s.dim : (i+1)*s.dim]
		ids = s.embed(t, v, ids[:0])
		out[i] = v
	}
	return out, nil
}

// embed writes the vector of text into v (zeroed, len dim); ids is scratch.
func (s *Static) embed(text string, v []float32, ids []int32) []int32 {
	text = truncateRunes(text, s.maxChars)
	ids = s.tok.ids(text, ids)
	n := 0
	for _, id := range ids {
		if int(id) >= len(s.skip) || s.skip[id] {
			continue
		}
		if n == StaticMaxTokens {
			break
		}
		n++
		row := int(id)
		if s.mapping != nil {
			row = int(s.mapping[id])
		}
		w := float32(1)
		if s.weights != nil {
			w = s.weights[id]
		}
		r := s.rows[row*s.dim : (row+1)*s.dim : (row+1)*s.dim]
		for j, x := range r {
			v[j] += w * x
		}
	}
	// The mean's direction is the sum's: normalising the sum is enough.
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 || n == 0 {
		clear(v)
		return ids
	}
	inv := float32(1 / math.Sqrt(norm))
	for j := range v {
		v[j] *= inv
	}
	return ids
}

// truncateRunes cuts s to at most n code points.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// lazyRegexp compiles expr on first use, not when the program starts.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
