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
// the system allows and it spans one. A fresh array read before it is
// written (an accumulator tests its element first) otherwise costs two
// faults a page: one mapping the shared zero page, then one copying it,
// which flushes the page from every core's TLB the process ran on; at
// 100,000 records those faults on a keyword query's scores and the lazy
// entries' slots were about 5 ms of a one-shot digest's 38.
func hugeScratch[T any](n int) []T {
	s := hugeSlice[T](n, n)
	if n == 0 {
		return s
	}
	var z T
	size := uintptr(unsafe.Sizeof(z))
	populate(unsafe.Pointer(unsafe.SliceData(s)), uintptr(n)*size)
	filled(s)
	return s
}

// populate faults in the n bytes of fresh (zero, not yet written) memory at
// p as written pages, in one call (MADV_POPULATE_WRITE, Linux 5.14), or
// where the kernel lacks it by writing a zero into each page. It changes no
// byte.
func populate(p unsafe.Pointer, n uintptr) {
	const page = 4096
	if n == 0 {
		return
	}
	// Whole pages, those shared with other objects included (their
	// contents are left as they are): addresses, not pointers, since a
	// pointer may not leave its allocation.
	beg := uintptr(p) &^ (page - 1)
	end := (uintptr(p) + n + page - 1) &^ (page - 1)
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, beg, end-beg, unix.MADV_POPULATE_WRITE); errno == 0 {
		return
	}
	touchPages(p, n)
}

// touchPages writes a zero into each page of the n bytes of fresh (zero)
// memory at p: populate where the kernel cannot.
func touchPages(p unsafe.Pointer, n uintptr) {
	const page = 4096
	b := unsafe.Slice((*byte)(p), n)
	for i := uintptr(0); i < n; i += page - (uintptr(unsafe.Pointer(&b[i])) & (page - 1)) {
		b[i] = 0
	}
}

// populated is make([]T, n) with its pages faulted in as written now
// (populate): for a table of flags or counters read before written.
func populated[T any](n int) []T {
	s := make([]T, n)
	if n > 0 {
		var z T
		populate(unsafe.Pointer(unsafe.SliceData(s)), uintptr(n)*unsafe.Sizeof(z))
	}
	return s
}
