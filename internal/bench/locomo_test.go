package bench

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func loadTiny(t *testing.T) *Dataset {
	t.Helper()
	ds, err := LoadLoCoMo("testdata/locomo-tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestLoadLoCoMo(t *testing.T) {
	ds := loadTiny(t)
	if len(ds.Conversations) != 2 || ds.Questions() != 6 {
		t.Fatalf("got %d conversations, %d questions", len(ds.Conversations), ds.Questions())
	}
	// "D" and "D9:9" do not resolve; "D1:1; D2:3" (two ids in one string),
	// "D2:03" and "D:1:4" resolve after repair.
	if ds.SkippedEvidence != 2 || ds.RepairedEvidence != 4 {
		t.Errorf("skipped %d repaired %d, want 2 and 4", ds.SkippedEvidence, ds.RepairedEvidence)
	}
	a := ds.Conversations[0]
	if got := a.Questions[1].Evidence; !slices.Equal(got, []string{"D1:1", "D2:3"}) {
		t.Errorf("evidence = %v", got)
	}
	if got := a.Questions[3].Evidence; !slices.Equal(got, []string{"D2:3"}) {
		t.Errorf("evidence = %v", got)
	}
	if a.Questions[2].Evidence != nil || a.Questions[2].Skipped != 1 {
		t.Errorf("malformed evidence: %+v", a.Questions[2])
	}
	// conv-b has session_2_date_time but no session_2: one session only.
	if n := len(ds.Conversations[1].Sessions); n != 1 {
		t.Errorf("conv-b sessions = %d, want 1", n)
	}
	want := time.Date(2023, 6, 3, 14, 30, 0, 0, time.UTC)
	if got := a.Sessions[1].At; !got.Equal(want) {
		t.Errorf("session 2 time = %v, want %v", got, want)
	}
	if got := a.Sessions[0].Turns[2].RecordText(); got != "Ann: Pottery sounds relaxing, what are you making? [shares a photo: a photo of a clay bowl]" {
		t.Errorf("record text = %q", got)
	}
}

func TestLoadLoCoMoErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not json", `{`, "not a JSON array"},
		{"empty", `[]`, "no samples"},
		{"no sessions", `[{"sample_id":"x","conversation":{},"qa":[]}]`, "no sessions"},
		{"bad date", `[{"sample_id":"x","conversation":{"session_1":[],"session_1_date_time":"yesterday"},"qa":[]}]`, "not a session time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLoCoMo([]byte(tt.data))
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want EINVALID with %q", err, tt.want)
			}
		})
	}
	if _, err := LoadLoCoMo("testdata/missing.json"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("missing file: %v", err)
	}
}

func TestNormalizeEvidence(t *testing.T) {
	turns := map[string]bool{"D1:1": true, "D1:2": true, "D11:26": true, "D30:5": true}
	tests := []struct {
		refs              []string
		ids               []string
		skipped, repaired int
	}{
		{[]string{"D1:1"}, []string{"D1:1"}, 0, 0},
		{[]string{"D1:1", "D1:1"}, []string{"D1:1"}, 0, 0},
		{[]string{"D1:1 D1:2"}, []string{"D1:1", "D1:2"}, 0, 2},
		{[]string{"D:11:26"}, []string{"D11:26"}, 0, 1},
		{[]string{"D30:05"}, []string{"D30:5"}, 0, 1},
		{[]string{"D", "D10:19", "x"}, nil, 3, 0},
		{nil, nil, 0, 0},
	}
	for _, tt := range tests {
		ids, sk, rp := NormalizeEvidence(tt.refs, turns)
		if !slices.Equal(ids, tt.ids) || sk != tt.skipped || rp != tt.repaired {
			t.Errorf("%q: got %v %d %d, want %v %d %d", tt.refs, ids, sk, rp, tt.ids, tt.skipped, tt.repaired)
		}
	}
}

func TestScoreQuestion(t *testing.T) {
	ks := []int{1, 2, 3}
	tests := []struct {
		name     string
		ranked   []string
		packed   map[int][]string
		evidence []string
		recall   map[int]float64
		rr       float64
		budget   map[int]float64
	}{
		{"first", []string{"a", "b", "c"}, map[int][]string{10: {"a"}}, []string{"a"},
			map[int]float64{1: 1, 2: 1, 3: 1}, 1, map[int]float64{10: 1}},
		{"third of two", []string{"x", "y", "a", "b"}, map[int][]string{10: {"x"}, 20: {"x", "b"}}, []string{"a", "b"},
			map[int]float64{1: 0, 2: 0, 3: 0.5}, 1.0 / 3, map[int]float64{10: 0, 20: 0.5}},
		{"repeats count once", []string{"a", "a", "a"}, nil, []string{"a", "b"},
			map[int]float64{1: 0.5, 2: 0.5, 3: 0.5}, 1, map[int]float64{}},
		{"missing", []string{"x"}, map[int][]string{5: nil}, []string{"a"},
			map[int]float64{1: 0, 2: 0, 3: 0}, 0, map[int]float64{5: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs := ScoreQuestion(tt.ranked, tt.packed, tt.evidence, ks)
			for k, v := range tt.recall {
				if !near(qs.RecallAt[k], v) {
					t.Errorf("recall@%d = %v, want %v", k, qs.RecallAt[k], v)
				}
			}
			if !near(qs.RR, tt.rr) {
				t.Errorf("rr = %v, want %v", qs.RR, tt.rr)
			}
			for b, v := range tt.budget {
				if !near(qs.RecallInBudget[b], v) {
					t.Errorf("budget %d = %v, want %v", b, qs.RecallInBudget[b], v)
				}
			}
		})
	}
}

func TestPackGreedy(t *testing.T) {
	cost := map[string]int{"a": 40, "b": 70, "c": 30, "d": 10}
	got := packGreedy([]string{"a", "b", "c", "d"}, 100, func(id string) int { return cost[id] })
	// b does not fit after a (110 > 100) and is skipped; c and d still fit.
	if !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Errorf("packed %v", got)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestRunLoCoMoTiny runs the whole benchmark on the hand-written fixture
// and checks the recency baseline's figures exactly (its ranking is fixed:
// newest session first, later turns first).
func TestRunLoCoMoTiny(t *testing.T) {
	ds := loadTiny(t)
	var calls []int
	rep, err := RunLoCoMo(context.Background(), ds, LoCoMoOptions{Dir: t.TempDir(), Ks: []int{1, 3, 5}, Budgets: []int{100, 300},
		Workers: 1, Progress: func(done, total int) { calls = append(calls, done*100+total) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 4 || rep.Unscorable != 2 || rep.SkippedEvidence != 2 || rep.Turns != 10 {
		t.Errorf("questions %d unscorable %d skipped %d turns %d, want 4 2 2 10", rep.Questions, rep.Unscorable, rep.SkippedEvidence, rep.Turns)
	}
	if len(calls) != 6 || calls[5] != 606 {
		t.Errorf("progress calls %v, want 6 ending at 6/6", calls)
	}
	var names []string
	for _, m := range rep.Methods {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, Methods) {
		t.Fatalf("methods %v", names)
	}
	// Each half holds its conversations' questions, and the overall figures
	// are the question-weighted mean of the halves'.
	for _, m := range rep.Methods {
		if len(m.Halves) != 2 || m.Halves[0].Label != "1-1" || m.Halves[1].Label != "2-2" {
			t.Fatalf("%s halves %+v", m.Name, m.Halves)
		}
		h1, h2 := m.Halves[0].Overall, m.Halves[1].Overall
		if h1.Questions != 3 || h2.Questions != 1 {
			t.Errorf("%s: halves of %d and %d questions, want 3 and 1", m.Name, h1.Questions, h2.Questions)
		}
		for _, k := range rep.Ks {
			if got := (3*h1.RecallAt[k] + h2.RecallAt[k]) / 4; !near(got, m.Overall.RecallAt[k]) {
				t.Errorf("%s: recall@%d of the halves %v, overall %v", m.Name, k, got, m.Overall.RecallAt[k])
			}
		}
		for _, b := range rep.Budgets {
			if v, ok := m.Overall.TokensPerFound[b]; !ok || v <= 0 {
				t.Errorf("%s: %v tokens per evidence turn within %d", m.Name, v, b)
			}
		}
	}
	// The thread factor only reorders BM25's candidates: the same turns
	// are found within the deepest list.
	if a, b := rep.Method(MethodBM25Thread).Overall.RecallAt[5], rep.Method(MethodBM25).Overall.RecallAt[5]; a != b {
		t.Errorf("bm25-thread recall@5 %v, bm25 %v: a rerank of ≤ 5 candidates finds the same turns", a, b)
	}
	// Recency order, conv-a: D2:3 D2:2 D2:1 D1:3 D1:2 D1:1; conv-b: D1:4 … D1:1.
	// q1 (cat 4, D1:2) rank 5; q2 (cat 1, D1:1+D2:3) ranks 6 and 1;
	// q4 (cat 2, D2:3) rank 1; q6 (cat 4, D1:4) rank 1.
	rec := rep.Method(MethodRecency)
	checkMetrics(t, "recency overall", rec.Overall, 4, map[int]float64{1: 0.625, 3: 0.625, 5: 0.875}, 0.8)
	checkMetrics(t, "recency cat 4", rec.ByCategory[4], 2, map[int]float64{1: 0.5, 3: 0.5, 5: 1}, 0.6)
	checkMetrics(t, "recency cat 1", rec.ByCategory[1], 1, map[int]float64{1: 0.5, 3: 0.5, 5: 0.5}, 1)
	checkMetrics(t, "recency cat 2", rec.ByCategory[2], 1, map[int]float64{1: 1, 3: 1, 5: 1}, 1)
	if _, ok := rec.ByCategory[5]; ok {
		t.Error("category 5 has no scorable question but is reported")
	}
	for _, m := range rep.Methods {
		lo := -1.0
		for _, b := range rep.Budgets {
			v, ok := m.Overall.RecallInBudget[b]
			if !ok || v < lo || v > 1 {
				t.Errorf("%s: recall within %d = %v (ok %v), want in [%v, 1]", m.Name, b, v, ok, lo)
			}
			lo = v
		}
	}
	// The bm25 baseline finds the single-hop answers by their words.
	if got := rep.Method(MethodBM25).ByCategory[4].RecallAt[1]; got != 1 {
		t.Errorf("bm25 single-hop recall@1 = %v, want 1", got)
	}

	// JSON shape.
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(obj) != 5 || obj["questions"] != 4.0 || obj["skipped_evidence"] != 2.0 || obj["learned"] != true || obj["thesauri"] == nil {
		t.Fatalf("top level %s", b)
	}
	m0 := obj["methods"].([]any)[4].(map[string]any)
	for _, k := range []string{"name", "questions", "recall_at_1", "recall_at_3", "recall_at_5", "mrr", "recall_in_budget",
		"tokens_per_evidence_turn", "by_category", "halves"} {
		if _, ok := m0[k]; !ok {
			t.Errorf("method object lacks %q: %v", k, m0)
		}
	}
	if m0["name"] != "recency" || m0["mrr"] != 0.8 {
		t.Errorf("recency object %v", m0)
	}
	if rib := m0["recall_in_budget"].(map[string]any); len(rib) != 2 || rib["100"] == nil {
		t.Errorf("recall_in_budget %v", rib)
	}
	bc := m0["by_category"].(map[string]any)
	if c4 := bc["4"].(map[string]any); c4["recall_at_5"] != 1.0 || c4["mrr"] != 0.6 {
		t.Errorf("by_category 4 = %v", c4)
	}
	// Halves: conversation 1 (q1, q2, q4: ranks 5, 6+1, 1) and conversation 2 (q6: rank 1).
	hv := m0["halves"].(map[string]any)
	h1, h2 := hv["1-1"].(map[string]any), hv["2-2"].(map[string]any)
	if len(hv) != 2 || h1["questions"] != 3.0 || h2["questions"] != 1.0 || h1["recall_at_1"] != 0.5 || h2["recall_at_1"] != 1.0 {
		t.Errorf("halves %v", hv)
	}
	if _, ok := h1["by_category"].(map[string]any)["1"]; !ok {
		t.Errorf("half 1-1 has no by_category 1: %v", h1)
	}
	if tp := m0["tokens_per_evidence_turn"].(map[string]any); len(tp) != 2 || tp["300"] == nil {
		t.Errorf("tokens_per_evidence_turn %v", tp)
	}

	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| recency | 0.625 | 0.625 | 0.875 | 0.800 |",
		"| method | recall@1 | recall@3 | recall@5 | MRR | in 100 tok | in 300 tok | tok/turn 100 | tok/turn 300 |",
		"4 single-hop (2)", "All conversations, categories 1–4 (4 questions)",
		"Conversations 1–1 (settings are chosen on this half), categories 1–4 (3 questions)",
		"Conversations 2–2 (held out), categories 1–4 (1 questions)", "| recency | 0.500 | 0.500 | 0.833 | 0.733 |",
		"| bm25-thread |", "+ 0.10 ×"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

func checkMetrics(t *testing.T, name string, m Metrics, n int, recall map[int]float64, mrr float64) {
	t.Helper()
	if m.Questions != n {
		t.Errorf("%s: %d questions, want %d", name, m.Questions, n)
	}
	for k, v := range recall {
		if !near(m.RecallAt[k], v) {
			t.Errorf("%s: recall@%d = %v, want %v", name, k, m.RecallAt[k], v)
		}
	}
	if !near(m.MRR, mrr) {
		t.Errorf("%s: MRR = %v, want %v", name, m.MRR, mrr)
	}
}

func TestRunLoCoMoOptions(t *testing.T) {
	ds := loadTiny(t)
	for _, opt := range []LoCoMoOptions{{Ks: []int{0}}, {Budgets: []int{-1}}, {Preset: "nope"}} {
		opt.Dir = t.TempDir()
		if _, err := RunLoCoMo(context.Background(), ds, opt); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%+v: err = %v, want EINVALID", opt, err)
		}
	}
	if _, err := RunLoCoMo(context.Background(), &Dataset{}, LoCoMoOptions{}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("empty data set: %v", err)
	}
}

func TestThreadRerank(t *testing.T) {
	threads := map[string]string{"a1": "A", "a2": "A", "a3": "A", "b1": "B", "n1": ""}
	thread := func(id string) string { return threads[id] }
	hits := []mnemo.Hit{{ID: "b1", Score: 10}, {ID: "n1", Score: 9.8}, {ID: "a1", Score: 9.5}, {ID: "a2", Score: 4}, {ID: "a3", Score: 2}}
	tests := []struct {
		name   string
		hits   []mnemo.Hit
		weight float64
		want   []string
	}{
		// Normalised: b1 1, n1 0.98, a1 0.95, a2 0.4, a3 0.2. Thread A's
		// mass 1.55 beats B's 1, so A's factor is 1 and B's 1/1.55.
		// weight 0.1: a1 1.05, b1 1.0645, n1 0.98, a2 0.5, a3 0.3.
		{"lifts the thread with the most matching text", hits, 0.1, []string{"b1", "a1", "n1", "a2", "a3"}},
		// weight 0.5: a1 1.45, b1 1.3226, n1 0.98, a2 0.9, a3 0.7.
		{"heavier weight", hits, 0.5, []string{"a1", "b1", "n1", "a2", "a3"}},
		{"weight 0 keeps the BM25 order", hits, 0, []string{"b1", "n1", "a1", "a2", "a3"}},
		{"ties keep the BM25 order", []mnemo.Hit{{ID: "a1", Score: 3}, {ID: "b1", Score: 3}}, 0, []string{"a1", "b1"}},
		{"no positive score", []mnemo.Hit{{ID: "a1", Score: 0}, {ID: "b1", Score: 0}}, 0.1, []string{"a1", "b1"}},
		{"empty", nil, 0.1, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ThreadRerank(tt.hits, thread, tt.weight)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	// A weak match in a thread that holds most of the matching text
	// overtakes a stronger match that stands alone.
	lone := []mnemo.Hit{{ID: "b1", Score: 10}, {ID: "a1", Score: 9.5}, {ID: "a2", Score: 9}, {ID: "a3", Score: 9}}
	// a1 0.95 + 0.1 = 1.05; b1 1 + 0.1 · 1/2.75 ≈ 1.036.
	if got := ThreadRerank(lone, thread, 0.1); !slices.Equal(got, []string{"a1", "b1", "a2", "a3"}) {
		t.Errorf("got %v, want a1 b1 a2 a3", got)
	}
}

// Tokens per evidence turn found is a ratio of sums over questions, per
// budget, not a mean of per-question ratios; a budget under which nothing
// was found has no figure.
func TestTokensPerFound(t *testing.T) {
	acc := newAccumulator([]int{1}, []int{100, 200})
	q1 := ScoreQuestion([]string{"a"}, map[int][]string{100: {"a", "x"}, 200: {"a", "x", "b"}}, []string{"a", "b"}, []int{1})
	q1.PackedTokens = map[int]int{100: 90, 200: 180}
	q2 := ScoreQuestion([]string{"y"}, map[int][]string{100: {"y"}, 200: {"y", "c"}}, []string{"c"}, []int{1})
	q2.PackedTokens = map[int]int{100: 60, 200: 120}
	q3 := ScoreQuestion([]string{"z"}, map[int][]string{100: {"z"}, 200: {"z"}}, []string{"d"}, []int{1})
	q3.PackedTokens = map[int]int{100: 50, 200: 50}
	if q1.FoundInBudget[100] != 1 || q1.FoundInBudget[200] != 2 || q2.FoundInBudget[100] != 0 {
		t.Fatalf("found %v %v", q1.FoundInBudget, q2.FoundInBudget)
	}
	acc.add(4, q1)
	acc.add(2, q2)
	acc.add(5, q3)
	m := acc.mean(1, 2, 3, 4)
	// 100: (90 + 60) / 1; 200: (180 + 120) / 3. Category 5 is not counted.
	if !near(m.TokensPerFound[100], 150) || !near(m.TokensPerFound[200], 100) {
		t.Errorf("tokens per evidence turn %v, want 100:150 200:100", m.TokensPerFound)
	}
	if c5 := acc.mean(5); len(c5.TokensPerFound) != 0 {
		t.Errorf("category 5 found nothing but has %v", c5.TokensPerFound)
	}
	b, _ := json.Marshal(acc.mean(5))
	if !strings.Contains(string(b), `"tokens_per_evidence_turn":{"100":null,"200":null}`) {
		t.Errorf("json %s", b)
	}
}

func TestHalves(t *testing.T) {
	tests := []struct {
		n    int
		want [][2]int
	}{{10, [][2]int{{1, 5}, {6, 10}}}, {2, [][2]int{{1, 1}, {2, 2}}}, {5, [][2]int{{1, 3}, {4, 5}}}, {1, nil}, {0, nil}}
	for _, tt := range tests {
		if got := halves(tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("halves(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}
