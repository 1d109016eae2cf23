package engine_test

import (
	"context"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// TestCategoryQuestionsFindMembers: a question asking for a category
// (which cities, what martial arts, how many children) finds the memory
// that names a member of it and shares no word with the question, among
// distractors on the same people; an irregular form (bought) meets its
// base form (buy).
func TestCategoryQuestionsFindMembers(t *testing.T) {
	th, err := thesaurus.Load(thesaurus.Config{Paths: []string{"/usr/share/wordnet"}})
	if err != nil {
		t.Skip("WordNet (Debian wordnet-base) is not installed")
	}
	f := open(t, "", func(c *engine.Config) { c.Thesaurus = th })
	recs := []mnemo.NewRecord{
		{Text: "Jon: took a short trip last week to Rome to clear my mind"},
		{Text: "Jon: my studio opening went better than expected"},
		{Text: "John: I'm off to do some taekwondo tonight"},
		{Text: "John: the team dinner ran late again"},
		{Text: "Maria: my son finally learned to ride his bike"},
		{Text: "Maria: the shelter needs more blankets this winter"},
		{Text: "Tom: I bought a second-hand car from the neighbour"},
		{Text: "Tom: the neighbour lent me a ladder"},
	}
	ids := map[string]string{}
	for _, w := range f.remember(t, "", recs...) {
		ids[w.Text] = w.ID
	}
	for q, want := range map[string]string{
		"Which cities has Jon visited?":         recs[0].Text,
		"What martial arts has John practised?": recs[2].Text,
		"How many children does Maria have?":    recs[4].Text,
		"Which vehicle did Tom buy?":            recs[6].Text,
	} {
		res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: q, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].ID != ids[want] {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Text)
			}
			t.Errorf("%q: first %q, want %q", q, got, want)
			continue
		}
		if w := res.Hits[0].Why; w == nil || w.Evidence == "" {
			t.Errorf("%q: the hit carries no evidence: %+v", q, w)
		}
	}
}
