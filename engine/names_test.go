package engine_test

import (
	"context"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestNameBoostOrdersBySpeaker: a question about someone ranks their own
// turn above the other speaker's turn on the same subject, says so in
// its factors, and every score stays within 0..1 (the ranking is scaled
// by its best when the boost takes it above 1). Without a name the two
// turns keep the order their evidence gives them.
func TestNameBoostOrdersBySpeaker(t *testing.T) {
	f := open(t, "", nil)
	ws := f.remember(t, "",
		mnemo.NewRecord{Text: "Tim: I finished reading Dune by Frank Herbert, a great book about ecology and books"},
		mnemo.NewRecord{Text: "John: I'm reading Dune by Frank Herbert"},
		mnemo.NewRecord{Text: "Maria: the shelter needs blankets"},
	)
	tim, john := ws[0].ID, ws[1].ID
	ctx := mnemo.WithCallerIn(context.Background(), admin, "")
	res, err := f.svc.Recall(ctx, mnemo.RecallRequest{Query: "What books has John read by Herbert?", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 || res.Hits[0].ID != john {
		t.Fatalf("John's own turn is not first: %+v", res.Hits)
	}
	if res.Hits[0].Factors["name_boost"] != 2 {
		t.Errorf("factors of the first hit: %v", res.Hits[0].Factors)
	}
	for _, h := range res.Hits {
		if h.Score < 0 || h.Score > 1 {
			t.Errorf("score %v outside 0..1: %v", h.Score, h.Factors)
		}
		if h.ID == tim && h.Factors["name_boost"] != 0 {
			t.Errorf("Tim's turn boosted by a question about John: %v", h.Factors)
		}
	}
	if s, ok := res.Hits[0].Factors["scale"]; ok && (s <= 0 || s >= 1) {
		t.Errorf("scale %v", s)
	}
	plain, err := f.svc.Recall(ctx, mnemo.RecallRequest{Query: "which books about ecology by Herbert", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Hits) == 0 || plain.Hits[0].ID != tim {
		t.Errorf("without a name the turn with more evidence is not first: %+v", plain.Hits)
	}
}
