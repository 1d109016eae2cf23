package capturewrite

import "math/bits"

// SHA-1 (FIPS 180-4 §6.1), for git object names only: crypto/sha1 would
// make the package wait for most of the binary to initialise (see the
// package documentation). The objects a capture writes are a few hundred
// bytes, so the plain form below is as fast as an assembly one would be
// for them. TestSHA1 and FuzzSHA1 compare it with crypto/sha1.

// hashLen is the length of a SHA-1 object name.
const hashLen = 20

// sha1Sum returns the SHA-1 digest of data.
func sha1Sum(data []byte) [hashLen]byte {
	h := [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}
	full := len(data) &^ 63
	sha1Blocks(&h, data[:full])

	// The padding: 0x80, zeros, and the length in bits, big-endian, in one
	// block, or two when fewer than 9 bytes are left in the first.
	var tail [128]byte
	n := copy(tail[:], data[full:])
	tail[n] = 0x80
	end := 64
	if n >= 56 {
		end = 128
	}
	putUint64(tail[end-8:], uint64(len(data))<<3)
	sha1Blocks(&h, tail[:end])

	var out [hashLen]byte
	for i, v := range h {
		putUint32(out[4*i:], v)
	}
	return out
}

// sha1Blocks runs the compression function over every 64-byte block of p.
func sha1Blocks(h *[5]uint32, p []byte) {
	var w [16]uint32
	for ; len(p) >= 64; p = p[64:] {
		for i := range w {
			j := 4 * i
			w[i] = uint32(p[j])<<24 | uint32(p[j+1])<<16 | uint32(p[j+2])<<8 | uint32(p[j+3])
		}
		a, b, c, d, e := h[0], h[1], h[2], h[3], h[4]
		for i := range 80 {
			if i >= 16 {
				// The message schedule, kept in a ring of 16 words.
				x := w[(i-3)&15] ^ w[(i-8)&15] ^ w[(i-14)&15] ^ w[i&15]
				w[i&15] = bits.RotateLeft32(x, 1)
			}
			var f, k uint32
			switch {
			case i < 20:
				f, k = b&c|^b&d, 0x5A827999
			case i < 40:
				f, k = b^c^d, 0x6ED9EBA1
			case i < 60:
				f, k = b&c|b&d|c&d, 0x8F1BBCDC
			default:
				f, k = b^c^d, 0xCA62C1D6
			}
			t := bits.RotateLeft32(a, 5) + f + e + k + w[i&15]
			a, b, c, d, e = t, a, bits.RotateLeft32(b, 30), c, d
		}
		h[0] += a
		h[1] += b
		h[2] += c
		h[3] += d
		h[4] += e
	}
}

func putUint32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func putUint64(b []byte, v uint64) {
	putUint32(b, uint32(v>>32))
	putUint32(b[4:], uint32(v))
}
