package sqlite_test

import (
	"context"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
)

// One digest or recall reads the store's change stamp once and compiles
// its filter once, though it searches by keyword (its own terms and
// related ones), by vector, reads IDF and loads records.
func TestReadChecksTheStoreOnce(t *testing.T) {
	svc, st := enginetest.Open(t, nil)
	ctx := mnemo.WithCallerIn(context.Background(), mnemo.Caller{Name: "t", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "")
	_, err := svc.Remember(ctx, []mnemo.NewRecord{
		{Text: "We pinned the parser's version in Ingest because 2.4 broke dates."},
		{Text: "The ingest service parses the feed every five minutes."},
		{Text: "Decision: the parser stays on 2.3 until the date bug is fixed.", Kind: mnemo.KindDecision, Layer: mnemo.LayerWorkflow},
		{Text: "Lunch options near the office include a ramen bar."},
	}, mnemo.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := mnemo.Filter{Layers: []mnemo.Layer{mnemo.LayerDomain, mnemo.LayerWorkflow}}
	for _, op := range []string{"digest", "recall"} {
		seq, comp := st.SeqReads(), st.Compiles()
		if op == "digest" {
			_, err = svc.Digest(ctx, mnemo.DigestRequest{Task: "why did we pin the parser version in ingest", Filter: f})
		} else {
			_, err = svc.Recall(ctx, mnemo.RecallRequest{Query: "why did we pin the parser version in ingest", Filter: f})
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := st.SeqReads() - seq; d != 1 {
			t.Errorf("%s read the change stamp %d times, want 1", op, d)
		}
		if d := st.Compiles() - comp; d != 1 {
			t.Errorf("%s compiled its filter %d times, want 1", op, d)
		}
	}
}
