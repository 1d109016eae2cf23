package tokenize_test

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/synth"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// BenchmarkCountSynth counts the texts of 20,000 generated records (those
// of `mnemo bench perf`) on every core, their pieces' counts remembered as
// a store's writes leave them:
//
//	go test ./tokenize -run '^$' -bench CountSynth -benchtime 200000x
func BenchmarkCountSynth(b *testing.B) {
	tok, err := tokenize.Get("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	syn := synth.NewWorkload(1, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	var texts []string
	for _, r := range syn.Records(20000) {
		texts = append(texts, r.Text)
	}
	for _, t := range texts {
		tok.Count(t)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			tok.Count(texts[i%len(texts)])
			i++
		}
	})
}
