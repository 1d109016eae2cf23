package score

// TriageAlpha returns α, the weight of criticality in degraded-mode
// ranking, for an observed event rate and the namespace's capacity (same
// unit, e.g. events per minute): 1 − capacity/rate when rate exceeds
// capacity, else 0. It is 0 at capacity, rises monotonically with
// rate/capacity and approaches 1 without reaching it (α is 0.5 at twice
// the capacity, 0.9 at ten times). A capacity that is not positive, or a
// NaN input, disables triage (0).
func TriageAlpha(rate, capacity float64) float64 {
	if !(capacity > 0) || !(rate > capacity) {
		return 0
	}
	a := 1 - capacity/rate
	if a >= 1 { // rate/capacity beyond float64 precision
		return 1 - 0x1p-53
	}
	return a
}

// TriageScore returns the degraded-mode ranking score
// alpha·criticality + (1−alpha)·similarity; alpha is clamped to [0, 1]
// and the result to [0, 1].
func TriageScore(alpha, criticality, similarity float64) float64 {
	alpha = clamp01(alpha)
	return clamp01(float64(alpha*criticality) + float64((1-alpha)*similarity))
}
