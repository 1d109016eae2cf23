package score_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"aura", "aura"}, {"alma", "alma"}, {"default", "default"}, {"", "default"},
		{" Aura ", "aura"}, {"ALMA", "alma"},
	} {
		p, err := score.Lookup(tc.in)
		if err != nil {
			t.Errorf("Lookup(%q): %v", tc.in, err)
			continue
		}
		if p.Name != tc.want {
			t.Errorf("Lookup(%q).Name = %q, want %q", tc.in, p.Name, tc.want)
		}
	}
	for _, bad := range []string{"bogus", "aura2", "défault", "al ma"} {
		_, err := score.Lookup(bad)
		if mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("Lookup(%q) error %v, want code %s", bad, err, mnemo.EINVALID)
			continue
		}
		if want := "(want aura, alma or default)"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), bad) {
			t.Errorf("Lookup(%q) message %q", bad, err)
		}
	}
	for _, n := range score.Names() {
		if _, err := score.Lookup(n); err != nil {
			t.Errorf("Names() lists %q, which Lookup rejects: %v", n, err)
		}
	}
	if !reflect.DeepEqual(score.Names(), []string{"aura", "alma", "default"}) {
		t.Errorf("Names() = %v", score.Names())
	}
}

func TestLookupReturnsCopies(t *testing.T) {
	p, _ := score.Lookup("default")
	p.HalfLives[0].Days = 1
	p.Weights.Semantic = 9
	q, _ := score.Lookup("default")
	if q.HalfLives[0].Days == 1 || q.Weights.Semantic == 9 {
		t.Fatal("Lookup returned shared state")
	}
}

func TestPresets(t *testing.T) {
	aura, _ := score.Lookup("aura")
	alma, _ := score.Lookup("alma")
	def, _ := score.Lookup("default")

	if want := (mnemo.Weights{Semantic: 0.5, Recency: 0.3, Importance: 0.2}); aura.Weights != want {
		t.Errorf("aura weights %+v, want %+v", aura.Weights, want)
	}
	if aura.Floor != 0.05 || aura.Decimals != 4 || aura.DefaultHalfLife != 30 ||
		!reflect.DeepEqual(aura.HalfLives, score.ReferenceHalfLives()) {
		t.Errorf("aura = %+v", aura)
	}

	if want := (mnemo.Weights{Semantic: 0.30, Keyword: 0.20, Importance: 0.15, Confidence: 0.15,
		Recency: 0.10, Frequency: 0.10}); alma.Weights != want {
		t.Errorf("alma weights %+v, want %+v", alma.Weights, want)
	}
	if rel := alma.Weights.Semantic + alma.Weights.Keyword; math.Abs(rel-0.5) > 1e-12 {
		t.Errorf("alma relevance %v, want 0.50", rel)
	}
	if alma.Decimals >= 0 || !reflect.DeepEqual(alma.HalfLives, score.ExtendedHalfLives()) {
		t.Errorf("alma = %+v", alma)
	}

	w := def.Weights
	if w.Semantic <= 0 || w.Keyword <= 0 || w.Recency <= 0 || w.Importance <= 0 || w.Confidence <= 0 || w.Frequency <= 0 {
		t.Errorf("default weights %+v: every factor should count", w)
	}
	if w.Semantic+w.Keyword < 0.5 {
		t.Errorf("default relevance %v: semantic and keyword should dominate", w.Semantic+w.Keyword)
	}
	if !reflect.DeepEqual(def.HalfLives, score.ExtendedHalfLives()) || def.Decimals >= 0 {
		t.Errorf("default = %+v", def)
	}
	for _, p := range []score.Preset{aura, alma, def} {
		if s := p.Weights.Sum(); math.Abs(s-1) > 1e-12 {
			t.Errorf("%s weights sum to %v, want 1", p.Name, s)
		}
	}
}
