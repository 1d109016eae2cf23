package score_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// goldenScore is one line of aura_compute_score.jsonl.
type goldenScore struct {
	Scope      *string `json:"scope"`
	Semantic   float64 `json:"semantic"`
	Days       float64 `json:"days"`
	Importance float64 `json:"importance"`
	HalfLife   float64 `json:"half_life"`
	Alpha      float64 `json:"alpha"`
	Beta       float64 `json:"beta"`
	Gamma      float64 `json:"gamma"`
	Floor      float64 `json:"floor"`
	Score      float64 `json:"score"`
}

// readJSONL decodes every line of a golden file into a fresh T.
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var v T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestComputeScoreGolden(t *testing.T) {
	rows := readJSONL[goldenScore](t, "aura_compute_score.jsonl")
	if len(rows) != 409 {
		t.Fatalf("read %d golden rows, want 409", len(rows))
	}
	aura, err := score.Lookup("aura")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		got := score.ComputeScore(r.Semantic, r.Days, r.Importance, r.HalfLife, r.Alpha, r.Beta, r.Gamma, r.Floor)
		if got != r.Score {
			t.Errorf("line %d: ComputeScore(%+v) = %v, want %v", i+1, r, got, r.Score)
		}
		// The same vector through the preset path: Score with the row's
		// weights and Recency must agree bit for bit.
		w := mnemo.Weights{Semantic: r.Alpha, Recency: r.Beta, Importance: r.Gamma}
		f := score.Factors{Semantic: r.Semantic, Importance: r.Importance,
			Recency: score.Recency(r.Days, r.HalfLife, r.Floor)}
		if got := aura.Score(w, f); got != r.Score {
			t.Errorf("line %d: aura.Score = %v, want %v", i+1, got, r.Score)
		}
		if r.Scope != nil {
			if got := aura.HalfLife(*r.Scope); got != r.HalfLife {
				t.Errorf("line %d: aura.HalfLife(%q) = %v, want %v", i+1, *r.Scope, got, r.HalfLife)
			}
			if r.Alpha == 0.5 && r.Beta == 0.3 && r.Gamma == 0.2 && r.Floor == 0.05 {
				f.Recency = aura.Recency(*r.Scope, r.Days)
				if got := aura.Score(aura.Weights, f); got != r.Score {
					t.Errorf("line %d: aura preset score = %v, want %v", i+1, got, r.Score)
				}
			}
		}
	}
}

func TestComputeScoreEdges(t *testing.T) {
	for _, tc := range []struct {
		name                                            string
		sem, days, imp, half, alpha, beta, gamma, floor float64
		want                                            float64
	}{
		{"fresh", 1, 0, 1, 30, 0.5, 0.3, 0.2, 0.05, 1},
		{"negative days count as fresh", 0, -10, 0, 30, 0.5, 0.3, 0.2, 0.05, 0.3},
		{"zero half-life fades at once", 0, 1, 0, 0, 0.5, 0.3, 0.2, 0.05, 0.015},
		{"zero half-life at age 0", 0, 0, 0, 0, 0.5, 0.3, 0.2, 0.05, 0.3},
		{"semantic above 1 clamps", 2, 0, 1, 30, 0.5, 0.3, 0.2, 0.05, 1},
		{"negative sum clamps", -1, 0, 0, 30, 1, 0, 0, 0, 0},
		{"NaN gives 0", math.NaN(), 0, 0, 30, 1, 0, 0, 0, 0},
		{"one half-life", 0, 30, 0, 30, 0, 1, 0, 0, 0.5},
		{"floor wins", 0, 3000, 0, 30, 0, 1, 0, 0.05, 0.05},
		{"tie rounds on binary value (0.46525 is below)", 0.6605, 3650, 0.6, 90, 0.5, 0.3, 0.2, 0.05, 0.4652},
		{"tie rounds on binary value (0.73025 is above)", 0.5385, 0, 0.805, 90, 0.5, 0.3, 0.2, 0.05, 0.7303},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := score.ComputeScore(tc.sem, tc.days, tc.imp, tc.half, tc.alpha, tc.beta, tc.gamma, tc.floor)
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRecency(t *testing.T) {
	for _, tc := range []struct {
		name             string
		age, half, floor float64
		want             float64
	}{
		{"age 0", 0, 30, 0.05, 1},
		{"one half-life", 30, 30, 0, 0.5},
		{"two half-lives", 60, 30, 0, 0.25},
		{"floor", 3000, 30, 0.05, 0.05},
		{"above floor", 30, 30, 0.05, 0.5},
		{"negative age", -5, 30, 0.05, 1},
		{"NaN age", math.NaN(), 30, 0, 1},
		{"zero half-life", 1, 0, 0.1, 0.1},
		{"negative half-life", 1, -3, 0.1, 0.1},
		{"infinite half-life", 1e9, math.Inf(1), 0, 1},
		{"session minutes: 1 day is nothing", 1, 0.01, 0, math.Pow(2, -100)},
		{"floor above 1 clamps", 10, 30, 7, 1},
		{"negative floor clamps", 3000, 30, -1, math.Pow(2, -100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := score.Recency(tc.age, tc.half, tc.floor); got != tc.want {
				t.Errorf("Recency(%v, %v, %v) = %v, want %v", tc.age, tc.half, tc.floor, got, tc.want)
			}
		})
	}
}

func TestScoreClamp(t *testing.T) {
	aura, _ := score.Lookup("aura")
	def, _ := score.Lookup("default")
	all := score.Factors{Semantic: 1, Keyword: 1, Recency: 1, Importance: 1, Confidence: 1, Frequency: 1}
	for _, tc := range []struct {
		name string
		p    score.Preset
		w    mnemo.Weights
		f    score.Factors
		want float64
	}{
		{"all ones, weights sum 1", def, def.Weights, all, 1},
		{"weights over 1 clamp", def, mnemo.Weights{Semantic: 2, Keyword: 2}, all, 1},
		{"negative weight clamps", def, mnemo.Weights{Semantic: -1}, all, 0},
		{"factor above 1 clamps", def, mnemo.Weights{Semantic: 1}, score.Factors{Semantic: 3}, 1},
		{"NaN clamps to 0", def, mnemo.Weights{Semantic: 1}, score.Factors{Semantic: math.NaN()}, 0},
		{"criticality ignored", def, def.Weights, score.Factors{Criticality: 1}, 0},
		{"zero", def, def.Weights, score.Factors{}, 0},
		{"aura rounds to 4", aura, aura.Weights, score.Factors{Semantic: 0.123456}, 0.0617},
		{"default does not round", def, mnemo.Weights{Semantic: 1}, score.Factors{Semantic: 0.123456}, 0.123456},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Score(tc.w, tc.f); got != tc.want {
				t.Errorf("Score = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRound(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		d    int
		want float64
	}{
		{0.46525, 4, 0.4652}, // stored as 0.46524999…
		{0.7302500000000001, 4, 0.7303},
		{0.125, 2, 0.12}, // exact tie: to even
		{0.375, 2, 0.38}, // exact tie: to even
		{2.5, 0, 2},      // exact tie: to even
		{-0.125, 2, -0.12},
		{1.23456789, -1, 1.23456789}, // no rounding
		{1e300, 4, 1e300},
		{0.1 + 0.2, 1, 0.3},
		{1.0000000000000002, 20, 1.0000000000000002},
	} {
		if got := score.Round(tc.x, tc.d); got != tc.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.x, tc.d, got, tc.want)
		}
	}
	if got := score.Round(math.NaN(), 2); !math.IsNaN(got) {
		t.Errorf("Round(NaN) = %v", got)
	}
}

func TestFrequency(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want float64
	}{
		{-3, 0}, {0, 0}, {100, 1}, {1000, 1}, {math.MaxInt64, 1},
		{1, math.Log1p(1) / math.Log1p(100)},
	} {
		if got := score.Frequency(tc.n); got != tc.want {
			t.Errorf("Frequency(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	prev := -1.0
	for n := int64(-2); n <= 300; n++ {
		f := score.Frequency(n)
		if f < prev || f < 0 || f > 1 {
			t.Fatalf("Frequency(%d) = %v after %v: not monotone in [0,1]", n, f, prev)
		}
		prev = f
	}
}

func TestMaps(t *testing.T) {
	w := mnemo.Weights{Semantic: 0.1, Keyword: 0.2, Recency: 0.3, Importance: 0.15, Confidence: 0.15, Frequency: 0.1}
	m := w.Map()
	want := map[string]float64{mnemo.FactorSemantic: 0.1, mnemo.FactorKeyword: 0.2, mnemo.FactorRecency: 0.3,
		mnemo.FactorImportance: 0.15, mnemo.FactorConfidence: 0.15, mnemo.FactorFrequency: 0.1}
	if len(m) != 6 {
		t.Fatalf("Weights.Map has %d keys, want 6", len(m))
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("Weights.Map[%s] = %v, want %v", k, m[k], v)
		}
	}
	if z := (mnemo.Weights{}).Map(); len(z) != 6 {
		t.Errorf("zero Weights.Map has %d keys, want 6", len(z))
	}
	if s := w.Sum(); math.Abs(s-1) > 1e-12 {
		t.Errorf("Sum = %v, want 1", s)
	}

	f := score.Factors{Semantic: 0.9, Recency: 0.5}
	fm := f.Map()
	if len(fm) != 6 || fm[mnemo.FactorSemantic] != 0.9 || fm[mnemo.FactorRecency] != 0.5 || fm[mnemo.FactorKeyword] != 0 {
		t.Errorf("Factors.Map = %v", fm)
	}
	if _, ok := fm[mnemo.FactorCriticality]; ok {
		t.Errorf("Factors.Map has criticality when it is zero")
	}
	f.Criticality = 0.7
	if fm := f.Map(); len(fm) != 7 || fm[mnemo.FactorCriticality] != 0.7 {
		t.Errorf("Factors.Map with criticality = %v", fm)
	}
}

func BenchmarkScore(b *testing.B) {
	p, _ := score.Lookup("default")
	w := p.ForIntent(score.IntentRecent)
	f := score.Factors{Semantic: 0.83, Keyword: 0.41, Recency: 0.66, Importance: 0.5, Confidence: 1, Frequency: 0.2}
	var sink float64
	for b.Loop() {
		sink += p.Score(w, f)
	}
	_ = sink
}

func BenchmarkScoreAuraRounded(b *testing.B) {
	p, _ := score.Lookup("aura")
	f := score.Factors{Semantic: 0.83, Recency: p.Recency("/news/today", 12), Importance: 0.5}
	var sink float64
	for b.Loop() {
		sink += p.Score(p.Weights, f)
	}
	_ = sink
}

func TestGatedScore(t *testing.T) {
	p := score.Default()
	w := p.Weights
	fresh := score.Factors{Semantic: 0.1, Keyword: 0, Recency: 1, Importance: 1, Confidence: 1, Frequency: 1}
	relevant := score.Factors{Semantic: 0.8, Keyword: 0.9, Recency: 0.05, Importance: 0.5, Confidence: 1}
	maxRel := score.Relevance(w, relevant)
	// Additive scoring lets a fresh, important but barely matching record
	// come close to the relevant one; gating keeps priors proportional.
	g1 := p.GatedScore(w, relevant, 1)
	g2 := p.GatedScore(w, fresh, score.Relevance(w, fresh)/maxRel)
	if g2 >= g1 {
		t.Fatalf("gated: fresh noise %v >= relevant %v", g2, g1)
	}
	if got := p.GatedScore(w, relevant, 1); got != p.Score(w, relevant) {
		t.Fatalf("gate 1 must equal the additive score: %v vs %v", got, p.Score(w, relevant))
	}
	if got := p.GatedScore(w, fresh, 0); got != score.Relevance(w, fresh) {
		t.Fatalf("gate 0 keeps only relevance: %v", got)
	}
	for _, g := range []float64{-1, 0, 0.5, 1, 2} {
		if s := p.GatedScore(w, score.Factors{1, 1, 1, 1, 1, 1, 0}, g); s < 0 || s > 1 {
			t.Fatalf("gate %v: score %v outside [0,1]", g, s)
		}
	}
	if score.Aura().GatePriors || score.Alma().GatePriors || !score.Default().GatePriors {
		t.Fatal("only the default preset gates priors")
	}
}

func TestThreadFactorAndWithThread(t *testing.T) {
	cases := []struct{ mass, best, want float64 }{
		{2, 4, 0.5}, {4, 4, 1}, {0, 4, 0}, {1, 0, 0}, {-1, 4, 0}, {5, 4, 1},
		{math.NaN(), 4, 0}, {1, math.NaN(), 0}, {1, math.Inf(1), 0},
	}
	for _, c := range cases {
		if got := score.ThreadFactor(c.mass, c.best); got != c.want {
			t.Errorf("ThreadFactor(%v, %v) = %v, want %v", c.mass, c.best, got, c.want)
		}
	}
	def := score.Default()
	if def.ThreadWeight != 0.10 {
		t.Errorf("default thread weight %v, want 0.10", def.ThreadWeight)
	}
	if got := def.WithThread(0.4, 0.5); math.Abs(got-0.45) > 1e-12 {
		t.Errorf("WithThread(0.4, 0.5) = %v, want 0.45", got)
	}
	if got := def.WithThread(0.98, 1); got != 1 {
		t.Errorf("WithThread clamps: got %v", got)
	}
	for _, name := range []string{score.PresetAura, score.PresetAlma} {
		p, _ := score.Lookup(name)
		if p.ThreadWeight != 0 || p.WithThread(0.3, 1) != 0.3 {
			t.Errorf("%s should not weigh threads", name)
		}
	}
}
