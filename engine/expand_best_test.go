package engine

import (
	"fmt"
	"slices"
	"testing"
)

// bestRelated keeps, of the related terms the store holds, the strongest
// maxThesaurusPerWord per query word and maxExpansionsPerGroup in all, in
// index order.
func TestBestRelated(t *testing.T) {
	e := &expansion{weight: map[string]float64{}, origin: map[string]string{}}
	var held []string
	for i := range 12 { // twelve related words of "car", weights 0.90 .. 0.35
		term := fmt.Sprintf("car%02d", i)
		e.weight[term], e.origin[term] = 0.9-0.05*float64(i), "car"
		held = append(held, term)
	}
	for i := range 40 { // forty of "road", all weaker
		term := fmt.Sprintf("road%02d", i)
		e.weight[term], e.origin[term] = 0.3-0.005*float64(i), "road"
		held = append(held, term)
	}
	slices.Sort(held)
	got := bestRelated(e, slices.Clone(held))
	if len(got) != 2*maxThesaurusPerWord || !slices.IsSorted(got) {
		t.Fatalf("kept %d terms %v, want %d in order", len(got), got, 2*maxThesaurusPerWord)
	}
	for i := range maxThesaurusPerWord {
		for _, want := range []string{fmt.Sprintf("car%02d", i), fmt.Sprintf("road%02d", i)} {
			if !slices.Contains(got, want) {
				t.Errorf("%s, among the %d strongest of its word, was cut: %v", want, maxThesaurusPerWord, got)
			}
		}
	}
	if slices.Contains(got, "car08") || slices.Contains(got, "road08") {
		t.Errorf("a ninth term of one word kept: %v", got)
	}
}
