package memindex

import (
	"bytes"

	"github.com/mnemo-dev/mnemo/internal/words"
)

// Prepared is what Put derives from a row's vector and text alone: the
// int8 codes, scale and error norm of the normalised vector, its sketch,
// the text's hash and its stemmed terms. A store computes it while the
// row is being written (Prepare, in another goroutine) so that applying
// the row to the index after the commit, under the write lock, costs the
// copies and the postings only. PutPrepared gives the namespace exactly
// what Put of the same vector and text gives it.
type Prepared struct {
	emb, text []byte
	hash      uint64
	codes     []int8
	vs, ve    float32
	sk        []uint64 // the sketch of the dequantised vector; nil without a vector
	terms     []byte   // the stemmed terms, one after another
	ends      []int32  // where each term of terms ends
}

// Prepare computes the Prepared of a row whose raw little-endian float32
// vector is emb (empty for none) and whose text is text; it keeps both,
// which the caller must not change afterwards. It takes no lock.
func Prepare(emb, text []byte) *Prepared {
	p := &Prepared{emb: emb, text: text, hash: textHash(text)}
	if dim := len(emb) / 4; dim > 0 {
		v := make([]float32, dim)
		normalizeRaw(emb, v)
		p.codes = make([]int8, dim)
		p.vs, p.ve = quantize(v, p.codes)
		dequantize(p.codes, p.vs, v)
		words := sketchWords(dim)
		p.sk = make([]uint64, words)
		sketch(v, p.sk, make([]float32, words*64/sketchRounds))
	}
	EachTerm(text, nil, func(t []byte) {
		t = t[:words.StemBytes(t)]
		p.terms = append(p.terms, t...)
		p.ends = append(p.ends, int32(len(p.terms)))
	})
	return p
}

// Matches reports whether p was prepared from exactly emb and text.
func (p *Prepared) Matches(emb, text []byte) bool {
	return bytes.Equal(p.emb, emb) && bytes.Equal(p.text, text)
}

// PutPrepared is Put(key, e, emb, text) for the emb and text p was
// prepared from.
func (n *Namespace[K]) PutPrepared(key K, e Entry, p *Prepared) {
	n.upsert(key, e, p.emb, p.text, p)
	if i, ok := n.posOf(key); ok && n.ent(i).indexed {
		n.kw.setLevel(i, n.ent(i))
	}
}
