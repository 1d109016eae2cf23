package capture

import "testing"

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
