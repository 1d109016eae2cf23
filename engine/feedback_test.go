package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// The words the best match of a query holds find the records that share
// them: among many records matching only a common query word, the one
// about what the best match is about comes next.
func TestFeedbackWordsOrderCandidates(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	topics := []string{"the beach", "a pottery class", "the museum", "a concert", "the park", "a hike", "the library",
		"a bakery", "the garden", "a bookshop", "the river", "a market", "the zoo", "a cinema", "the lake", "a gallery",
		"the harbour", "a workshop", "the station", "a festival", "the bridge", "a theatre", "the stadium", "a cafe"}
	var in []mnemo.NewRecord
	for i, p := range topics {
		who := "Melanie"
		if i%4 == 0 {
			who = "Caroline" // a common word, but not in every record
		}
		in = append(in, mnemo.NewRecord{Text: fmt.Sprintf("%s: I went to %s on day %d and it was lovely.", who, p, i)})
	}
	in = append(in,
		mnemo.NewRecord{Text: "Caroline: Researching adoption agencies has been my dream for years."},
		mnemo.NewRecord{Text: "Caroline: The adoption agencies called back with forms to fill."},
	)
	f.remember(t, "conv", in...)
	res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "conv"), mnemo.RecallRequest{Query: "What did Caroline research?", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 || res.Hits[0].Text != in[len(in)-2].Text || res.Hits[1].Text != in[len(in)-1].Text {
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Text)
		}
		t.Errorf("recall = %q: want the research turn, then the other turn about adoption agencies", got)
	}
}
