//go:build !linux

package memindex

// hugeSlice makes a slice of length n and capacity c.
func hugeSlice[T any](n, c int) []T { return make([]T, n, c) }
