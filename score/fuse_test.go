package score_test

import (
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// Fuse: the composite score, then each share and boost in turn, each named
// in the breakdown; triage replaces them all by criticality and
// similarity.
func TestFuse(t *testing.T) {
	p := score.Default()
	w := p.Weights
	fa := score.Factors{Semantic: 0.5, Keyword: 0.4, Recency: 0.3, Importance: 0.5, Confidence: 0.5, Frequency: 0}
	k := score.Ranking{Preset: p, Weights: w, Intent: score.IntentGeneral, MaxRelevance: score.Relevance(w, fa)}
	base, f := k.Fuse(score.Candidate{Factors: fa, Kind: mnemo.KindFact})
	want := p.Score(w, fa)
	if p.GatePriors {
		want = p.GatedScore(w, fa, 1) // the best candidate keeps its priors
	}
	if base != want {
		t.Errorf("score %v, want %v", base, want)
	}
	if _, ok := f["time_boost"]; ok {
		t.Errorf("a boost without reason: %v", f)
	}
	boosted, f := k.Fuse(score.Candidate{Factors: fa, Kind: mnemo.KindFact, InInterval: true, ByName: true})
	if want := score.Round4(score.Round4(base*score.TimeBoost) * score.NameBoost); boosted != want ||
		f["time_boost"] != score.TimeBoost || f["name_boost"] != score.NameBoost {
		t.Errorf("boosted %v %v, want %v", boosted, f, want)
	}
	k.Learned = true
	learned, f := k.Fuse(score.Candidate{Factors: fa, Kind: mnemo.KindFact, Learned: 1})
	if want := (1-score.LearnedWeight)*base + score.LearnedWeight; learned != want || f[mnemo.FactorLearned] != 1 {
		t.Errorf("learned %v %v, want %v", learned, f, want)
	}
	k.Learned, k.Alpha = false, 0.5
	tri, f := k.Fuse(score.Candidate{Factors: fa, Criticality: 0.9, Kind: mnemo.KindFact, InInterval: true})
	if want := score.Round4(score.TriageScore(0.5, 0.9, fa.Semantic)); tri != want || f[mnemo.FactorCriticality] != 0.9 || f["time_boost"] != 0 {
		t.Errorf("triage %v %v, want %v", tri, f, want)
	}
}

// TestScale: a ranking whose boosted scores pass 1 is scaled by its best,
// keeping order and ratios and saying so in each candidate's factors; one
// within 0..1 is left alone.
func TestScale(t *testing.T) {
	scores := []float64{1.6, 0.8, 0.4}
	factors := []map[string]float64{{}, {}, {}}
	if d := score.Scale(scores, factors); d != 1.6 {
		t.Fatalf("divisor %v, want 1.6", d)
	}
	if want := []float64{1, 0.5, 0.25}; !slices.Equal(scores, want) {
		t.Errorf("scaled %v, want %v", scores, want)
	}
	for _, f := range factors {
		if f["scale"] != 0.625 {
			t.Errorf("factors %v, want scale 0.625", f)
		}
	}
	within := []float64{0.9, 0.3}
	if d := score.Scale(within, []map[string]float64{{}, {}}); d != 1 || !slices.Equal(within, []float64{0.9, 0.3}) {
		t.Errorf("scores within 0..1 changed: %v (divisor %v)", within, d)
	}
}

// TestComponentBoost: a record of a named component gets the mild
// component boost, one by a named person the name boost, never both.
func TestComponentBoost(t *testing.T) {
	p := score.Default()
	fa := score.Factors{Semantic: 0.5, Keyword: 0.4, Recency: 0.3, Importance: 0.5, Confidence: 0.5}
	k := score.Ranking{Preset: p, Weights: p.Weights, Intent: score.IntentGeneral, MaxRelevance: score.Relevance(p.Weights, fa)}
	base, _ := k.Fuse(score.Candidate{Factors: fa, Kind: mnemo.KindFact})
	comp, f := k.Fuse(score.Candidate{Factors: fa, Kind: mnemo.KindFact, OfComponent: true})
	if want := score.Round4(base * score.ComponentBoost); comp != want || f["name_boost"] != score.ComponentBoost {
		t.Errorf("component: %v %v, want %v", comp, f, want)
	}
	both, f := k.Fuse(score.Candidate{Factors: fa, Kind: mnemo.KindFact, ByName: true, OfComponent: true})
	if want := score.Round4(base * score.NameBoost); both != want || f["name_boost"] != score.NameBoost {
		t.Errorf("person and component: %v %v, want %v", both, f, want)
	}
}
