package thesaurus

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinesAtMatchesReadAt: entries read from a mapped file are the lines
// read with ReadAt, at every offset: CRLF endings, a last line without
// its newline, offsets at and past the end, an entry over the bound.
func TestLinesAtMatchesReadAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := range 400 {
		b.WriteString(strings.Repeat("x", rng.IntN(300)))
		b.WriteString("|word ")
		if i%7 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	b.WriteString("last line without newline")
	path := filepath.Join(t.TempDir(), "th.dat")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	d, err := openData(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.b == nil {
		t.Skip("this system does not map files")
	}
	size := int64(b.Len())
	for _, off := range []int64{0, 1, size - 5, size - 1, size, size + 10} {
		for _, n := range []int{1, 2, 5} {
			same(t, plain, d, off, n)
		}
	}
	for range 500 {
		same(t, plain, d, rng.Int64N(size+2), 1+rng.IntN(4))
	}
	// An entry over the bound is refused both ways.
	long := filepath.Join(t.TempDir(), "long.dat")
	if err := os.WriteFile(long, bytes.Repeat([]byte("y"), 3*maxRead), 0o644); err != nil {
		t.Fatal(err)
	}
	lp, _ := os.Open(long)
	defer lp.Close()
	ld, err := openData(long)
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	if _, err := readLines(lp, 0, 1); err != errTooLong {
		t.Fatalf("ReadAt: %v", err)
	}
	if _, err := readLines(ld, 0, 1); err != errTooLong {
		t.Fatalf("mapped: %v", err)
	}
}

func same(t *testing.T, plain *os.File, d *dataFile, off int64, n int) {
	t.Helper()
	want, werr := readLines(plain, off, n)
	got, gerr := readLines(d, off, n)
	if (werr == nil) != (gerr == nil) || len(want) != len(got) {
		t.Fatalf("off %d n %d: mapped %d lines (%v), ReadAt %d (%v)", off, n, len(got), gerr, len(want), werr)
	}
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("off %d n %d line %d: mapped %q, ReadAt %q", off, n, i, got[i], want[i])
		}
	}
}
