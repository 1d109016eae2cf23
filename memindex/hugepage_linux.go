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
func hugePages(p unsafe.Pointer, n uintptr) { advise(p, n, unix.MADV_HUGEPAGE) }

// advise applies madvise advice to the whole pages of the n bytes at p
// when they span at least one huge page.
func advise(p unsafe.Pointer, n uintptr, advice int) {
	const page = 4096
	if n < 2<<20 {
		return // smaller than one huge page
	}
	beg := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + n) &^ (page - 1)
	if end <= beg {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, beg-uintptr(p))), end-beg), advice)
}

// hugeSlice makes a slice of length n and capacity c whose memory is
// backed by huge pages where it is large enough (hugePages). Once it is
// filled, filled must be called: the memory stays in the Go heap after
// the slice is gone, and a heap region left marked would be faulted in
// huge pages — compacted for, zeroed 2 MiB at a time — whenever the
// runtime reuses it for small objects after handing it back to the
// kernel (digests at 100,000 records took half as long again in a process
// that had marked regions and kept them so).
func hugeSlice[T any](n, c int) []T {
	s := make([]T, n, c)
	if c > 0 {
		var z T
		hugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(c)*unsafe.Sizeof(z))
	}
	return s
}

// filled ends the huge-page advice of hugeSlice for s: the pages it has
// stay as they are; the region no longer asks for new ones
// (MADV_NOHUGEPAGE).
func filled[T any](s []T) {
	if c := cap(s); c > 0 {
		var z T
		advise(unsafe.Pointer(unsafe.SliceData(s[:c])), uintptr(c)*unsafe.Sizeof(z), unix.MADV_NOHUGEPAGE)
	}
}

// hugeScratch makes a slice of n zero elements for scattered use (a
// per-entry accumulator) with its pages faulted in now, as huge pages where
// the system allows: a fresh 10 MB array written at random places costs
// a one-shot process one page fault per 4 KiB it touches (2,500 for the
// scores of a keyword query at 1,000,000 records), where faulting in its
// huge pages first costs five.
func hugeScratch[T any](n int) []T {
	s := hugeSlice[T](n, n)
	var z T
	size := int(unsafe.Sizeof(z))
	if size == 0 || n*size < 2<<20 {
		return s // below a huge page: advise did nothing, the pages fault as used
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n*size)
	for i := 0; i < len(b); i += 2 << 20 {
		b[i] = 0
	}
	b[len(b)-1] = 0
	filled(s)
	return s
}
