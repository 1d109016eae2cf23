package memindex

import (
	"math/rand"
	"slices"
	"testing"
)

// TestHammingLoops checks the loops over sketches (in assembly where the
// processor has a popcount instruction) against the distance counted one
// word at a time: every distance, every count of the histogram, at every
// span of slots and for lists of slots in any order.
func TestHammingLoops(t *testing.T) {
	if !hasPopcnt {
		t.Log("no assembly on this processor: the Go loops are checked")
	}
	rng := rand.New(rand.NewSource(3))
	const slots = 300
	var tab signTable
	tab.reset(sketchWords(384), slots)
	bits := make([]uint64, sketchWords(384))
	for range slots {
		for j := range bits {
			bits[j] = rng.Uint64() & rng.Uint64() // not uniform: distances vary
		}
		tab.add(bits)
	}
	qs := make([]uint64, len(bits))
	for j := range qs {
		qs[j] = rng.Uint64()
	}
	for _, span := range [][2]int{{0, slots}, {0, 1}, {5, 6}, {7, 100}, {299, 300}, {3, 3}} {
		lo, hi := span[0], span[1]
		dist := make([]uint16, slots)
		hist := make([]int, len(qs)*64+1)
		hamming(tab.first, qs[:tab.per], dist, hist, lo, hi)
		want := make([]int, len(hist))
		for k := lo; k < hi; k++ {
			d := hamN(tab.first[k*8:k*8+8], qs[:8])
			want[d]++
			if int(dist[k]) != d {
				t.Fatalf("slots %d–%d: slot %d at %d, want %d", lo, hi, k, dist[k], d)
			}
		}
		if !slices.Equal(hist, want) {
			t.Fatalf("slots %d–%d: the histogram differs", lo, hi)
		}
		// The rest of some of them, listed in any order.
		list := []int32{}
		for k := lo; k < hi; k++ {
			if rng.Intn(3) > 0 {
				list = append(list, int32(k))
			}
		}
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		clear(hist)
		clear(want)
		before := slices.Clone(dist)
		tab.restDistances(qs, list, dist, hist)
		for _, k := range list {
			d := int(before[k]) + hamN(tab.rest[int(k)*16:int(k)*16+16], qs[8:])
			want[d]++
			if int(dist[k]) != d {
				t.Fatalf("slots %d–%d: the rest of slot %d at %d, want %d", lo, hi, k, dist[k], d)
			}
		}
		if !slices.Equal(hist, want) {
			t.Fatalf("slots %d–%d: the histogram of whole distances differs", lo, hi)
		}
	}
	// A slot out of range is refused, not read.
	defer func() {
		if recover() == nil && hasPopcnt {
			t.Fatal("a slot past the table was read")
		}
	}()
	tab.restDistances(qs, []int32{slots}, make([]uint16, slots+1), make([]int, len(qs)*64+1))
}
