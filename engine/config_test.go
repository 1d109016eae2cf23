package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/score"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
	"github.com/mnemo-dev/mnemo/tuning"
)

// The read path's hook applies every field of the active version, the
// one under evaluation wins, a request's own relevance floor wins, and
// other presets and other namespaces are untouched.
func TestRankConfigAppliesTheActiveVersion(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, _ := tokenize.New("")
	s, err := New(ctx, Config{Store: st, Embedder: embed.NewHash(64), Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := mnemo.Caller{Name: "t", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	def, _ := s.Preset(score.PresetDefault)
	rc, err := s.rankConfig(ctx, "ops", def, nil, nil)
	if err != nil || rc.Candidates != 100 || rc.MinRelevance != nil || rc.DedupThreshold != nearDuplicate || rc.Weights(score.IntentRecent) != def.ForIntent(score.IntentRecent) {
		t.Fatalf("version 0: %+v %v", rc, err)
	}
	cfg := s.DefaultConfig()
	cfg.HalfLives = []mnemo.HalfLife{{Prefix: "/x", Days: 5}}
	cfg.DefaultHalfLife, cfg.RecencyFloor, cfg.Candidates, cfg.DedupThreshold = 10, 0.1, 50, 0.9
	m := 0.2
	cfg.MinRelevance = &m
	recent := mnemo.ConfigWeights{Semantic: 0.5, Recency: 0.5}
	cfg.Weights[string(score.IntentRecent)] = recent
	if _, err := s.ApplyConfig(mnemo.WithCallerIn(ctx, c, "ops"), cfg, tuning.ConfigChange{}); err != nil {
		t.Fatal(err)
	}
	rc, err = s.rankConfig(ctx, "ops", def, nil, nil)
	if err != nil || rc.Candidates != 50 || *rc.MinRelevance != 0.2 || rc.DedupThreshold != 0.9 || rc.Preset.Floor != 0.1 ||
		rc.Preset.HalfLife("/x/y") != 5 || rc.Preset.HalfLife("/z") != 10 || rc.Weights(score.IntentRecent) != recent.Score() {
		t.Fatalf("version 1: %+v %v", rc, err)
	}
	own := 0.0
	if rc, _ := s.rankConfig(ctx, "ops", def, nil, &own); *rc.MinRelevance != 0 {
		t.Errorf("the request's floor lost: %v", *rc.MinRelevance)
	}
	w := mnemo.Weights{Semantic: 1}
	if rc, _ := s.rankConfig(ctx, "ops", def, &w, nil); rc.Weights(score.IntentGeneral) != w || rc.Preset.Floor != 0.1 {
		t.Errorf("explicit weights: %+v", rc)
	}
	eval := s.DefaultConfig()
	eval.Candidates = 20
	if rc, _ := s.rankConfig(WithConfig(ctx, eval), "ops", def, nil, nil); rc.Candidates != 20 {
		t.Errorf("the configuration under evaluation lost: %d", rc.Candidates)
	}
	alma, _ := s.Preset(score.PresetAlma)
	if rc, _ := s.rankConfig(ctx, "ops", alma, nil, nil); rc.Candidates != 100 || rc.Preset.Floor != alma.Floor {
		t.Errorf("the alma preset took the configuration: %+v", rc)
	}
	if rc, _ := s.rankConfig(ctx, "elsewhere", def, nil, nil); rc.Candidates != 100 {
		t.Errorf("another namespace took the configuration: %+v", rc)
	}
}
