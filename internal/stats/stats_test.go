package stats

import (
	"math"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0, 1}, {0.5, 50}, {0.95, 95}, {0.99, 99}, {1, 100}, {0.001, 1}, {0.951, 96}} {
		if got := Percentile(s, c.p); got != c.want*time.Millisecond {
			t.Errorf("p %v: %v, want %v ms", c.p, got, c.want)
		}
	}
	if got := Percentile([]float64(nil), 0.5); got != 0 {
		t.Errorf("no values: %v", got)
	}
	if got := Percentile([]int{3}, 0.99); got != 3 {
		t.Errorf("one value: %v", got)
	}
	// Nearest rank of 7 values: p50 is the 4th, p95 the 7th.
	seven := []float64{1, 2, 3, 4, 5, 6, 7}
	if a, b := Percentile(seven, 0.5), Percentile(seven, 0.95); a != 4 || b != 7 {
		t.Errorf("seven values: p50 %v p95 %v", a, b)
	}
}

func TestInterpolated(t *testing.T) {
	tests := []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{nil, 0.5, 0},
		{[]float64{7}, 0.9, 7},
		{[]float64{1, 2}, 0.5, 1.5},
		{[]float64{1, 2, 3, 4}, 0.1, 1.3},
		{[]float64{1, 2, 3, 4}, 0.9, 3.7},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 1, 4},
		{[]float64{1, 2, 3, 4}, 2, 4},
		{[]float64{10, 20, 30, 40, 50}, 0.5, 30},
	}
	for _, tt := range tests {
		if got := Interpolated(tt.xs, tt.p); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Interpolated(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
		}
	}
}
