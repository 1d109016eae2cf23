package semantic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/stats"
	"github.com/mnemo-dev/mnemo/memindex"
)

func trainSyn(t testing.TB, c *synCorpus, cfg Config) *Model {
	t.Helper()
	m, err := Train(context.Background(), c.texts, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSynonymsAreNeighbours(t *testing.T) {
	c := genSynCorpus(1, 6000, 30, 3)
	m := trainSyn(t, c, Config{})
	thr := m.NullSim(0.99)
	t.Logf("vocabulary %d, dim %d, null p50 %.3f p95 %.3f p99 %.3f", m.Len(), m.Dim(), m.NullSim(0.5), m.NullSim(0.95), m.NullSim(0.99))
	found, above := 0, 0
	for _, p := range c.pairs {
		for _, ab := range [][2]string{{p[0], p[1]}, {p[1], p[0]}} {
			ns := m.Neighbours(ab[0], 3)
			if slices.ContainsFunc(ns, func(n Neighbour) bool { return n.Term == ab[1] }) {
				found++
			}
			if m.Similarity(ab[0], ab[1]) > thr {
				above++
			}
		}
	}
	n := 2 * len(c.pairs)
	t.Logf("synonym in top 3: %d of %d; above NullSim(0.99): %d of %d", found, n, above, n)
	if found < n*9/10 || above < n*95/100 {
		t.Errorf("synonyms found %d/%d, above threshold %d/%d", found, n, above, n)
	}
	// Synonym words of different topics are unrelated.
	var unrelated, over int
	var sims []float64
	for i, p := range c.pairs {
		for j, q := range c.pairs {
			if c.topic[i] == c.topic[j] {
				continue
			}
			unrelated++
			s := m.Similarity(p[0], q[1])
			sims = append(sims, s)
			if s > thr {
				over++
			}
		}
	}
	slices.Sort(sims)
	t.Logf("unrelated pairs (synonyms of different topics): p95 %.3f, p99 %.3f, max %.3f; above NullSim(0.99): %d of %d",
		stats.Interpolated(sims, 0.95), stats.Interpolated(sims, 0.99), sims[len(sims)-1], over, unrelated)
	if over*100 > unrelated {
		t.Errorf("%d of %d unrelated pairs above the null threshold", over, unrelated)
	}
}

func TestExpand(t *testing.T) {
	c := genSynCorpus(2, 6000, 30, 3)
	m := trainSyn(t, c, Config{})
	thr := m.NullSim(0.99)
	hit := 0
	for _, p := range c.pairs {
		ws := m.Expand([]string{p[0]}, 5, thr)
		for _, w := range ws {
			if w.Term == p[0] {
				t.Fatalf("Expand(%s) returned the query term", p[0])
			}
			if w.Weight <= 0 || w.Weight >= 1 || w.Sim <= thr {
				t.Fatalf("Expand(%s): %+v out of range (threshold %.3f)", p[0], w, thr)
			}
		}
		if slices.ContainsFunc(ws[:min(3, len(ws))], func(w Weighted) bool { return w.Term == p[1] }) {
			hit++
		}
	}
	t.Logf("synonym in the first 3 of Expand: %d of %d", hit, len(c.pairs))
	if hit < len(c.pairs)*9/10 {
		t.Errorf("synonym in the first 3 for %d of %d pairs", hit, len(c.pairs))
	}
	// A query of a topic's context words (as a query's terms) brings the
	// topic's synonyms, not another topic's.
	for ti, ctx := range c.topics[:5] {
		q := ctx[:3]
		ws := m.Expand(q, 10, thr)
		for _, w := range ws {
			if slices.Contains(q, w.Term) {
				t.Fatalf("Expand(%v) returned its own term %s", q, w.Term)
			}
			for pi, p := range c.pairs {
				if (p[0] == w.Term || p[1] == w.Term) && c.topic[pi] != ti {
					t.Errorf("Expand(%v): %s of topic %d (sim %.3f)", q, w.Term, c.topic[pi], w.Sim)
				}
			}
		}
	}
	if m.Expand([]string{"zzzunknown"}, 5, 0) != nil {
		t.Error("Expand of unknown terms is not nil")
	}
}

func TestEmbed(t *testing.T) {
	c := genSynCorpus(3, 3000, 20, 2)
	m := trainSyn(t, c, Config{})
	// Texts that share no word but a topic are closer than texts of
	// different topics.
	p, q := c.pairs[0], c.pairs[len(c.pairs)-1]
	a := m.Embed(p[0] + " " + c.topics[0][0])
	b := m.Embed(p[1] + " " + c.topics[0][1])
	x := m.Embed(q[1] + " " + c.topics[c.topic[len(c.pairs)-1]][1])
	same, other := float64(dot(a, b)), float64(dot(a, x))
	t.Logf("same topic %.3f, other topic %.3f", same, other)
	if same <= other || same < 0.5 {
		t.Errorf("same topic %.3f, other topic %.3f", same, other)
	}
	t.Logf("text null sim p50 %.3f p95 %.3f p99 %.3f", m.NullTextSim(0.5), m.NullTextSim(0.95), m.NullTextSim(0.99))
	// One random pair of texts in twenty shares a topic here, so the
	// quantiles above 0.95 measure related texts.
	if !(m.NullTextSim(0.9) < float64(same)) || m.NullTextSim(0.5) > m.NullTextSim(0.9) {
		t.Errorf("text null p50 %.3f p90 %.3f, same topic %.3f", m.NullTextSim(0.5), m.NullTextSim(0.9), same)
	}
	if z := m.Embed("!!! 123"); len(z) != m.Dim() || dot(z, z) != 0 {
		t.Errorf("Embed of no term: %v", z)
	}
}

func TestDeterministic(t *testing.T) {
	c := genSynCorpus(4, 2000, 20, 2)
	m1 := trainSyn(t, c, Config{Workers: 1})
	m2 := trainSyn(t, c, Config{Workers: 2})
	rev := slices.Clone(c.texts)
	slices.Reverse(rev)
	m3, err := Train(context.Background(), rev, Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	b1, b2, b3 := m1.Marshal(), m2.Marshal(), m3.Marshal()
	if !slices.Equal(b1, b2) || !slices.Equal(b1, b3) {
		t.Error("models differ with the number of workers or the order of texts")
	}
	m4 := trainSyn(t, c, Config{Seed: 99})
	if slices.Equal(b1, m4.Marshal()) {
		t.Error("seed has no effect")
	}
}

func TestTooSmall(t *testing.T) {
	tiny := slices.Repeat([]string{"red apple green pear", "apple pie and pear tart"}, 300)
	for _, tc := range []struct {
		name  string
		texts []string
		cfg   Config
	}{
		{"none", nil, Config{}},
		{"few texts", genSynCorpus(5, 50, 5, 2).texts, Config{}},
		{"tiny vocabulary", tiny, Config{}},
		// However small the minimum asked for.
		{"tiny vocabulary, minimums lowered", tiny, Config{MinTexts: 1, MinVocab: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Train(context.Background(), tc.texts, tc.cfg)
			if m != nil || !errors.Is(err, ErrTooSmall) {
				t.Fatalf("Train = %v; want ErrTooSmall", err)
			}
			t.Log(err)
		})
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Train(ctx, genSynCorpus(6, 1000, 20, 2).texts, Config{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestTerms(t *testing.T) {
	got := fmt.Sprint(Terms("Melanie took up Painting, the 2 paintings in 2023; É-x"))
	want := "[melani took up paint paint]"
	if got != want {
		t.Errorf("Terms = %s, want %s", got, want)
	}
}

func TestNeighboursAndNullSim(t *testing.T) {
	c := genSynCorpus(10, 2000, 20, 2)
	m := trainSyn(t, c, Config{})
	w := c.pairs[0][0]
	ns := m.Neighbours(w, 7)
	if len(ns) != 7 {
		t.Fatalf("%d neighbours, want 7", len(ns))
	}
	for i, n := range ns {
		if n.Term == w {
			t.Error("a term is its own neighbour")
		}
		if i > 0 && n.Sim > ns[i-1].Sim {
			t.Error("neighbours not ordered")
		}
		if d := n.Sim - m.Similarity(w, n.Term); d > 1e-6 || d < -1e-6 {
			t.Errorf("neighbour %s: %.6f, Similarity %.6f", n.Term, n.Sim, m.Similarity(w, n.Term))
		}
	}
	if m.Neighbours("zzzunknown", 3) != nil || m.Neighbours(w, 0) != nil {
		t.Error("Neighbours of an unknown term or k=0 is not nil")
	}
	if got := m.Neighbours(w, 100000); len(got) != m.Len()-1 {
		t.Errorf("k beyond the vocabulary: %d neighbours, want %d", len(got), m.Len()-1)
	}
	prev := -2.0
	for q := 0.0; q <= 1; q += 0.05 {
		s := m.NullSim(q)
		if s < prev || s < -1.0001 || s > 1.0001 {
			t.Fatalf("NullSim(%.2f) = %.3f after %.3f", q, s, prev)
		}
		prev = s
	}
	if m.NullSim(-1) != m.NullSim(0) || m.NullSim(2) != m.NullSim(1) {
		t.Error("NullSim does not clamp q")
	}
}

func TestConcurrentUse(t *testing.T) {
	c := genSynCorpus(11, 2000, 20, 2)
	m := trainSyn(t, c, Config{})
	want := make([][]Weighted, len(c.pairs))
	for i, p := range c.pairs {
		want[i] = m.Expand([]string{p[0], c.own[i][0]}, 5, 0.2)
	}
	m.mu.Lock()
	clear(m.cache)
	m.mu.Unlock()
	errs := make(chan string, 4*len(c.pairs))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, p := range c.pairs {
				if got := m.Expand([]string{p[0], c.own[i][0]}, 5, 0.2); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("Expand(%s) = %v, want %v", p[0], got, want[i])
				}
				m.Neighbours(p[1], 3)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// EmbedPieces of a text's pieces, as the engine cuts a query once, is
// Embed of the text, bit for bit: repeats, stopwords and terms of no
// letter included.
func TestEmbedPieces(t *testing.T) {
	c := genSynCorpus(3, 3000, 20, 2)
	m := trainSyn(t, c, Config{})
	p := c.pairs[0]
	for _, text := range []string{
		p[0] + " " + c.topics[0][0],
		p[1] + " " + p[1] + " the and 42 x " + c.topics[0][1],
		"!!! 123",
		"",
	} {
		cut := memindex.CutTokens(strings.Fields(text), 1<<10)
		if a, b := m.Embed(text), m.EmbedPieces(cut.Pieces); !slices.Equal(a, b) {
			t.Errorf("EmbedPieces(%q) differs from Embed", text)
		}
	}
}
