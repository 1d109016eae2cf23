package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// Past its first eight entries a digest places only entries scoring at
// least min_score_ratio of its best one: a budget is a ceiling, not a
// target. 0 fills the budget; a ratio outside 0..1 is refused.
func TestDigestScoreRatio(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	recs := []mnemo.NewRecord{{Text: "The Svalbard uplink antenna calibration runs before every night pass.", Importance: fp(0.9)}}
	for i := range 30 {
		recs = append(recs, mnemo.NewRecord{Text: fmt.Sprintf("Shift note %d: the %s rota changed; antenna calibration of unit %d is pending.", i, []string{"north", "south", "east"}[i%3], i), Importance: fp(0.1)})
	}
	f.remember(t, "ops", recs...)
	task := "Svalbard uplink antenna calibration"
	d, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: task, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) == 0 || d.Entries[0].Text != recs[0].Text {
		t.Fatalf("the best entry is not first: %+v", d.Entries)
	}
	best := d.Entries[0].Score
	for i, e := range d.Entries {
		if i >= 8 && e.Score < 0.3*best {
			t.Errorf("entry %d scores %.3f, under 0.3 of the best %.3f", i, e.Score, best)
		}
	}
	if d.Weaker == 0 || len(d.Entries)+d.Omitted+d.Weaker != d.Candidates {
		t.Fatalf("entries %d, omitted %d, weaker %d, candidates %d: want weaker candidates left out", len(d.Entries), d.Omitted, d.Weaker, d.Candidates)
	}
	zero := 0.0
	all, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: task, Budget: 4000, MinScoreRatio: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if all.Weaker != 0 || len(all.Entries) != len(d.Entries)+d.Weaker || all.UsedTokens <= d.UsedTokens {
		t.Errorf("min_score_ratio 0: %d entries (%d tokens), weaker %d; default: %d entries (%d tokens), weaker %d",
			len(all.Entries), all.UsedTokens, all.Weaker, len(d.Entries), d.UsedTokens, d.Weaker)
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if _, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: task, MinScoreRatio: &bad}); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("min_score_ratio %v: %v, want EINVALID", bad, err)
		}
	}
	// A listing by filter has no "best answer": the ratio does not apply.
	one := 1.0
	list, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindFact}}, Budget: 8000, MinScoreRatio: &one})
	if err != nil {
		t.Fatal(err)
	}
	if list.Weaker != 0 || len(list.Entries) != len(recs) {
		t.Errorf("filter-only digest: %d entries, weaker %d, want all %d", len(list.Entries), list.Weaker, len(recs))
	}
}
