package score_test

import (
	"math"
	"testing"

	"github.com/mnemo-dev/mnemo/score"
)

func TestTriageAlpha(t *testing.T) {
	for _, tc := range []struct {
		name           string
		rate, capacity float64
		want           float64
	}{
		{"below capacity", 50, 100, 0},
		{"at capacity", 100, 100, 0},
		{"twice capacity", 200, 100, 0.5},
		{"ten times", 1000, 100, 0.9},
		{"zero capacity disables", 1000, 0, 0},
		{"negative capacity disables", 1000, -5, 0},
		{"NaN rate", math.NaN(), 100, 0},
		{"NaN capacity", 100, math.NaN(), 0},
		{"zero rate", 0, 100, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := score.TriageAlpha(tc.rate, tc.capacity); math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("TriageAlpha(%v, %v) = %v, want %v", tc.rate, tc.capacity, got, tc.want)
			}
		})
	}
	if a := score.TriageAlpha(math.Inf(1), 1); !(a < 1 && a > 0.99) {
		t.Errorf("TriageAlpha(+Inf, 1) = %v, want just below 1", a)
	}
	if a := score.TriageAlpha(math.MaxFloat64, math.SmallestNonzeroFloat64); !(a < 1) {
		t.Errorf("TriageAlpha(huge ratio) = %v, want below 1", a)
	}
}

// TestTriageAlphaMonotone checks over a grid of capacities and rates that α
// stays in [0, 1), is 0 up to capacity and never decreases as the rate grows.
func TestTriageAlphaMonotone(t *testing.T) {
	for _, capacity := range []float64{0.001, 0.5, 1, 3, 10, 60, 1000, 1e6} {
		prev := 0.0
		for k := 0; k <= 400; k++ {
			rate := capacity * math.Pow(10, float64(k-100)/50) // 0.01×…10^6× capacity
			a := score.TriageAlpha(rate, capacity)
			if a < 0 || a >= 1 {
				t.Fatalf("TriageAlpha(%v, %v) = %v, outside [0, 1)", rate, capacity, a)
			}
			if rate <= capacity && a != 0 {
				t.Fatalf("TriageAlpha(%v, %v) = %v, want 0 at or below capacity", rate, capacity, a)
			}
			if a < prev {
				t.Fatalf("TriageAlpha(%v, %v) = %v < %v: not monotone", rate, capacity, a, prev)
			}
			if rate > capacity*1.0001 && a <= prev && prev > 0 {
				t.Fatalf("TriageAlpha(%v, %v) = %v: not rising", rate, capacity, a)
			}
			prev = a
		}
	}
}

func TestTriageScore(t *testing.T) {
	for _, tc := range []struct {
		alpha, crit, sim, want float64
	}{
		{0, 1, 0.3, 0.3},
		{1, 0.8, 0.3, 0.8},
		{0.5, 1, 0, 0.5},
		{0.25, 0.8, 0.4, 0.5},
		{-1, 1, 0.3, 0.3},  // alpha clamps to 0
		{2, 0.8, 0.3, 0.8}, // alpha clamps to 1
		{0.5, 3, 3, 1},     // result clamps
	} {
		if got := score.TriageScore(tc.alpha, tc.crit, tc.sim); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("TriageScore(%v, %v, %v) = %v, want %v", tc.alpha, tc.crit, tc.sim, got, tc.want)
		}
	}
	// Under heavy overload a critical but dissimilar record outranks a
	// similar but trivial one; below capacity similarity decides.
	a := score.TriageAlpha(500, 100)
	if score.TriageScore(a, 1, 0.2) <= score.TriageScore(a, 0, 0.9) {
		t.Error("at 5× capacity criticality should dominate")
	}
	a = score.TriageAlpha(80, 100)
	if score.TriageScore(a, 1, 0.2) >= score.TriageScore(a, 0, 0.9) {
		t.Error("below capacity similarity should decide")
	}
}
