package synth

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestWorkloadDeterministic(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := NewWorkload(7, now), NewWorkload(7, now)
	ra, rb := a.Records(50), b.Records(50)
	kinds, scopes := map[mnemo.Kind]bool{}, map[string]bool{}
	for i := range ra {
		if ra[i].Text != rb[i].Text || ra[i].Kind != rb[i].Kind || !ra[i].At.Equal(*rb[i].At) {
			t.Fatalf("record %d differs for the same seed", i)
		}
		r := ra[i].Record()
		r.Normalize(now)
		if err := r.Validate(mnemo.DefaultLimits); err != nil {
			t.Fatalf("record %d invalid: %v", i, err)
		}
		kinds[ra[i].Kind], scopes[ra[i].Scope] = true, true
	}
	if len(kinds) < 4 || len(scopes) < 5 {
		t.Errorf("too little variety: %d kinds, %d scopes", len(kinds), len(scopes))
	}
	if a.Query() != b.Query() {
		t.Error("queries differ for the same seed")
	}
	if NewWorkload(8, now).Record().Text == NewWorkload(7, now).Record().Text {
		t.Error("different seeds give the same text")
	}
	// Zipf: the most frequent word is far more common than a mid-rank one.
	counts := map[string]int{}
	for _, r := range a.Records(300) {
		for _, w := range strings.Fields(strings.ToLower(r.Text)) {
			counts[strings.Trim(w, ".,")]++
		}
	}
	var cs []int
	for _, c := range counts {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	if len(counts) < 500 || cs[len(cs)-1] < 10*cs[len(cs)/2] {
		t.Errorf("vocabulary %d words, max count %d, median %d: not Zipf-like", len(counts), cs[len(cs)-1], cs[len(cs)/2])
	}
}

// Streams of one workload share its words, not its texts; the same seed
// gives the same stream.
func TestWorkloadStreams(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := NewWorkload(7, now)
	a, b, c := w.Stream(1), w.Stream(1), w.Stream(2)
	vocab := map[string]bool{}
	for i := range Vocabulary {
		vocab[strings.ToLower(w.words.At(i))] = true
	}
	ra, rb, rc := a.Records(20), b.Records(20), c.Records(20)
	for i := range ra {
		if ra[i].Text != rb[i].Text {
			t.Fatalf("record %d differs for the same stream seed", i)
		}
		if ra[i].Text == rc[i].Text {
			t.Fatalf("record %d is the same for two stream seeds", i)
		}
	}
	known, all := 0, 0
	for _, r := range rc {
		for _, f := range strings.Fields(strings.ToLower(r.Text)) {
			all++
			if vocab[strings.Trim(f, ".,")] {
				known++
			}
		}
	}
	if known < all*8/10 {
		t.Errorf("%d of %d words of another stream are the workload's", known, all)
	}
	if other := NewWorkload(8, now).Stream(2).Record().Text; other == rc[0].Text {
		t.Error("another workload's stream gives the same text")
	}
}
