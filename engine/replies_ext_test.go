package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestReplyFollowsQuestion: a question turn that matches the task brings
// the turn answering it right after it, ahead of a turn that shares the
// task's words, explained as a reply; a caller who may not see the
// answer gets the next turn it may see, never the hidden one; an off-topic
// task brings neither.
func TestReplyFollowsQuestion(t *testing.T) {
	f := open(t, "", nil)
	base := f.now.Add(-time.Hour)
	turn := func(i int, text string, level int) mnemo.NewRecord {
		return mnemo.NewRecord{Text: text, Thread: "session:1", At: at(base.Add(time.Duration(i) * time.Minute)), AccessLevel: level}
	}
	ws := f.remember(t, "",
		turn(0, "Anna: I printed the bake sale flyers yesterday.", 0),
		turn(1, "Anna: How did the bake sale at the school go on Saturday?", 0),
		turn(2, "Ben: Great, we sold forty loaves of walnut bread before noon.", 0),
		turn(3, "Anna: Wonderful, see you at practice.", 0),
		mnemo.NewRecord{Text: "The school board meets on the first Monday of the month."},
		mnemo.NewRecord{Text: "Ben repaired the garden fence with new cedar boards."},
	)
	id := map[string]string{}
	for _, w := range ws {
		id[w.Text[:10]] = w.ID
	}
	question, answer := id["Anna: How "], id["Ben: Great"]
	ctx := mnemo.WithCallerIn(context.Background(), admin, "")
	res, err := f.svc.Recall(ctx, mnemo.RecallRequest{Query: "how did the bake sale go", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 || res.Hits[0].ID != question || res.Hits[1].ID != answer {
		t.Fatalf("hits %v, want the question then its answer", hitTexts(res.Hits))
	}
	// Its own evidence is its neighbour's words (document expansion); it
	// ranks right after the question as its reply.
	if w := res.Hits[1].Why; w == nil || w.ReplyTo != question || w.Evidence == "" || w.Relevance <= 0 {
		t.Errorf("the answer's why = %+v, want a reply to %s with evidence", w, question)
	}

	// The answer above the caller's clearance: the next turn it may see
	// follows the question instead, and the answer never shows.
	f.remember(t, "hidden",
		mnemo.NewRecord{Text: "Anna: How did the bake sale at the school go on Saturday?", Thread: "s:2", At: at(base)},
		mnemo.NewRecord{Text: "Ben: Forty loaves, and the cash box is in the safe, code 4471.", Thread: "s:2", At: at(base.Add(time.Minute)), AccessLevel: 3},
		mnemo.NewRecord{Text: "Anna: Wonderful, see you at practice.", Thread: "s:2", At: at(base.Add(2 * time.Minute))},
	)
	low := mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: "low", Clearance: 1, Role: mnemo.RoleRead}, "hidden")
	res, err = f.svc.Recall(low, mnemo.RecallRequest{Query: "how did the bake sale go", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Text == "Ben: Forty loaves, and the cash box is in the safe, code 4471." {
			t.Fatalf("a caller of clearance 1 got a record of level 3: %v", hitTexts(res.Hits))
		}
	}
	if len(res.Hits) < 2 || res.Hits[1].Text != "Anna: Wonderful, see you at practice." {
		t.Errorf("hits %v, want the question then the next turn the caller may see", hitTexts(res.Hits))
	}

	res, err = f.svc.Recall(ctx, mnemo.RecallRequest{Query: "kubernetes ingress certificate rotation", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("an off-topic task got %v", hitTexts(res.Hits))
	}
}

func hitTexts(hs []mnemo.RecallHit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Text
	}
	return out
}
