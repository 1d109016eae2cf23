//go:build !unix

package safefile

// nonBlock is 0 where FIFOs do not block an open.
const nonBlock = 0
