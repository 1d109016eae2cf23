//go:build linux || darwin || freebsd

package sqlite

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mnemo-dev/mnemo/memindex"
)

// mapSnapshot maps size bytes of f privately: the index reads them in
// place and its edits copy the pages they touch, never writing the file.
// grow maps a section again with room after it, so that appending to the
// vectors or sketches does not copy them. release unmaps everything; it
// must not be called once an index points into the mapping.
func mapSnapshot(f *os.File, size int) (data []byte, grow memindex.SnapshotGrow, release func(), err error) {
	data, err = unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, nil, err
	}
	type region struct {
		p unsafe.Pointer
		n uintptr
	}
	var extra []region
	grow = func(off, n, more int) []byte {
		page := os.Getpagesize()
		if off%page != 0 {
			return nil
		}
		total := uintptr((n + more + page - 1) / page * page)
		base, err := unix.MmapPtr(-1, 0, nil, total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			return nil
		}
		if _, err := unix.MmapPtr(int(f.Fd()), int64(off), base, uintptr(n), unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
			unix.MunmapPtr(base, total)
			return nil
		}
		extra = append(extra, region{base, total})
		return unsafe.Slice((*byte)(base), total)[:n]
	}
	release = func() {
		for _, r := range extra {
			unix.MunmapPtr(r.p, r.n)
		}
		unix.Munmap(data)
	}
	return data, grow, release, nil
}
