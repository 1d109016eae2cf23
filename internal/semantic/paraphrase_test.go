package semantic

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// hobbyCorpus is a generated corpus of real words: short notes about
// people's pastimes. Each topic has words that name it (which never meet
// in one note) and words of its context; every note also carries words of
// daily life shared by all topics.
func hobbyCorpus(seed uint64, n int) []string {
	topics := []struct{ heads, ctx string }{
		{"painting art drawing", "canvas brush colours gallery sketch easel studio portrait watercolour exhibition"},
		{"guitar piano singing", "song chords concert band melody lessons rehearsal stage album tune"},
		{"cooking baking", "recipe oven kitchen dinner flour sauce spices bread dessert dish"},
		{"running cycling swimming", "marathon race training pool bike miles coach fitness laps shoes"},
		{"garden plants", "roses soil seeds tomatoes flowers watering compost greenhouse herbs harvest"},
		{"car engine", "mechanic garage brakes tyres repair oil wheel gearbox battery parts"},
		{"рисование живопись", "холст кисть краски галерея эскиз мольберт мастерская портрет акварель выставка"},
	}
	shared := strings.Fields("weekend friends love started really week sister brother evening morning month enjoy new fun time")
	names := strings.Fields("Melanie Caroline John Maria Nate Joanna Tim Audrey")
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]string, n)
	for i := range out {
		t := topics[rng.IntN(len(topics))]
		heads, ctx := strings.Fields(t.heads), strings.Fields(t.ctx)
		ws := []string{names[rng.IntN(len(names))], heads[rng.IntN(len(heads))]}
		for k := 3 + rng.IntN(3); k > 0; k-- {
			ws = append(ws, ctx[rng.IntN(len(ctx))])
		}
		for k := 2 + rng.IntN(3); k > 0; k-- {
			ws = append(ws, shared[rng.IntN(len(shared))])
		}
		rng.Shuffle(len(ws)-1, func(a, b int) { ws[a+1], ws[b+1] = ws[b+1], ws[a+1] })
		out[i] = strings.Join(ws, " ") + "."
	}
	return out
}

// TestParaphrase: a memory and a question that share no content word meet
// through the expansion, and the memory is closer to the question than
// distractors of other topics.
func TestParaphrase(t *testing.T) {
	m, err := Train(context.Background(), hobbyCorpus(1, 3000), Config{MinVocab: 50})
	if err != nil {
		t.Fatal(err)
	}
	// The corpus has seven topics, so one random pair of terms in seven is
	// related and the upper null quantiles measure related pairs: the
	// threshold is taken below them.
	thr := m.NullSim(0.8)
	t.Logf("%d terms, null sim p50 %.3f p80 %.3f p95 %.3f p99 %.3f", m.Len(), m.NullSim(0.5), thr, m.NullSim(0.95), m.NullSim(0.99))
	for _, tc := range []struct {
		question, memory string
		distractors      []string
	}{
		{"What art hobby did she start?", "Melanie took up painting last spring",
			[]string{"John fixed the car engine last spring", "Maria took up cycling last spring", "Tim bought a new guitar"}},
		{"Which instrument lessons does he take?", "Nate plays piano every evening",
			[]string{"Nate bakes bread every evening", "Nate repairs the gearbox every evening"}},
		{"Чем она увлеклась, живописью?", "Мария купила холст и краски",
			[]string{"Мария купила seeds и compost"}},
	} {
		q := Terms(tc.question)
		mem := Terms(tc.memory)
		if slices.ContainsFunc(q, func(x string) bool { return slices.Contains(mem, x) }) {
			t.Fatalf("%q and %q share a term", tc.question, tc.memory)
		}
		exp := m.Expand(q, 20, thr)
		var terms []string
		for _, w := range exp {
			terms = append(terms, w.Term)
		}
		if !slices.ContainsFunc(exp, func(w Weighted) bool { return slices.Contains(mem, w.Term) }) {
			t.Errorf("expansion of %q (%v) misses %q", tc.question, terms, tc.memory)
		}
		qv := m.Embed(tc.question)
		sim := dot(qv, m.Embed(tc.memory))
		for _, d := range tc.distractors {
			if ds := dot(qv, m.Embed(d)); ds >= sim {
				t.Errorf("%q: distractor %q %.3f >= memory %.3f", tc.question, d, ds, sim)
			}
		}
		t.Logf("%q: expansion %v; memory %.3f", tc.question, terms, sim)
	}
}
