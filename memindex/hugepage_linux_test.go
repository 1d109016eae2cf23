package memindex

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestHugeSlice: a large slice made for the loader is marked for huge
// pages (VmFlags "hg" on its mapping in /proc/self/smaps) and is an
// ordinary slice otherwise; a small one is left alone.
func TestHugeSlice(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	s := hugeSlice[Entry](10, 40000) // 14 MB
	if len(s) != 10 || cap(s) != 40000 {
		t.Fatalf("len %d cap %d", len(s), cap(s))
	}
	s = append(s, Entry{ID: "x"})
	if s[10].ID != "x" || s[0].ID != "" {
		t.Fatal("not a usable slice")
	}
	mid := uintptr(unsafe.Pointer(&s[:20001][20000]))
	if flags := vmFlags(t, mid); !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the slice's memory is not marked for huge pages: VmFlags %q", flags)
	}
	small := hugeSlice[byte](0, 1000)
	if cap(small) != 1000 {
		t.Fatalf("cap %d", cap(small))
	}
}

// TestHugeScratch: a scratch array is n zero elements, usable everywhere,
// whether it spans huge pages or not, and no longer asks for huge pages
// once made (its later faults are ordinary ones).
func TestHugeScratch(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 3 << 20} { // 3M float64: 24 MB
		s := hugeScratch[float64](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("n %d: len %d cap %d", n, len(s), cap(s))
		}
		for i, x := range s {
			if x != 0 {
				t.Fatalf("n %d: element %d is %v", n, i, x)
			}
		}
		if n > 0 {
			s[0], s[n-1] = 1, 2
		}
		if n == 3<<20 {
			if flags := vmFlags(t, uintptr(unsafe.Pointer(&s[n/2]))); strings.Contains(" "+flags+" ", " hg ") {
				t.Errorf("the scratch array still asks for huge pages: VmFlags %q", flags)
			}
		}
	}
}

// vmFlags returns the VmFlags of the mapping holding address a.
func vmFlags(t *testing.T, a uintptr) string {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if len(fs) > 0 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			lo, hi, _ := strings.Cut(fs[0], "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(a) >= l && uint64(a) < h
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping holds %#x", a)
	return ""
}

// TestFilledEndsHugePages: once filled, the slice's memory no longer asks
// for huge pages.
func TestFilledEndsHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	s := hugeSlice[Entry](0, 40000)
	s = append(s, Entry{ID: "x"})
	filled(s)
	mid := uintptr(unsafe.Pointer(&s[:20001][20000]))
	if flags := vmFlags(t, mid); strings.Contains(" "+flags+" ", " hg ") || !strings.Contains(" "+flags+" ", " nh ") {
		t.Errorf("filled slice's memory still asks for huge pages: VmFlags %q", flags)
	}
}

// TestPopulated: a populated table is n zero elements whose pages are
// resident when made (mincore), so that its first reads do not map the
// zero page to be copied on the first write.
func TestPopulated(t *testing.T) {
	t.Run("madvise", func(t *testing.T) { testPopulated(t, populated[uint32]) })
	t.Run("touching", func(t *testing.T) { // where the kernel lacks MADV_POPULATE_WRITE
		testPopulated(t, func(n int) []uint32 {
			s := make([]uint32, n)
			if n > 0 {
				touchPages(unsafe.Pointer(&s[0]), uintptr(4*n))
			}
			return s
		})
	})
}

func testPopulated(t *testing.T, populated func(int) []uint32) {
	for _, n := range []int{0, 1, 5000, 1 << 20} {
		s := populated(n)
		if len(s) != n {
			t.Fatalf("len %d, want %d", len(s), n)
		}
		if n > 0 { // before anything reads it
			const page = 4096
			beg := uintptr(unsafe.Pointer(&s[0])) &^ (page - 1)
			end := uintptr(unsafe.Pointer(&s[n-1])) + 4
			vec := make([]byte, (end-beg+page-1)/page)
			if _, _, errno := unix.Syscall(unix.SYS_MINCORE, beg, end-beg, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
				t.Skipf("mincore: %v", errno)
			}
			for i, v := range vec {
				if v&1 == 0 {
					t.Fatalf("n %d: page %d of %d not resident after populated", n, i, len(vec))
				}
			}
		}
		for i, x := range s {
			if x != 0 {
				t.Fatalf("n %d: element %d is %d", n, i, x)
			}
		}
	}
}
