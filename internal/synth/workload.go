package synth

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Workload generates the deterministic synthetic memory workload of the
// benchmarks (mnemo bench) and the load test (mnemo loadtest): records with
// realistic, varied text (a vocabulary of a few thousand invented words drawn
// with a Zipf distribution, so a few words are everywhere and most are rare,
// plus identifiers, numbers and component names), spread over several
// layers, kinds and scopes, with times over the two years before a fixed
// instant; and queries drawn from the same vocabulary.
type Workload struct {
	rng   *rand.Rand
	words *Words
	now   time.Time
}

// Vocabulary is the number of distinct words the workload uses.
const Vocabulary = 4000

// syllables build the invented words.
const syllables = `ka lo mi ra ne to su va ri de po na le ti mo ga ze lu fi
	ba sho pra tem lin cor dar mes vin quo rel sta tur pel gon bri fal nor sen tra ex com int`

var (
	synthScopes = []string{"/regulations/gdpr", "/regulations/aviation", "/news/markets", "/market/ground-segment",
		"/cases/passes", "/precedents/2024", "/rules/safety", "/scripts/onboarding", "/user_profile/ops",
		"/objections/pricing", "/", "/projects/relay", "/projects/billing"}
	synthKinds = []mnemo.Kind{mnemo.KindFact, mnemo.KindFact, mnemo.KindFact, mnemo.KindEvent, mnemo.KindDecision,
		mnemo.KindEpisode, mnemo.KindProcedure, mnemo.KindPreference, mnemo.KindCorrection}
	synthComponents = []string{"api", "billing", "ingest", "scheduler", "telemetry", "auth", "storage", "ui"}
)

// NewWorkload returns a generator; the same seed gives the same workload.
// Record times lie in the two years before now.
func NewWorkload(seed uint64, now time.Time) *Workload {
	rng := newRand(seed)
	return &Workload{rng: rng, words: NewWords(rng, strings.Fields(syllables), Vocabulary, 1.07, 2), now: now}
}

// Stream returns a workload of the same words and instant drawing from a
// stream of its own: the same seed, the same draws. Records and queries
// drawn from streams of different seeds share their vocabulary but not
// their texts.
func (s *Workload) Stream(seed uint64) *Workload {
	rng := newRand(seed)
	return &Workload{rng: rng, words: s.words.Drawn(rng), now: s.now}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// At returns the workload's word of rank i (0: the most frequent).
func (s *Workload) At(i int) string { return s.words.At(i) }

func (s *Workload) word() string { return s.words.Word() }

// sentence returns n words with some punctuation, identifiers and numbers.
func (s *Workload) sentence(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch x := s.rng.IntN(100); {
		case x < 3:
			b.WriteString("OPS-" + strconv.Itoa(100+s.rng.IntN(900)))
		case x < 6:
			b.WriteString(strconv.Itoa(s.rng.IntN(5000)))
		case x < 8:
			b.WriteString(synthComponents[s.rng.IntN(len(synthComponents))])
		default:
			b.WriteString(s.word())
		}
		if i > 0 && i < n-1 && s.rng.IntN(12) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('.')
	t := b.String()
	return strings.ToUpper(t[:1]) + t[1:]
}

// Record returns the next synthetic record: one to three sentences of 6 to
// 24 words.
func (s *Workload) Record() mnemo.NewRecord {
	var parts []string
	for range 1 + s.rng.IntN(3) {
		parts = append(parts, s.sentence(6+s.rng.IntN(19)))
	}
	kind := synthKinds[s.rng.IntN(len(synthKinds))]
	at := s.now.Add(-time.Duration(s.rng.Int64N(int64(730 * 24 * time.Hour))))
	imp := float64(s.rng.IntN(101)) / 100
	r := mnemo.NewRecord{Kind: kind, Scope: synthScopes[s.rng.IntN(len(synthScopes))], Text: strings.Join(parts, " "),
		Importance: &imp, At: &at, Source: "import:synthetic",
		Provenance: []string{"doc:synthetic/" + strconv.Itoa(s.rng.IntN(100000))}}
	if s.rng.IntN(3) == 0 {
		r.Component = synthComponents[s.rng.IntN(len(synthComponents))]
	}
	if kind == mnemo.KindDecision {
		r.Decision = &mnemo.Decision{Title: s.sentence(4), Decision: s.sentence(10), Status: "accepted"}
	}
	if kind == mnemo.KindCorrection {
		r.Correction = &mnemo.Correction{Class: "omission", Category: s.word(), Outcome: mnemo.OutcomeModified, Summary: s.sentence(8)}
	}
	return r
}

// Records returns the next n records.
func (s *Workload) Records(n int) []mnemo.NewRecord {
	out := make([]mnemo.NewRecord, n)
	for i := range out {
		out[i] = s.Record()
	}
	return out
}

// Query returns a task-like query of 3 to 8 words: mostly Zipf-drawn words
// plus one mid-frequency topic word, so queries match from a handful to
// thousands of records.
func (s *Workload) Query() string {
	n := 3 + s.rng.IntN(6)
	words := make([]string, 0, n)
	words = append(words, s.words.At(50+s.rng.IntN(1500)))
	for len(words) < n {
		words = append(words, s.word())
	}
	s.rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	return strings.Join(words, " ")
}
