package memindex

import "golang.org/x/sys/cpu"

// hasPopcnt is whether the processor counts bits in one instruction, as
// every x86-64 processor since 2008 does: the loops over sketches then
// run in assembly. Go's bits.OnesCount64 checks for the instruction at
// each use unless built for GOAMD64=v2 or later, and those checks took
// half the time of a scan of a million sketches.
var hasPopcnt = cpu.X86.HasPOPCNT

//go:noescape
func hamSlots8(round *uint64, q *[8]uint64, dist *uint16, hist *int, n int)

//go:noescape
func hamList16(rest *uint64, q *[16]uint64, list *int32, dist *uint16, hist *int, n int)

// prefetch asks for the n bytes at p to be brought into the cache, for
// scattered reads to come; it never faults.
//
//go:noescape
func prefetch(p *int8, n int)
