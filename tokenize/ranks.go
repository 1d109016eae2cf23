package tokenize

import (
	_ "embed"
	"encoding/binary"
	"math"
	"strings"
)

// o200k_base's vocabulary as a sorted table the binary carries, so that a
// short-lived process (a hook, a one-shot command) counts tokens without
// first building the tokenizer library's map of its 200,000 tokens (about
// 50 ms of CPU and 20 MB of heap per process). The table is generated from
// the library's own vocabulary and checked against it by the tests
// (TestRanksFileMatchesLibrary; `go test ./tokenize -run RanksFile -update`
// writes it again after a change of the library).
//
// Layout (little-endian): magic "MNBPE002", the token count n, n+1 offsets
// of the tokens in the byte area, n ranks, the prefix index (65,537 token
// numbers: entry p is the first token not below the two bytes p>>8, p&255,
// the last is n), then the byte area: the tokens' bytes, sorted bytewise.
// A lookup searches only the tokens of its first two bytes (a few dozen,
// side by side) instead of all 200,000 across 3 MB: 18 cache misses fewer.
//
//go:embed o200k_ranks.bin
var o200kRanksFile string

const (
	ranksMagic   = "MNBPE002"
	prefixSlots  = 1<<16 + 1 // the prefix index's entries
	prefixTokens = 2         // bytes of the prefix it indexes
)

// ranks is a vocabulary read in place from a ranks file.
type ranks struct {
	n      int
	offs   string // (n+1) × uint32
	ranks  string // n × uint32
	prefix string // prefixSlots × uint32
	bytes  string
}

// parseRanks reads a ranks file; ok is false when it is malformed.
func parseRanks(b string) (r ranks, ok bool) {
	if len(b) < 12 || b[:8] != ranksMagic {
		return r, false
	}
	n := int(binary.LittleEndian.Uint32([]byte(b[8:12])))
	head := 12 + 4*(n+1) + 4*n + 4*prefixSlots
	if n <= 0 || head > len(b) {
		return r, false
	}
	r = ranks{n: n, offs: b[12 : 12+4*(n+1)], ranks: b[12+4*(n+1) : 12+8*n+4], prefix: b[12+8*n+4 : head], bytes: b[head:]}
	if r.off(0) != 0 || r.off(n) != len(r.bytes) || r.u32(r.prefix, prefixSlots-1) != n {
		return ranks{}, false
	}
	for i := range n {
		if r.off(i) > r.off(i+1) {
			return ranks{}, false
		}
	}
	return r, true
}

// u32 is the i-th little-endian uint32 of table t, as an int.
func (r *ranks) u32(t string, i int) int {
	return int(uint32(t[4*i]) | uint32(t[4*i+1])<<8 | uint32(t[4*i+2])<<16 | uint32(t[4*i+3])<<24)
}

func (r *ranks) off(i int) int { return r.u32(r.offs, i) }

func (r *ranks) token(i int) string { return r.bytes[r.off(i):r.off(i+1)] }

// rank returns the rank of token s, or math.MaxUint32 when s is not a
// token.
func (r *ranks) rank(s string) uint32 {
	lo, hi := 0, r.n
	if len(s) >= prefixTokens {
		// The tokens beginning with s's first two bytes (the index is
		// checked as read: out of order or bounds, the whole table).
		p := int(s[0])<<8 | int(s[1])
		if a, b := r.u32(r.prefix, p), r.u32(r.prefix, p+1); a <= b && b <= r.n {
			lo, hi = a, b
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if strings.Compare(r.token(m), s) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < r.n && r.token(lo) == s {
		return uint32(r.ranks[4*lo]) | uint32(r.ranks[4*lo+1])<<8 | uint32(r.ranks[4*lo+2])<<16 | uint32(r.ranks[4*lo+3])<<24
	}
	return math.MaxUint32
}

// bpeMax is the longest piece count merges here; the library counts
// longer ones (rare: a long run of letters or symbols), whose merges it
// does in O(n log n) rather than this O(n²).
const bpeMax = 96

// count returns the number of tokens byte-level BPE makes of piece (one
// piece of the split pattern): the whole piece when it is a token, else
// the adjacent parts with the lowest-ranked union merged, leftmost first,
// until no union is a token — tiktoken's byte_pair_merge, as the library
// does it (TestBPEMatchesLibrary, FuzzBPEMatchesLibrary).
func (r *ranks) count(piece string) int {
	if len(piece) <= 1 || r.rank(piece) != math.MaxUint32 {
		return min(len(piece), 1)
	}
	// starts[i] is where part i begins; pair[i] the rank of parts i and
	// i+1 together.
	var sbuf [bpeMax + 1]int
	var pbuf [bpeMax]uint32
	starts := sbuf[:0]
	for i := 0; i <= len(piece); i++ {
		starts = append(starts, i)
	}
	pair := pbuf[:0]
	for i := 0; i+2 < len(starts); i++ {
		pair = append(pair, r.rank(piece[starts[i]:starts[i+2]]))
	}
	for len(pair) > 0 {
		best, at := uint32(math.MaxUint32), -1
		for i, x := range pair {
			if x < best {
				best, at = x, i
			}
		}
		if at < 0 {
			break
		}
		// Merge parts at and at+1: drop the boundary at+1.
		starts = append(starts[:at+1], starts[at+2:]...)
		pair = append(pair[:at], pair[at+1:]...)
		if at < len(pair) {
			pair[at] = r.pairRank(piece, starts, at)
		}
		if at > 0 {
			pair[at-1] = r.pairRank(piece, starts, at-1)
		}
	}
	return len(starts) - 1
}

// pairRank is the rank of parts i and i+1 together.
func (r *ranks) pairRank(piece string, starts []int, i int) uint32 {
	if i+2 >= len(starts) {
		return math.MaxUint32
	}
	return r.rank(piece[starts[i]:starts[i+2]])
}
