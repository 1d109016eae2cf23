// Package stats holds the percentiles that the benchmarks, the load test,
// the calibration of the relevance floor and the transcript analysis take
// of their samples: one definition of each, so that their figures compare.
package stats

import (
	"cmp"
	"math"
)

// Percentile returns the nearest-rank p-quantile (p in [0, 1]) of sorted
// values: the smallest value with at least a share p of the values at or
// below it (p 0 gives the smallest, 1 the largest); zero for no values.
func Percentile[T cmp.Ordered](sorted []T, p float64) T {
	if len(sorted) == 0 {
		var zero T
		return zero
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Interpolated returns the p-quantile (p in [0, 1], clamped) of sorted
// values by linear interpolation between the two nearest ranks; zero for no
// values.
func Interpolated(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	p = math.Max(0, math.Min(1, p))
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
