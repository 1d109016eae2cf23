package main

import (
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units parseSize accepts, lower-cased.
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// parseSize reads a byte size: a non-negative number with an optional
// unit, KiB, MiB, GiB, TiB (powers of 1024; K, M, G, T alike) or KB, MB,
// GB, TB (powers of 1000), case-insensitive, as in 256MiB, 1.5GiB or 512M.
// A plain number is bytes.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	f, err := strconv.ParseFloat(num, 64)
	mul, ok := sizeUnits[unit]
	if err != nil || !ok || num == "" {
		return 0, usagef("%q is not a size: use a number of bytes with a unit, e.g. 256MiB or 1GiB", s)
	}
	b := f * mul
	if b >= math.MaxInt64 {
		return 0, usagef("%q is too large", s)
	}
	return int64(b), nil
}

// indexMemoryBound reads serve's --index-memory, else $MNEMO_INDEX_MEMORY
// ("" and 0: no bound).
func indexMemoryBound(flagValue string, env func(string) string) (int64, error) {
	name, v := "--index-memory", flagValue
	if v == "" {
		name, v = "MNEMO_INDEX_MEMORY", env("MNEMO_INDEX_MEMORY")
	}
	if v == "" {
		return 0, nil
	}
	n, err := parseSize(v)
	if err != nil {
		return 0, usagef("%s: %v", name, err)
	}
	return n, nil
}
