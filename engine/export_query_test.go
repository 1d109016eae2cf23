package engine

// CountQuerySplits counts the splits of queries into words from now on;
// stop restores the uncounted split.
func CountQuerySplits() (count func() int, stop func()) {
	n, split := 0, splitQuery
	splitQuery = func(q string) [][2]int {
		n++
		return split(q)
	}
	return func() int { return n }, func() { splitQuery = split }
}
