package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

// synonymCorpus writes 300 records: 20 about a kitten and 20 about a cat,
// sharing their contexts but never a record, 260 on other topics; then 40
// records at access level 3 that pair "cat" with a secret word.
func synonymCorpus(rng *rand.Rand) []mnemo.NewRecord {
	ctxs := strings.Fields("sleeps purrs milk basket whiskers fur naps sofa chases mouse")
	var other []string
	for i := 0; i < 300; i++ {
		other = append(other, fmt.Sprintf("w%dx", i))
	}
	var out []mnemo.NewRecord
	for i := 0; i < 300; i++ {
		var words []string
		switch {
		case i < 40:
			pet := "cat"
			if i%2 == 1 {
				pet = "kitten"
			}
			words = append(words, "the", pet)
			for k := 0; k < 4; k++ {
				words = append(words, ctxs[rng.Intn(len(ctxs))])
			}
		default:
			for k := 0; k < 12; k++ {
				words = append(words, other[rng.Intn(len(other))])
			}
		}
		out = append(out, mnemo.NewRecord{Text: strings.Join(words, " ") + fmt.Sprintf(" n%d", i)})
	}
	lvl := 3
	for i := 0; i < 40; i++ {
		out = append(out, mnemo.NewRecord{Text: fmt.Sprintf("the cat zanzibarian purrs s%d", i), AccessLevel: lvl})
	}
	return out
}

// TestLearnedChannel: a namespace too small gets no model and works; one
// large enough learns that "kitten" and "cat" are related, so a question
// about kittens reaches the cat records (learned expansion evidence);
// the model is stored and a new process loads it instead of training; it
// learns from level-0 records only; RefreshSemantic retrains only after
// a quarter's growth.
func TestLearnedChannel(t *testing.T) {
	ctx := context.Background()
	f := open(t, "", nil)
	f.remember(t, "small", mnemo.NewRecord{Text: "the cat sleeps on the sofa"})
	if n, err := f.svc.TrainSemantic(ctx, "small"); err != nil || n != 0 {
		t.Fatalf("small namespace: %d %v", n, err)
	}

	rng := rand.New(rand.NewSource(5))
	f.remember(t, "pets", synonymCorpus(rng)...)
	// Only kitten records hold "kitten"; ask about kittens with a context
	// word no record holds, so that cat records can only come in through
	// the learned relation.
	query := "kitten zzyzx"
	before, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "pets"), mnemo.RecallRequest{Query: query, K: 300})
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.svc.TrainSemantic(ctx, "pets")
	if err != nil || n != 300 {
		t.Fatalf("trained on %d records (want the 300 of level 0): %v", n, err)
	}
	after, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "pets"), mnemo.RecallRequest{Query: query, K: 300})
	if err != nil {
		t.Fatal(err)
	}
	cats := func(res *mnemo.RecallResult) (n int) {
		for _, h := range res.Hits {
			if strings.HasPrefix(h.Text, "the cat ") && h.Why != nil && strings.Contains(strings.Join(h.Why.Expanded, ","), "learned:") {
				n++
			}
			for _, e := range h.Why.Expanded {
				if strings.Contains(e, "zanzibarian") {
					t.Fatalf("a level-3 word was learned: %v", h.Why.Expanded)
				}
			}
		}
		return n
	}
	if cats(before) != 0 || cats(after) == 0 {
		t.Fatalf("cat records reached by learned expansion: %d before training, %d after", cats(before), cats(after))
	}

	// Another process on the same store loads the stored model.
	g := open(t, f.path, nil)
	res, err := g.svc.Recall(mnemo.WithCallerIn(ctx, admin, "pets"), mnemo.RecallRequest{Query: query, K: 300})
	if err != nil {
		t.Fatal(err)
	}
	if cats(res) == 0 {
		t.Fatal("a new service did not load the stored model")
	}

	// No retraining without growth; retraining after a quarter more.
	if got, err := g.svc.RefreshSemantic(ctx, false); err != nil || got["pets"] != 0 {
		t.Fatalf("refresh without growth: %v %v", got, err)
	}
	g.remember(t, "pets", synonymCorpus(rand.New(rand.NewSource(6)))[:100]...)
	if got, err := g.svc.RefreshSemantic(ctx, false); err != nil || got["pets"] != 400 {
		t.Fatalf("refresh after growth: %v %v", got, err)
	}

	// Off means off.
	h := open(t, f.path, func(c *engine.Config) { c.NoLearned = true })
	if _, err := h.svc.TrainSemantic(ctx, "pets"); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("training with the channel off: %v", err)
	}
}

// TestLearnedFactor: with a model, the answer carries the learned
// channel's weight and every hit its learned evidence, in 0..1; without
// one, neither.
func TestLearnedFactor(t *testing.T) {
	ctx := context.Background()
	f := open(t, "", nil)
	f.remember(t, "pets", synonymCorpus(rand.New(rand.NewSource(5)))...)
	query := mnemo.RecallRequest{Query: "kitten whiskers", K: 20}
	res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "pets"), query)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Weights[mnemo.FactorLearned]; ok || len(res.Hits) == 0 {
		t.Fatalf("before training: weights %v, %d hits", res.Weights, len(res.Hits))
	}
	if _, err := f.svc.TrainSemantic(ctx, "pets"); err != nil {
		t.Fatal(err)
	}
	if res, err = f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "pets"), query); err != nil {
		t.Fatal(err)
	}
	if res.Weights[mnemo.FactorLearned] != 0.3 {
		t.Errorf("weights %v: want learned 0.3", res.Weights)
	}
	some := false
	for i, h := range res.Hits {
		v, ok := h.Factors[mnemo.FactorLearned]
		if !ok || v < 0 || v > 1 {
			t.Errorf("hit %d %q: learned factor %v (%v)", i, h.Text, v, ok)
		}
		some = some || v > 0
	}
	if !some {
		t.Errorf("no hit has learned evidence: %+v", res.Hits)
	}
}
