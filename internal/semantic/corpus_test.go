package semantic

import (
	"math/rand/v2"
	"strings"
)

// pseudoWords returns n distinct made-up words that the stemmer leaves
// alone (consonant-vowel syllables ending in a, o or u), so a test can
// look them up as given.
func pseudoWords(rng *rand.Rand, n int) []string {
	const cons = "bdfgklmnprtvz"
	const vows = "aiou"
	const ends = "aou"
	seen := make(map[string]bool)
	var out []string
	for len(out) < n {
		var b strings.Builder
		syl := 2 + rng.IntN(2)
		for s := 0; s < syl; s++ {
			b.WriteByte(cons[rng.IntN(len(cons))])
			if s == syl-1 {
				b.WriteByte(ends[rng.IntN(len(ends))])
			} else {
				b.WriteByte(vows[rng.IntN(len(vows))])
			}
		}
		w := b.String()
		if seen[w] || len(Terms(w)) != 1 || Terms(w)[0] != w {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// synCorpus is a generated corpus with known synonyms. Every text
// belongs to one topic and holds exactly one word of one of the topic's
// synonym pairs, a few context words of that pair (a pair has its own
// random mix of its topic's context words, so a context word serves
// several pairs) and words every topic uses: the two words of a pair share
// their contexts but never meet.
type synCorpus struct {
	texts  []string
	pairs  [][2]string // synonym pairs
	topic  []int       // topic of each pair
	own    [][]string  // context words of each pair
	topics [][]string  // context words of each topic
}

func genSynCorpus(seed uint64, nTexts, nTopics, pairsPerTopic int) *synCorpus {
	rng := rand.New(rand.NewPCG(seed, 7))
	const ctxPerTopic, ctxPerPair, common = 24, 6, 40
	words := pseudoWords(rng, nTopics*(ctxPerTopic+2*pairsPerTopic)+common)
	c := &synCorpus{}
	next := 0
	take := func(n int) []string { w := words[next : next+n]; next += n; return w }
	for t := 0; t < nTopics; t++ {
		c.topics = append(c.topics, take(ctxPerTopic))
		for p := 0; p < pairsPerTopic; p++ {
			w := take(2)
			c.pairs = append(c.pairs, [2]string{w[0], w[1]})
			c.topic = append(c.topic, t)
			var own []string
			for _, i := range rng.Perm(ctxPerTopic)[:ctxPerPair] {
				own = append(own, c.topics[t][i])
			}
			c.own = append(c.own, own)
		}
	}
	shared := take(common)
	fill := []string{"the", "and", "of", "it", "was", "with", "a"}
	for i := 0; i < nTexts; i++ {
		t := rng.IntN(nTopics)
		p := t*pairsPerTopic + rng.IntN(pairsPerTopic)
		var ws []string
		ws = append(ws, c.pairs[p][rng.IntN(2)])
		for n := 3 + rng.IntN(3); n > 0; n-- {
			ws = append(ws, c.own[p][rng.IntN(ctxPerPair)])
		}
		for n := 2 + rng.IntN(3); n > 0; n-- {
			ws = append(ws, shared[rng.IntN(common)])
		}
		for n := 2 + rng.IntN(3); n > 0; n-- {
			ws = append(ws, fill[rng.IntN(len(fill))])
		}
		rng.Shuffle(len(ws), func(a, b int) { ws[a], ws[b] = ws[b], ws[a] })
		c.texts = append(c.texts, strings.Join(ws, " ")+".")
	}
	return c
}

// zipfCorpus is a generated corpus shaped like a store's records for
// timing: n texts of 10 to 40 words, about 40 % of them function words, the
// rest from a vocabulary of vocab words with a Zipf distribution, half of
// them from one of 200 topics.
func zipfCorpus(seed uint64, n, vocab int) []string {
	rng := rand.New(rand.NewPCG(seed, 11))
	words := pseudoWords(rng, vocab)
	z := rand.NewZipf(rand.New(rand.NewPCG(seed, 13)), 1.1, 2, uint64(vocab-1))
	const topics, perTopic = 200, 150
	topicWords := make([][]int, topics)
	for t := range topicWords {
		for i := 0; i < perTopic; i++ {
			topicWords[t] = append(topicWords[t], rng.IntN(vocab))
		}
	}
	fill := strings.Fields("the a and of to in it is was with that for on we i you")
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		t := rng.IntN(topics)
		for k := 10 + rng.IntN(31); k > 0; k-- {
			var w string
			switch r := rng.IntN(10); {
			case r < 4:
				w = fill[rng.IntN(len(fill))]
			case r < 7:
				w = words[topicWords[t][rng.IntN(perTopic)]]
			default:
				w = words[z.Uint64()]
			}
			b.WriteString(w)
			b.WriteByte(' ')
		}
		out[i] = b.String()
	}
	return out
}
