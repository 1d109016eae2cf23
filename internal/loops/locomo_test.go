package loops_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/bench"
	"github.com/mnemo-dev/mnemo/internal/locomotest"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
	"github.com/mnemo-dev/mnemo/tuning"
)

// locomoStage is what one configuration gives on LoCoMo.
type locomoStage struct {
	recall     float64 // mean recall@10 of the evidence turns, categories 1-4
	questions  int
	validation float64 // the warm loop's validation score
	probes     int
}

// TestLoCoMoColdCycle measures LoCoMo retrieval before and after one cold
// cycle on a broken configuration: each conversation in its own namespace
// (one record per turn, each session a thread, as `mnemo bench locomo`
// loads it), recall@10 of the evidence turns and the warm loop's
// validation score with the default configuration, with a configuration
// that ignores meaning (applied by force), and after one cold cycle with
// automatic approval. Run on demand:
//
//	MNEMO_LOCOMO=1 go test ./loops/ -run LoCoMoColdCycle -v -timeout 30m
func TestLoCoMoColdCycle(t *testing.T) {
	path := locomotest.File(t)
	ds, err := bench.LoadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "locomo.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := tokenize.New("")
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHash(0)
	var stages [3]locomoStage
	var accepted, triggered int
	var coldTime time.Duration
	for _, c := range ds.Conversations {
		ns := "locomo-" + c.ID
		now := c.Sessions[len(c.Sessions)-1].At.Add(time.Hour)
		svc, err := engine.New(ctx, engine.Config{Store: st, Embedder: emb, Tokenizer: tok, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		var in []mnemo.NewRecord
		var dias []string
		for _, s := range c.Sessions {
			at := s.At
			for _, turn := range s.Turns {
				in = append(in, mnemo.NewRecord{Text: turn.RecordText(), At: &at, Source: "import:locomo",
					Provenance: []string{"dia:" + turn.DiaID}, Thread: fmt.Sprintf("%s/session-%d", c.ID, s.N)})
				dias = append(dias, turn.DiaID)
			}
		}
		written, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, ns), in, mnemo.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.TrainSemantic(ctx, ns); err != nil {
			t.Fatal(err)
		}
		dia := map[string]string{}
		for i, w := range written {
			dia[w.ID] = dias[i]
		}
		l := loops.New(svc)
		l.NoAdjust = true // measure the configuration alone: importance stays as loaded
		l.Now = func() time.Time { return now }
		measure := func(s *locomoStage) {
			t.Helper()
			for _, q := range c.Questions {
				if len(q.Evidence) == 0 || q.Category < 1 || q.Category > 4 {
					continue
				}
				res, err := svc.Recall(mnemo.WithCallerIn(ctx, admin, ns), mnemo.RecallRequest{Query: q.Text, K: 10})
				if err != nil {
					t.Fatal(err)
				}
				top := map[string]bool{}
				for _, h := range res.Hits {
					top[dia[h.ID]] = true
				}
				found := 0
				for _, e := range q.Evidence {
					if top[e] {
						found++
					}
				}
				s.recall += float64(found) / float64(len(q.Evidence))
				s.questions++
			}
			run, err := l.Warm(ctx, admin, ns)
			if err != nil {
				t.Fatal(err)
			}
			s.validation += run.Validation * float64(run.Probes)
			s.probes += run.Probes
		}
		measure(&stages[0])
		if _, err := svc.ApplyConfig(mnemo.WithCallerIn(ctx, admin, ns), broken(svc), tuning.ConfigChange{Reason: "ignore meaning (forced)"}); err != nil {
			t.Fatal(err)
		}
		measure(&stages[1])
		start := time.Now()
		run, err := l.Cold(ctx, admin, ns)
		if err != nil {
			t.Fatal(err)
		}
		coldTime += time.Since(start)
		if run.Triggered {
			triggered++
		}
		if run.Accepted {
			accepted++
		}
		t.Logf("%s: %d turns; cold: triggered %v, accepted %v (%s %s), validation %.3f -> %.3f", c.ID, len(written),
			run.Triggered, run.Accepted, run.Rule, run.Detail, run.ValidationBefore, run.ValidationAfter)
		measure(&stages[2])
		svc.Close()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| configuration | LoCoMo recall@10 (%d questions) | validation (%d probes) |\n|---|---:|---:|\n", stages[0].questions, stages[0].probes)
	for i, name := range []string{"default", "broken (ignores meaning)", "after one cold cycle"} {
		s := stages[i]
		fmt.Fprintf(&b, "| %s | %.3f | %.3f |\n", name, s.recall/float64(s.questions), s.validation/float64(s.probes))
	}
	fmt.Fprintf(&b, "\ncold cycles: %d of %d triggered, %d accepted, %.1f s in all\n", triggered, len(ds.Conversations), accepted, coldTime.Seconds())
	t.Log("\n" + b.String())
	before, brk, after := stages[0].recall, stages[1].recall, stages[2].recall
	if !(brk < before) || !(after > brk) {
		t.Errorf("recall@10: default %.3f, broken %.3f, after %.3f: want broken below default and the cycle to recover some", before, brk, after)
	}
}
