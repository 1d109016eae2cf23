//go:build !linux

package memindex

// hugeSlice makes a slice of length n and capacity c.
func hugeSlice[T any](n, c int) []T { return make([]T, n, c) }

// filled ends the huge-page advice of hugeSlice (none here).
func filled[T any](s []T) {}

// hugeScratch makes a slice of n zero elements.
func hugeScratch[T any](n int) []T { return make([]T, n) }

// populated is make([]T, n).
func populated[T any](n int) []T { return make([]T, n) }
