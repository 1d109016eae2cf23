package engine_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// textCuts is the SQLite store counting the calls that hand it a query's
// text to cut, and those that hand it terms already cut.
type textCuts struct {
	*sqlite.Store
	keyword, idf, keywordTerms, idfTerms atomic.Int64
}

func (s *textCuts) Keyword(ctx context.Context, sc mnemo.Scope, q string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	s.keyword.Add(1)
	return s.Store.Keyword(ctx, sc, q, f, n)
}

func (s *textCuts) IDF(ctx context.Context, sc mnemo.Scope, text string) (map[string]float64, float64, error) {
	s.idf.Add(1)
	return s.Store.IDF(ctx, sc, text)
}

func (s *textCuts) KeywordTerms(ctx context.Context, sc mnemo.Scope, terms []string, f mnemo.Filter, n int) ([]mnemo.Hit, error) {
	s.keywordTerms.Add(1)
	return s.Store.KeywordTerms(ctx, sc, terms, f, n)
}

func (s *textCuts) IDFTerms(ctx context.Context, sc mnemo.Scope, terms []string) (map[string]float64, float64, error) {
	s.idfTerms.Add(1)
	return s.Store.IDFTerms(ctx, sc, terms)
}

// A digest and a recall split their query into words once (twice when it
// names a time, whose expression is taken out before the content words
// are read), and the store gets the query's terms already cut: it cuts no
// query text of its own.
func TestReadCutsItsQueryOnce(t *testing.T) {
	var st *textCuts
	f := open(t, "", func(c *engine.Config) {
		st = &textCuts{Store: c.Store.(*sqlite.Store)}
		c.Store = st
	})
	f.remember(t, "",
		mnemo.NewRecord{Text: "We pinned the parser's version in Ingest because 2.4 broke dates."},
		mnemo.NewRecord{Text: "The ingest service parses the feed every five minutes."},
		mnemo.NewRecord{Text: "Lunch options near the office include a ramen bar."},
		mnemo.NewRecord{Text: "Decision: the parser stays on 2.3 until the date bug is fixed.", Kind: mnemo.KindDecision, Layer: mnemo.LayerWorkflow},
	)
	ctx := mnemo.WithCallerIn(context.Background(), admin, "")
	for _, c := range []struct {
		query  string
		splits int
	}{
		{"Why did we pin the parser version in Ingest?", 1},
		{"what did we decide about the parser last week", 2},
	} {
		for _, op := range []string{"digest", "recall"} {
			count, stop := engine.CountQuerySplits()
			kw, idf, kwt, idft := st.keyword.Load(), st.idf.Load(), st.keywordTerms.Load(), st.idfTerms.Load()
			var err error
			if op == "digest" {
				_, err = f.svc.Digest(ctx, mnemo.DigestRequest{Task: c.query})
			} else {
				_, err = f.svc.Recall(ctx, mnemo.RecallRequest{Query: c.query})
			}
			stop()
			if err != nil {
				t.Fatal(err)
			}
			if got := count(); got != c.splits {
				t.Errorf("%s %q: the query was split %d times, want %d", op, c.query, got, c.splits)
			}
			if d := st.keyword.Load() - kw; d != 0 {
				t.Errorf("%s %q: the store cut the query's text for %d keyword searches, want 0", op, c.query, d)
			}
			if d := st.idf.Load() - idf; d != 0 {
				t.Errorf("%s %q: the store cut the query's text for %d IDF reads, want 0", op, c.query, d)
			}
			if st.keywordTerms.Load() == kwt || st.idfTerms.Load() == idft {
				t.Errorf("%s %q: no keyword search or IDF read of cut terms", op, c.query)
			}
		}
	}
}
