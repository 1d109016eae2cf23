package sqlite_test

import (
	"testing"
	"time"
)

func BenchmarkVocab(b *testing.B) {
	s := searchStore(b)
	qs := benchQueries()
	_ = s
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		n, err := s.VocabProbe(bg, qs[i])
		b.Logf("%q -> %v in %v (%v)", qs[i], n, time.Since(t0), err)
	}
}
