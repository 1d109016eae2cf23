package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/locomotest"
)

// TestLoCoMoReal runs the whole benchmark on the real data, when
// MNEMO_LOCOMO asks for it (see internal/locomotest):
//
//	MNEMO_LOCOMO=1 go test ./bench/ -run LoCoMoReal -v
func TestLoCoMoReal(t *testing.T) {
	path := locomotest.File(t)
	ds, err := LoadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Conversations) != 10 || ds.Questions() != 1986 {
		t.Fatalf("got %d conversations, %d questions; want 10, 1986", len(ds.Conversations), ds.Questions())
	}
	rep, err := RunLoCoMo(context.Background(), ds, LoCoMoOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	if rep.Turns != 5882 {
		t.Errorf("turns = %d, want 5882", rep.Turns)
	}
	if rep.SkippedEvidence != 3 {
		t.Errorf("skipped evidence = %d, want 3 (\"D\", \"D10:19\", \"D4:36\")", rep.SkippedEvidence)
	}
	// The hybrid must add to its parts: at least the 0.60, and not
	// below BM25 alone.
	h, k := rep.Method(MethodHybrid).Overall.RecallAt[10], rep.Method(MethodBM25).Overall.RecallAt[10]
	if h < 0.60 || h < k {
		t.Errorf("hybrid recall@10 %.3f, BM25 %.3f: want hybrid >= 0.60 and >= BM25", h, k)
	}
	if rep.Method(MethodBM25Thread) == nil {
		t.Errorf("no %s baseline", MethodBM25Thread)
	}
	for _, m := range rep.Methods {
		for _, b := range rep.Budgets {
			if _, ok := m.Overall.RecallInBudget[b]; !ok {
				t.Errorf("%s has no recall within %d tokens", m.Name, b)
			}
			if m.Name != MethodRecency && !(m.Overall.TokensPerFound[b] > 0) {
				t.Errorf("%s has no tokens per evidence turn within %d tokens", m.Name, b)
			}
		}
		// Conversations 1–5 hold 760 questions of categories 1–4, 6–10 hold 776.
		if len(m.Halves) != 2 || m.Halves[0].Label != "1-5" || m.Halves[1].Label != "6-10" ||
			m.Halves[0].Overall.Questions != 760 || m.Halves[1].Overall.Questions != 776 {
			t.Errorf("%s halves: %+v", m.Name, m.Halves)
		}
	}
}
