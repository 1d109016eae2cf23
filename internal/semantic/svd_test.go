package semantic

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// randomSparse returns a rows×cols matrix with a decaying spectrum: a sum
// of rank-one terms of random sparse vectors, plus noise.
func randomSparse(seed uint64, rows, cols int) (*csr, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := make([]float64, rows*cols)
	for r := 0; r < 40; r++ {
		s := math.Pow(0.85, float64(r)) * 10
		u := make([]float64, rows)
		v := make([]float64, cols)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		for i := range u {
			for j := range v {
				d[i*cols+j] += s * u[i] * v[j] / float64(rows)
			}
		}
	}
	m := &csr{rows: rows, cols: cols, idx: make([][]uint16, rows), val: make([][]float32, rows)}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if rng.IntN(3) == 0 {
				d[i*cols+j] = 0 // sparsify
				continue
			}
			m.idx[i] = append(m.idx[i], uint16(j))
			m.val[i] = append(m.val[i], float32(d[i*cols+j]))
		}
	}
	for i := range d {
		if d[i] != 0 {
			d[i] = float64(float32(d[i]))
		}
	}
	return m, d
}

func TestRandomizedSVD(t *testing.T) {
	const rows, cols, k = 300, 250, 20
	a, d := randomSparse(1, rows, cols)
	// Exact singular values: eigenvalues of AᵀA.
	ata := make([]float64, cols*cols)
	for i := 0; i < rows; i++ {
		for x := 0; x < cols; x++ {
			for y := 0; y < cols; y++ {
				ata[x*cols+y] += d[i*cols+x] * d[i*cols+y]
			}
		}
	}
	vals, _ := symEigen(ata, cols)
	u, sv, err := randomizedSVD(context.Background(), a, k, 16, 3, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < k; j++ {
		exact := math.Sqrt(vals[j])
		if math.Abs(sv[j]-exact) > 0.01*exact {
			t.Errorf("σ%d = %.4f, exact %.4f", j, sv[j], exact)
		}
	}
	// Columns of U are orthonormal.
	g := gram(u, 1)
	for x := 0; x < k; x++ {
		for y := 0; y < k; y++ {
			want := 0.0
			if x == y {
				want = 1
			}
			if math.Abs(g[x*k+y]-want) > 1e-4 {
				t.Fatalf("UᵀU[%d,%d] = %g", x, y, g[x*k+y])
			}
		}
	}
}

func TestOrthonormalizeRankDeficient(t *testing.T) {
	// Three columns, the third the sum of the first two.
	y := newDense(50, 3)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := 0; i < 50; i++ {
		r := y.row(i)
		r[0], r[1] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		r[2] = r[0] + r[1]
	}
	q := orthonormalize(y, 1)
	g := gram(q, 1)
	nonzero := 0
	for c := 0; c < 3; c++ {
		switch {
		case math.Abs(g[c*3+c]-1) < 1e-4:
			nonzero++
		case g[c*3+c] > 1e-4:
			t.Errorf("column %d has norm² %g", c, g[c*3+c])
		}
	}
	if nonzero != 2 {
		t.Errorf("%d unit columns, want 2 (gram %v)", nonzero, g)
	}
}

func TestSymEigen(t *testing.T) {
	a := []float64{4, 1, 0, 1, 3, 1, 0, 1, 2}
	vals, vecs := symEigen(a, 3)
	for b := 0; b < 3; b++ {
		// A v = λ v
		for i := 0; i < 3; i++ {
			s := 0.0
			for j := 0; j < 3; j++ {
				s += a[i*3+j] * vecs[j*3+b]
			}
			if math.Abs(s-vals[b]*vecs[i*3+b]) > 1e-9 {
				t.Fatalf("eigenpair %d wrong: %v %v", b, vals, vecs)
			}
		}
	}
	if !(vals[0] >= vals[1] && vals[1] >= vals[2]) {
		t.Errorf("eigenvalues not decreasing: %v", vals)
	}
}
