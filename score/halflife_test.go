package score_test

import (
	"reflect"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

func TestResolveHalfLifeGolden(t *testing.T) {
	type row struct {
		Scope    string  `json:"scope"`
		HalfLife float64 `json:"half_life"`
	}
	rows := readJSONL[row](t, "aura_resolve_halflife.jsonl")
	if len(rows) != 20 {
		t.Fatalf("read %d golden rows, want 20", len(rows))
	}
	aura, _ := score.Lookup("aura")
	for _, r := range rows {
		if got := aura.HalfLife(r.Scope); got != r.HalfLife {
			t.Errorf("aura.HalfLife(%q) = %v, want %v", r.Scope, got, r.HalfLife)
		}
	}
}

func TestReferenceHalfLives(t *testing.T) {
	want := []mnemo.HalfLife{
		{Prefix: "/news", Days: 90}, {Prefix: "/market", Days: 90},
		{Prefix: "/objections", Days: 730}, {Prefix: "/scripts", Days: 730},
		{Prefix: "/regulations", Days: 3650}, {Prefix: "/rules", Days: 3650},
		{Prefix: "/cases", Days: 730}, {Prefix: "/precedents", Days: 365},
	}
	got := score.ReferenceHalfLives()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReferenceHalfLives() = %v, want %v", got, want)
	}
	got[0].Days = 1 // a fresh slice each call
	if score.ReferenceHalfLives()[0].Days != 90 {
		t.Fatal("ReferenceHalfLives shares its backing array")
	}
	ext := score.ExtendedHalfLives()
	if !reflect.DeepEqual(ext[2:], want) {
		t.Errorf("ExtendedHalfLives()[2:] = %v, want the reference table", ext[2:])
	}
}

func TestHalfLife(t *testing.T) {
	def, _ := score.Lookup("default")
	alma, _ := score.Lookup("alma")
	aura, _ := score.Lookup("aura")
	custom := score.Preset{HalfLives: []mnemo.HalfLife{
		{Prefix: "/a/b", Days: 1}, {Prefix: "/a", Days: 2}, {Prefix: "/a/b/c", Days: 3}, // shadowed by /a/b
	}, DefaultHalfLife: 7}
	for _, tc := range []struct {
		name  string
		p     score.Preset
		scope string
		want  float64
	}{
		{"default: profile is permanent", def, "/user_profile", 36500},
		{"default: profile subtree", def, "/user_profile/alice/langs", 36500},
		{"default: session fades in minutes", def, "/session/task", 0.01},
		{"default: session root", def, "/session", 0.01},
		{"default: reference entry", def, "/regulations/gdpr", 3650},
		{"default: plain prefix", def, "/newsletter", 90},
		{"default: case-sensitive", def, "/Session", 30},
		{"default: fallback", def, "/projects/x", 30},
		{"default: empty scope", def, "", 30},
		{"default: root scope", def, "/", 30},
		{"alma: extended table", alma, "/user_profile", 36500},
		{"alma: reference", alma, "/precedents/2024", 365},
		{"aura: no profile entry", aura, "/user_profile", 30},
		{"aura: no session entry", aura, "/session/task", 30},
		{"first match wins", custom, "/a/b/c/d", 1},
		{"shorter later entry", custom, "/a/x", 2},
		{"custom default", custom, "/z", 7},
		{"zero default means 30", score.Preset{}, "/z", 30},
		{"negative default means 30", score.Preset{DefaultHalfLife: -1}, "/z", 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.HalfLife(tc.scope); got != tc.want {
				t.Errorf("HalfLife(%q) = %v, want %v", tc.scope, got, tc.want)
			}
		})
	}
}

func TestPresetRecency(t *testing.T) {
	def, _ := score.Lookup("default")
	if got := def.Recency("/user_profile/alice", 365); got < 0.99 {
		t.Errorf("a year-old profile record has recency %v, want about 1", got)
	}
	if got := def.Recency("/session/x", 1); got != def.Floor {
		t.Errorf("a day-old session record has recency %v, want the floor %v", got, def.Floor)
	}
	if got := def.Recency("/news", 90); got != 0.5 {
		t.Errorf("news at one half-life has recency %v, want 0.5", got)
	}
}
