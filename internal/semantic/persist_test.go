package semantic

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"sync"
	"testing"
)

var smallModel = sync.OnceValues(func() (*Model, error) {
	return Train(context.Background(), genSynCorpus(8, 400, 10, 2).texts, Config{Dim: 8, MinVocab: 50})
})

func TestMarshalRoundTrip(t *testing.T) {
	c := genSynCorpus(9, 2000, 20, 2)
	m := trainSyn(t, c, Config{})
	b := m.Marshal()
	u, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u.Marshal(), b) {
		t.Fatal("Marshal(Unmarshal(b)) != b")
	}
	if u.Stamp() != CorpusStamp(c.texts) || u.Config() != m.Config() || u.Len() != m.Len() {
		t.Errorf("stamp %v config %+v len %d; want %v %+v %d", u.Stamp(), u.Config(), u.Len(), CorpusStamp(c.texts), m.Config(), m.Len())
	}
	p := c.pairs[0]
	if u.Similarity(p[0], p[1]) != m.Similarity(p[0], p[1]) || u.NullSim(0.99) != m.NullSim(0.99) {
		t.Error("similarities differ after the round trip")
	}
	if !slices.Equal(u.Expand([]string{p[0]}, 5, 0.3), m.Expand([]string{p[0]}, 5, 0.3)) {
		t.Error("expansions differ after the round trip")
	}
	t.Logf("%d terms × %d dimensions: %d bytes", m.Len(), m.Dim(), len(b))
}

// reseal recomputes the checksum of b, so that damage reaches the parser.
func reseal(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	b = slices.Clone(b)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli()))
	return b
}

func TestUnmarshalRejects(t *testing.T) {
	m, err := smallModel()
	if err != nil {
		t.Fatal(err)
	}
	good := m.Marshal()
	flip := slices.Clone(good)
	flip[len(flip)/2] ^= 0x40
	version := slices.Clone(good)
	version[8] = 9
	for name, b := range map[string][]byte{
		"empty":     nil,
		"foreign":   []byte("SQLite format 3\x00 and then some more bytes to pass the length check ........................"),
		"truncated": good[:len(good)-100],
		"flipped":   flip,
		"version":   reseal(version),
		"extended":  reseal(append(slices.Clone(good), 0, 0, 0, 0)),
		"bad dim":   reseal(append(append(slices.Clone(good[:12]), 0xff, 0xff, 0, 0), good[16:]...)),
	} {
		if _, err := Unmarshal(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	m, err := smallModel()
	if err != nil {
		f.Fatal(err)
	}
	good := m.Marshal()
	f.Add(good)
	f.Add(good[:headerSize+10])
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, d := range [][]byte{b, reseal(b)} {
			u, err := Unmarshal(d)
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("error %v does not wrap ErrFormat", err)
				}
				continue
			}
			// A model that loads works.
			u.Neighbours(u.terms[0], 3)
			u.Expand(u.terms[:1], 3, u.NullSim(0.99))
			u.Embed(u.terms[0])
			if !slices.Equal(u.Marshal(), d) {
				t.Fatal("round trip differs")
			}
		}
	})
}
