package semantic

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// csr is a sparse matrix stored by rows: row i holds the columns idx[i]
// (ascending) with the values val[i]. Columns fit in 16 bits (MaxVocab is
// at most maxVocabCap).
type csr struct {
	rows, cols int
	idx        [][]uint16
	val        [][]float32
}

// nnz returns the number of stored entries.
func (m *csr) nnz() int {
	n := 0
	for _, r := range m.idx {
		n += len(r)
	}
	return n
}

// transpose returns the transpose of m (its rows keep ascending columns).
func (m *csr) transpose() *csr {
	count := make([]int, m.cols)
	for _, r := range m.idx {
		for _, j := range r {
			count[j]++
		}
	}
	t := &csr{rows: m.cols, cols: m.rows, idx: make([][]uint16, m.cols), val: make([][]float32, m.cols)}
	for j, c := range count {
		t.idx[j] = make([]uint16, 0, c)
		t.val[j] = make([]float32, 0, c)
	}
	for i, r := range m.idx {
		for p, j := range r {
			t.idx[j] = append(t.idx[j], uint16(i))
			t.val[j] = append(t.val[j], m.val[i][p])
		}
	}
	return t
}

// dense is a row-major matrix of float32.
type dense struct {
	rows, cols int
	data       []float32
}

func newDense(rows, cols int) *dense {
	return &dense{rows: rows, cols: cols, data: make([]float32, rows*cols)}
}

func (d *dense) row(i int) []float32 { return d.data[i*d.cols : (i+1)*d.cols] }

// chunkRows is the row block that parallel loops hand out. It is fixed, so
// partial sums and their order do not depend on the number of workers.
const chunkRows = 1024

// parallel calls fn(lo, hi) for consecutive blocks of chunkRows rows out of
// n on up to workers goroutines; chunk is the block's index.
func parallel(n, workers int, fn func(chunk, lo, hi int)) {
	chunks := (n + chunkRows - 1) / chunkRows
	if workers > chunks {
		workers = chunks
	}
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			fn(c, c*chunkRows, min(n, (c+1)*chunkRows))
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				c := next
				next++
				mu.Unlock()
				if c >= chunks {
					return
				}
				fn(c, c*chunkRows, min(n, (c+1)*chunkRows))
			}
		}()
	}
	wg.Wait()
}

// mul returns m·x.
func (m *csr) mul(x *dense, workers int) *dense {
	out := newDense(m.rows, x.cols)
	parallel(m.rows, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			o := out.row(i)
			val := m.val[i]
			for p, j := range m.idx[i] {
				axpy(o, val[p], x.row(int(j)))
			}
		}
	})
	return out
}

// axpy adds a·x to y (len(x) >= len(y)).
func axpy(y []float32, a float32, x []float32) {
	x = x[:len(y)]
	for len(y) >= 8 && len(x) >= 8 {
		y[0] += a * x[0]
		y[1] += a * x[1]
		y[2] += a * x[2]
		y[3] += a * x[3]
		y[4] += a * x[4]
		y[5] += a * x[5]
		y[6] += a * x[6]
		y[7] += a * x[7]
		y, x = y[8:], x[8:]
	}
	for i := range y {
		y[i] += a * x[i]
	}
}

// dot returns x·y in float32 (len(y) >= len(x)).
func dot(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	for len(x) >= 4 && len(y) >= 4 {
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		x, y = x[4:], y[4:]
	}
	for i := range x {
		s0 += x[i] * y[i]
	}
	return s0 + s1 + s2 + s3
}

// gram returns yᵀy (cols×cols, row-major, float64), summed per fixed row
// block and then in block order, so the result is deterministic.
func gram(y *dense, workers int) []float64 {
	l := y.cols
	chunks := (y.rows + chunkRows - 1) / chunkRows
	parts := make([][]float64, chunks)
	parallel(y.rows, workers, func(c, lo, hi int) {
		g := make([]float64, l*l)
		r := make([]float64, l)
		for i := lo; i < hi; i++ {
			for a, x := range y.row(i) {
				r[a] = float64(x)
			}
			for a, ra := range r {
				if ra != 0 {
					axpy64(g[a*l+a:a*l+l], ra, r[a:])
				}
			}
		}
		parts[c] = g
	})
	g := parts[0]
	for _, p := range parts[1:] {
		for i, v := range p {
			g[i] += v
		}
	}
	for a := 0; a < l; a++ {
		for b := 0; b < a; b++ {
			g[a*l+b] = g[b*l+a]
		}
	}
	return g
}

// axpy64 adds a·x to y (len(x) >= len(y)).
func axpy64(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	for len(y) >= 4 && len(x) >= 4 {
		y[0] += a * x[0]
		y[1] += a * x[1]
		y[2] += a * x[2]
		y[3] += a * x[3]
		y, x = y[4:], x[4:]
	}
	for i := range y {
		y[i] += a * x[i]
	}
}

// rightMul returns y·m, where m is cols×k, row-major, float64. When upper
// is set, m is upper triangular (k == cols) and its zeros are skipped.
func rightMul(y *dense, m []float64, k int, upper bool, workers int) *dense {
	l := y.cols
	out := newDense(y.rows, k)
	parallel(y.rows, workers, func(_, lo, hi int) {
		acc := make([]float64, k)
		for i := lo; i < hi; i++ {
			clear(acc)
			for a, x := range y.row(i) {
				if x == 0 {
					continue
				}
				if upper {
					axpy64(acc[a:], float64(x), m[a*k+a:a*k+k])
				} else {
					axpy64(acc, float64(x), m[a*k:a*k+k])
				}
			}
			o := out.row(i)
			for b, v := range acc {
				o[b] = float32(v)
			}
		}
	})
	_ = l
	return out
}

// orthonormalize returns a matrix with orthonormal columns spanning the
// column space of y. It uses a Cholesky factorisation of the Gram matrix
// (CholeskyQR) and, should that fail because y is (nearly) rank
// deficient, an eigendecomposition of it (SVQB), dropping the directions
// y does not span: their columns are zero.
func orthonormalize(y *dense, workers int) *dense {
	l := y.cols
	g := gram(y, workers)
	if rinv, ok := cholInverse(g, l); ok {
		return rightMul(y, rinv, l, true, workers)
	}
	// SVQB: G = V Λ Vᵀ, Q = Y V Λ^{-1/2}; tiny eigenvalues are dropped.
	vals, vecs := symEigen(g, l)
	m := make([]float64, l*l)
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	for b, v := range vals {
		if v <= top*1e-10 || v <= 0 {
			continue
		}
		s := 1 / math.Sqrt(v)
		for a := 0; a < l; a++ {
			m[a*l+b] = vecs[a*l+b] * s
		}
	}
	return rightMul(y, m, l, false, workers)
}

// cholInverse factors the symmetric positive definite n×n matrix g = RᵀR
// and returns R⁻¹ (upper triangular, row-major); ok is false when g is not
// numerically positive definite.
func cholInverse(g []float64, n int) ([]float64, bool) {
	// Lower-triangular L with g = L Lᵀ; R = Lᵀ.
	L := make([]float64, n*n)
	maxDiag := 0.0
	for i := 0; i < n; i++ {
		maxDiag = math.Max(maxDiag, g[i*n+i])
	}
	if maxDiag <= 0 {
		return nil, false
	}
	for j := 0; j < n; j++ {
		s := g[j*n+j]
		for k := 0; k < j; k++ {
			s -= L[j*n+k] * L[j*n+k]
		}
		if s <= maxDiag*1e-12 {
			return nil, false
		}
		d := math.Sqrt(s)
		L[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := g[i*n+j]
			for k := 0; k < j; k++ {
				s -= L[i*n+k] * L[j*n+k]
			}
			L[i*n+j] = s / d
		}
	}
	// Inverse of L (lower), then R⁻¹ = (L⁻¹)ᵀ.
	inv := make([]float64, n*n)
	for j := 0; j < n; j++ {
		inv[j*n+j] = 1 / L[j*n+j]
		for i := j + 1; i < n; i++ {
			s := 0.0
			for k := j; k < i; k++ {
				s -= L[i*n+k] * inv[k*n+j]
			}
			inv[i*n+j] = s / L[i*n+i]
		}
	}
	rinv := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			rinv[j*n+i] = inv[i*n+j]
		}
	}
	return rinv, true
}

// symEigen returns the eigenvalues of the symmetric n×n matrix a in
// decreasing order and the matching eigenvectors as the columns of a
// row-major n×n matrix (cyclic Jacobi rotations).
func symEigen(a []float64, n int) ([]float64, []float64) {
	m := make([]float64, n*n)
	copy(m, a)
	v := make([]float64, n*n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 60; sweep++ {
		off, norm := 0.0, 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				x := m[i*n+j] * m[i*n+j]
				norm += x
				if i != j {
					off += x
				}
			}
		}
		if off <= norm*1e-24 || off == 0 {
			break
		}
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				apq := m[p*n+q]
				if apq == 0 {
					continue
				}
				app, aqq := m[p*n+p], m[q*n+q]
				theta := (aqq - app) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					mkp, mkq := m[k*n+p], m[k*n+q]
					m[k*n+p] = c*mkp - s*mkq
					m[k*n+q] = s*mkp + c*mkq
				}
				for k := 0; k < n; k++ {
					mpk, mqk := m[p*n+k], m[q*n+k]
					m[p*n+k] = c*mpk - s*mqk
					m[q*n+k] = s*mpk + c*mqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p] = c*vkp - s*vkq
					v[k*n+q] = s*vkp + c*vkq
				}
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return m[order[x]*n+order[x]] > m[order[y]*n+order[y]] })
	vals := make([]float64, n)
	vecs := make([]float64, n*n)
	for b, o := range order {
		vals[b] = m[o*n+o]
		for a := 0; a < n; a++ {
			vecs[a*n+b] = v[a*n+o]
		}
	}
	return vals, vecs
}

// randomizedSVD returns the top k left singular vectors of a (as the
// columns of a rows×k matrix) and the singular values, by a randomized
// range finder with oversample extra columns and iters power iterations
// (Halko, Martinsson and Tropp 2011, algorithms 4.4 and 5.1).
func randomizedSVD(ctx context.Context, a *csr, k, oversample, iters int, seed uint64, workers int) (*dense, []float64, error) {
	l := min(k+oversample, a.cols, a.rows)
	k = min(k, l)
	at := a.transpose()
	rng := rand.New(rand.NewPCG(seed, 0x5eed5eed5eed5eed))
	omega := newDense(a.cols, l)
	for i := range omega.data {
		omega.data[i] = float32(rng.NormFloat64())
	}
	y := a.mul(omega, workers)
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		q := orthonormalize(y, workers)
		z := orthonormalize(at.mul(q, workers), workers)
		y = a.mul(z, workers)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	q := orthonormalize(y, workers)
	// B = Qᵀa; BBᵀ = ZᵀZ with Z = aᵀQ.
	z := at.mul(q, workers)
	vals, vecs := symEigen(gram(z, workers), l)
	sv := make([]float64, k)
	w := make([]float64, l*k)
	for b := 0; b < k; b++ {
		sv[b] = math.Sqrt(math.Max(vals[b], 0))
		for a := 0; a < l; a++ {
			w[a*k+b] = vecs[a*l+b]
		}
	}
	return rightMul(q, w, k, false, workers), sv, nil
}
