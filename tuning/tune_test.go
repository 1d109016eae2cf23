package tuning_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/tuning"
)

// chatter varies the distractors, so that none is a near-duplicate of
// another (recall drops those).
var chatter = []string{"went fine this morning", "ran late because of traffic", "was rehearsed twice on Monday",
	"needed a second pass after lunch", "moved to the north hangar", "finished early, coffee after",
	"got a new checklist binder", "was observed by two interns", "used the spare headset again",
	"started with a short briefing", "ended with paperwork for finance", "was filmed for the training wiki"}

// A namespace whose operators keep correcting the same gap — standing
// rules buried under fresh chatter — tunes its weights towards importance,
// passes the guardrails, and can roll back.
func TestTuneFromCorrections(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	ctx := context.Background()
	day := 24 * time.Hour
	topics := strings.Fields("valve antenna battery thruster gyro radiator hatch beacon heater pump " +
		"relay sensor camera cable winch nozzle filter latch mirror spring")
	type target struct{ id, query string }
	var targets []target
	for _, w := range topics {
		rule := f.Remember(t, "ops", mnemo.NewRecord{Text: fmt.Sprintf("Rule: the %s procedure with the safety officer is mandatory, signed by every shift lead", w),
			Importance: enginetest.Ptr(1.0), At: enginetest.Ptr(f.Now.Add(-200 * day))})[0]
		for j, how := range chatter {
			f.Remember(t, "ops", mnemo.NewRecord{Text: fmt.Sprintf("Note: the %s procedure with the safety officer %s", w, how),
				Importance: enginetest.Ptr(0.3), At: enginetest.Ptr(f.Now.Add(-time.Duration(j+1) * day))})
		}
		targets = append(targets, target{rule.ID, w + " procedure safety officer"})
	}
	inTop := func(tg target, k int) bool {
		res, err := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.RecallRequest{Query: tg.query, K: k})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.ID == tg.id {
				return true
			}
		}
		return false
	}
	// Too little data: a refusal, not an error.
	res, err := f.Svc.Tune(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.CorrectionRequest{}, false)
	if err != nil || res.Accepted || !strings.Contains(res.Reason, "not enough validation data") {
		t.Fatalf("tune without corrections: %+v %v", res, err)
	}
	// Each miss is corrected, naming its retrieval and the missing rule.
	missed := 0
	for _, tg := range targets {
		res, err := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.RecallRequest{Query: tg.query, K: tuning.TuneK})
		if err != nil {
			t.Fatal(err)
		}
		hit := false
		for _, h := range res.Hits {
			hit = hit || h.ID == tg.id
		}
		if hit {
			continue
		}
		missed++
		if err := f.Svc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		f.Remember(t, "ops", mnemo.NewRecord{Kind: mnemo.KindCorrection, Text: "the brief missed the standing rule",
			Provenance: []string{mnemo.MissedRef + tg.id},
			Correction: &mnemo.Correction{Category: "rules", Outcome: mnemo.OutcomeModified, RetrievalID: res.RetrievalID, MissingContext: true}})
	}
	if missed < 16 {
		t.Fatalf("only %d of %d rules were missed: the scenario does not bury them", missed, len(targets))
	}

	dry, err := f.Svc.Tune(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.CorrectionRequest{}, true)
	if err != nil || !dry.Accepted || !dry.DryRun || dry.Version != 0 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if tn, _ := f.Svc.Tuning(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops")); tn.Active != 0 || len(tn.Versions) != 0 {
		t.Fatalf("a dry run saved a version: %+v", tn)
	}
	res, err = f.Svc.Tune(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.CorrectionRequest{}, false)
	if err != nil || !res.Accepted || res.Version != 1 {
		t.Fatalf("tune: %+v %v", res, err)
	}
	t.Logf("missed %d; %s; %+v -> %+v", missed, res.Reason, res.From, res.To)
	if !(res.After >= res.Before+tuning.MinTuneGain) || !(res.HeldOut[1] >= res.HeldOut[0]) {
		t.Errorf("guardrails: %+v", res)
	}
	if again, err := f.Svc.Tune(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.CorrectionRequest{}, false); err != nil || again.Accepted ||
		!strings.Contains(again.Reason, "no setting") || again.From != res.To {
		t.Errorf("tuning again from the tuned weights: %+v %v", again, err)
	}
	w := res.To
	if !(w.Importance > res.From.Importance) || !(w.Recency < res.From.Recency) {
		t.Errorf("tuned weights %+v from %+v: want importance up and recency down", w, res.From)
	}
	if d := w.Sum() - 1; d > 1e-9 || d < -1e-9 || w.Semantic+w.Keyword < 0.4 {
		t.Errorf("tuned weights out of bounds: %+v", w)
	}
	found := 0
	for _, tg := range targets {
		if inTop(tg, tuning.TuneK) {
			found++
		}
	}
	if found < len(targets)-2 {
		t.Errorf("after tuning %d of %d rules are in the top %d", found, len(targets), tuning.TuneK)
	}
	rec, err := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.RecallRequest{Query: targets[0].query})
	if err != nil || rec.Weights[mnemo.FactorImportance] != w.Importance {
		t.Errorf("recall does not report the tuned weights: %v %v", rec.Weights, err)
	}
	// Other namespaces and other presets are untouched.
	if other, _ := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "elsewhere"), mnemo.RecallRequest{Query: "x y"}); other.Weights[mnemo.FactorImportance] != score.Default().Weights.Importance {
		t.Errorf("another namespace took the tuning: %v", other.Weights)
	}
	if alma, _ := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.RecallRequest{Query: targets[0].query, Preset: "alma"}); alma.Weights[mnemo.FactorImportance] == w.Importance {
		t.Errorf("the alma preset took the default's tuning")
	}

	tn, err := f.Svc.Rollback(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), 0)
	if err != nil || tn.Active != 0 || len(tn.Versions) != 1 || len(tn.Events) != 2 || tn.Events[1].Action != "rollback" {
		t.Fatalf("rollback: %+v %v", tn, err)
	}
	if inTop(targets[0], tuning.TuneK) {
		t.Error("after the rollback the first rule is in the top again")
	}
	if _, err := f.Svc.Rollback(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), 9); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("rollback to a missing version: %v", err)
	}
	if tn, err := f.Svc.Rollback(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), 1); err != nil || tn.Active != 1 || !inTop(targets[0], tuning.TuneK) {
		t.Errorf("roll forward to version 1: %+v %v", tn, err)
	}
}

// idInSlot returns an id whose FNV-1a hash falls in slot k of n equal
// slots of the 32-bit range: ids in slots 0..n-1 sort in slot order, and the
// tuner sends even positions to the search half, odd ones to the held-out
// half.
func idInSlot(prefix string, k, n int) string {
	width := uint64(1<<32) / uint64(n)
	for i := 0; ; i++ {
		id := fmt.Sprintf("%s-%d", prefix, i)
		h := fnv.New32a()
		h.Write([]byte(id))
		if uint64(h.Sum32())/width == uint64(k) {
			return id
		}
	}
}

// The guardrail: a setting that helps the search half but hurts the
// held-out half is refused, and nothing changes.
func TestTuneRefusesWhatHurtsTheHeldOutHalf(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	ctx := context.Background()
	day := 24 * time.Hour
	correct := func(query, missedID, corID string) {
		res, err := f.Svc.Recall(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.RecallRequest{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Svc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		f.Remember(t, "ops", mnemo.NewRecord{ID: corID, Kind: mnemo.KindCorrection, Text: "missing context",
			Provenance: []string{mnemo.MissedRef + missedID},
			Correction: &mnemo.Correction{Category: "c", Outcome: mnemo.OutcomeModified, RetrievalID: res.RetrievalID, MissingContext: true}})
	}
	// Search half: old important rules buried under fresh chatter.
	// (The ids below are chosen so that sorted by hash they alternate.)
	for i, w := range strings.Fields("valve antenna battery thruster gyro radiator") {
		rule := f.Remember(t, "ops", mnemo.NewRecord{Text: fmt.Sprintf("Rule: the %s procedure with the safety officer is mandatory, signed by every shift lead", w),
			Importance: enginetest.Ptr(1.0), At: enginetest.Ptr(f.Now.Add(-200 * day))})[0]
		for j, how := range chatter {
			f.Remember(t, "ops", mnemo.NewRecord{Text: fmt.Sprintf("Note: the %s procedure with the safety officer %s", w, how),
				Importance: enginetest.Ptr(0.3), At: enginetest.Ptr(f.Now.Add(-time.Duration(j+1) * day))})
		}
		correct(w+" procedure safety officer", rule.ID, idInSlot("search", 2*i, 12)) // even: searched
	}
	// Held-out half: the fresh, unimportant note is what was needed, among
	// old important rules.
	for i, w := range strings.Fields("hatch beacon heater pump relay sensor") {
		note := f.Remember(t, "ops", mnemo.NewRecord{Text: fmt.Sprintf("Note: the %s check with the duty engineer moved to Tuesday", w),
			Importance: enginetest.Ptr(0.05), At: enginetest.Ptr(f.Now.Add(-day))})[0]
		for j, how := range chatter {
			f.Remember(t, "ops", mnemo.NewRecord{Text: fmt.Sprintf("Rule: the %s check with the duty engineer %s", w, how),
				Importance: enginetest.Ptr(1.0), At: enginetest.Ptr(f.Now.Add(-time.Duration(100+10*j) * day))})
		}
		correct(w+" check duty engineer", note.ID, idInSlot("held", 2*i+1, 12)) // odd: held out
	}
	res, err := f.Svc.Tune(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.CorrectionRequest{}, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; %+v", res.Reason, res.To)
	if res.Accepted || !strings.Contains(res.Reason, "held-out half") || !(res.After > res.Before) || !(res.HeldOut[1] < res.HeldOut[0]) {
		t.Fatalf("want a refusal on the held-out half: %+v", res)
	}
	if tn, _ := f.Svc.Tuning(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops")); tn.Active != 0 || len(tn.Versions) != 0 {
		t.Errorf("a refused tuning was saved: %+v", tn)
	}
}
