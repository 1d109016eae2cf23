package memindex

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePages asks the kernel to back the n bytes at p with transparent huge
// pages when it faults them in (madvise MADV_HUGEPAGE; a no-op where the
// system disables them). A large slice the loader is about to fill
// otherwise costs a page fault per 4 KiB on first write: 9,000 faults for
// the entries of 100,000 records, which on a virtual machine took a
// one-shot command's process longer than everything it computes. Call it
// on fresh memory not yet written; the range is trimmed to whole pages.
func hugePages(p unsafe.Pointer, n uintptr) {
	const page = 4096
	if n < 2<<20 {
		return // smaller than one huge page
	}
	beg := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + n) &^ (page - 1)
	if end <= beg {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, beg-uintptr(p))), end-beg), unix.MADV_HUGEPAGE)
}

// hugeSlice makes a slice of length n and capacity c whose memory is
// backed by huge pages where it is large enough (hugePages).
func hugeSlice[T any](n, c int) []T {
	s := make([]T, n, c)
	if c > 0 {
		var z T
		hugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(c)*unsafe.Sizeof(z))
	}
	return s
}
