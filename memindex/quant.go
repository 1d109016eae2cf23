package memindex

import (
	"encoding/binary"
	"math"
)

// Quantised vectors: a namespace keeps each vector normalised to unit
// length and then stored as int8 codes with one float32 scale,
// v[j] ≈ scale·code[j], scale = max|v[j]|/127 — a quarter of the memory of
// float32. With it goes the norm of the quantisation error,
// ve = ‖v − scale·code‖₂, rounded up.
//
// A search scores candidates from the codes: a = scale·Σ q[j]·code[j]
// (accumulated in float64). For a query q, the exact cosine q·v differs
// from a by at most ‖q‖·ve (Cauchy–Schwarz), plus the rounding of float32
// arithmetic, which scoreSlack covers. So a candidate whose upper bound
// a + ‖q‖·ve + scoreSlack is below the n-th largest lower bound among the
// candidates cannot be in the top n, and the rest — typically n and a few
// more — are rescored exactly from the float32 vectors the store holds
// (see Exact). That gives the very ranking and scores of a search of the
// float32 vectors over the same candidates.

// scoreSlack bounds what float32 rounding adds to the difference between
// a code score and the exact float32 score of a unit vector and a unit
// query of up to a few thousand dimensions (2⁻²⁴ per operation, a sum of
// at most ‖q‖·‖v‖ = 1 in magnitude), with a wide margin.
const scoreSlack = 1e-4

// Exact returns, for each of ids, the float32 vector the store holds for
// that record at row version seqs[i] (as written: not normalised), or nil
// when it cannot (the row changed since or is gone). It is called under
// the index's read lock and must not take the write lock.
type Exact func(ids []string, seqs []int64) [][]float32

// normalizeRaw decodes the little-endian float32 vector raw into v and
// scales it to unit length, exactly as the index always has (the sum of
// squares in float64, the factor rounded to float32): the exact rescoring
// normalises the stored vectors the same way.
func normalizeRaw(raw []byte, v []float32) {
	var sum float64
	for j := range v {
		x := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		v[j] = x
		sum += float64(x) * float64(x)
	}
	scaleUnit(v, sum)
}

// cosineRaw is the exact score of a stored float32 vector v for the unit
// query q: q·v ÷ ‖v‖, in one pass (normalising v first and then taking
// the dot product read it three times). Every search path rescores with
// it, so an entry scores the same whichever path finds it.
func cosineRaw(q, v []float32) float32 {
	v = v[:len(q)]
	var d0, d1, d2, d3 float32
	var n0, n1 float64
	i := 0
	for ; i+4 <= len(q); i += 4 {
		d0 += q[i] * v[i]
		d1 += q[i+1] * v[i+1]
		d2 += q[i+2] * v[i+2]
		d3 += q[i+3] * v[i+3]
		n0 += float64(v[i])*float64(v[i]) + float64(v[i+1])*float64(v[i+1])
		n1 += float64(v[i+2])*float64(v[i+2]) + float64(v[i+3])*float64(v[i+3])
	}
	for ; i < len(q); i++ {
		d0 += q[i] * v[i]
		n0 += float64(v[i]) * float64(v[i])
	}
	n := n0 + n1
	if n <= 0 {
		return 0
	}
	return float32(float64(d0+d1+d2+d3) / math.Sqrt(n))
}

// normalizeVec is normalizeRaw of a decoded vector, into v.
func normalizeVec(src, v []float32) {
	var sum float64
	for j, x := range src {
		v[j] = x
		sum += float64(x) * float64(x)
	}
	scaleUnit(v, sum)
}

func scaleUnit(v []float32, sum float64) {
	if sum > 0 {
		inv := float32(1 / math.Sqrt(sum))
		for j := range v {
			v[j] *= inv
		}
	}
}

// quantize writes the int8 codes of v into out and returns the scale and
// the error norm (rounded up).
func quantize(v []float32, out []int8) (scale, errNorm float32) {
	var m float32
	for _, x := range v {
		if x < 0 {
			x = -x
		}
		if x > m {
			m = x
		}
	}
	if m == 0 || math.IsNaN(float64(m)) || math.IsInf(float64(m), 0) {
		for j := range out {
			out[j] = 0
		}
		var e float64
		for _, x := range v {
			e += float64(x) * float64(x)
		}
		return 0, roundUp(math.Sqrt(e))
	}
	scale = m / 127
	s := float64(scale)
	var e float64
	for j, x := range v {
		c := math.Round(float64(x) / s)
		c = max(-127, min(127, c))
		out[j] = int8(c)
		d := float64(x) - s*c
		e += d * d
	}
	return scale, roundUp(math.Sqrt(e))
}

// roundUp is x as a float32 no smaller than x.
func roundUp(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// dequantize writes scale·codes into v.
func dequantize(codes []int8, scale float32, v []float32) {
	for j, c := range codes {
		v[j] = scale * float32(c)
	}
}

// dotCodes is Σ q[j]·codes[j] in float64 (exact products, four
// accumulators).
func dotCodes(q []float32, codes []int8) float64 {
	codes = codes[:len(q)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(q); j += 4 {
		s0 += float64(q[j]) * float64(codes[j])
		s1 += float64(q[j+1]) * float64(codes[j+1])
		s2 += float64(q[j+2]) * float64(codes[j+2])
		s3 += float64(q[j+3]) * float64(codes[j+3])
	}
	for ; j < len(q); j++ {
		s0 += float64(q[j]) * float64(codes[j])
	}
	return s0 + s1 + s2 + s3
}

// vector returns the dequantised vector of e in the namespace's scratch
// buffer (under the write lock), valid until the next call.
func (n *Namespace[K]) vector(e *Entry) []float32 {
	if cap(n.vecBuf) < e.dim {
		n.vecBuf = make([]float32, e.dim)
	}
	v := n.vecBuf[:e.dim]
	dequantize(n.vecs[e.off:e.off+e.dim], e.vs, v)
	return v
}

// VectorCodes returns the bytes a namespace stores for vector v (its int8
// codes, once normalised), as a snapshot's vector section holds them.
func VectorCodes(v []float32) []byte {
	u := make([]float32, len(v))
	normalizeVec(v, u)
	codes := make([]int8, len(v))
	quantize(u, codes)
	return int8Bytes(codes)
}
