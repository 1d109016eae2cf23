package capture

import (
	"bytes"
	"compress/zlib"
	"io"
	"strings"
	"testing"
)

// TestZlibStored checks the stored zlib stream against compress/zlib's
// reader, which verifies the block lengths and the Adler-32 checksum.
func TestZlibStored(t *testing.T) {
	for _, n := range []int{0, 1, 4085, 65535, 65536, 150000} {
		raw := []byte(strings.Repeat("prompt ", n/7+1)[:n])
		zr, err := zlib.NewReader(bytes.NewReader(zlibStored(raw)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, raw) {
			t.Fatalf("%d bytes: round trip differs", n)
		}
	}
}

func TestApplyDeltaRejectsBadInput(t *testing.T) {
	base := []byte("hello world")
	// source size 11, target size 5, copy 5 bytes from offset 6.
	good := []byte{11, 5, 0x80 | 0x01 | 0x10, 6, 5}
	if out, err := applyDelta(base, good); err != nil || string(out) != "world" {
		t.Fatalf("applyDelta = %q, %v", out, err)
	}
	for _, d := range [][]byte{
		{},
		{12, 5, 0x91, 6, 5},  // wrong source size
		{11, 6, 0x91, 6, 5},  // wrong target size
		{11, 5, 0x91, 8, 5},  // copy past the end of base
		{11, 5, 0},           // reserved opcode
		{11, 5, 3, 'a', 'b'}, // insert past the end of the delta
		{11, 5, 0x91, 6},     // truncated copy
	} {
		if _, err := applyDelta(base, d); err == nil {
			t.Errorf("applyDelta(%v) succeeded", d)
		}
	}
}
