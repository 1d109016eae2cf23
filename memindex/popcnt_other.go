//go:build !amd64

package memindex

// hasPopcnt is false where the loops over sketches have no assembly: Go
// counts bits in one instruction there without checking for it.
const hasPopcnt = false

func hamSlots8(round *uint64, q *[8]uint64, dist *uint16, hist *int, n int) {
	panic("memindex: hamSlots8 without assembly")
}

func hamList16(rest *uint64, q *[16]uint64, list *int32, dist *uint16, hist *int, n int) {
	panic("memindex: hamList16 without assembly")
}

// prefetch does nothing here.
func prefetch(p *int8, n int) {}
