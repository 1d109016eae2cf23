// Package vec is the vector arithmetic the engine and the features built
// beside it share.
package vec

// Dot is the dot product of a and b (of the shorter's length), summed in
// four float32 lanes.
func Dot(a, b []float32) float64 {
	var s0, s1, s2, s3 float32
	n := min(len(a), len(b))
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}
